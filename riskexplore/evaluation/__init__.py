"""Evaluation of risk scores and checklists: metrics, cross-validation, paths, comparisons."""
