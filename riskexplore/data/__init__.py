"""Input data handling: validation of features, outcome and weights."""
