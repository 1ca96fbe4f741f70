"""riskexplore: certifiably optimal risk scores and predictive checklists."""
