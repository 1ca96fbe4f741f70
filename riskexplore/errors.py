"""Exceptions and warnings raised by riskexplore.

Every error a user can cause derives from :class:`RiskExploreError`, so a CLI or a
widget can catch one type and show its one-line message. :class:`DataWarning` says what
part of the data was left out and why, while the work goes on with the rest.
"""


class RiskExploreError(Exception):
    """Base class for errors caused by the user's data, settings or constraints."""


class InputError(RiskExploreError, ValueError):
    """The data (features, outcome, weights) cannot be used as given."""


class ConstraintError(RiskExploreError, ValueError):
    """A constraint names an unknown feature, is not linear, or is malformed."""


class InfeasibleError(RiskExploreError):
    """No model satisfies the coefficient bounds, size bounds and constraints together."""


class DataWarning(UserWarning):
    """Part of the data is left out (e.g. a column that cannot give items), with the reason;
    the work goes on with the rest."""
