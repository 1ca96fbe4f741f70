"""A self-contained HTML report of a fitted model, for a paper or an ethics submission.

* :func:`report_html` -- the report as one HTML string;
* :func:`write_report` -- the same, written to a file.

The report holds the score card (or checklist) and its certificate in plain words, the
settings and rules, a data summary, development and validation metrics side by side, the
calibration and decision-curve figures (:mod:`riskexplore.figures.validation`), the score
table, the subgroup audit when given, and a TRIPOD+AI items table. It loads nothing from
the network (plotly's JavaScript is inlined once) and prints to PDF with one section per
page block. Names are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from riskexplore.core.lazy import lazy_exports

if TYPE_CHECKING:  # the public names (imported on first use)
    from riskexplore.report.page import report_html as report_html
    from riskexplore.report.page import write_report as write_report

__all__, __getattr__, __dir__ = lazy_exports(__name__, __file__)
