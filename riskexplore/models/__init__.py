"""Fitted models: risk scores and their optimality certificates."""

from riskexplore.core.certificate import Certificate
from riskexplore.models.risk_score import RiskScore

__all__ = ["Certificate", "RiskScore"]
