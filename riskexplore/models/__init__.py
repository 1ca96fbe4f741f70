"""Fitted models: risk scores and their optimality certificates."""

from riskexplore.models.certificate import Certificate
from riskexplore.models.risk_score import RiskScore

__all__ = ["Certificate", "RiskScore"]
