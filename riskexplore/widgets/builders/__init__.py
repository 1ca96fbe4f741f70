"""Rule builders: add and remove a family's readable constraints by picking names from lists.

* :mod:`~riskexplore.widgets.builders.constraint_list` -- what every builder shares (the
  list of rules, its messages, the Explorer's hook).
* :mod:`~riskexplore.widgets.builders.risk_score` -- the risk scores' rules.
* :mod:`~riskexplore.widgets.builders.checklist` -- the checklists' rules.

A family names its builder in its registry entry; the views ask the registry.
"""
