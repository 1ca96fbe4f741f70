"""Saving figures for papers: self-contained HTML always; PNG/SVG/PDF with ``kaleido``."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from riskexplore.errors import RiskExploreError

__all__ = ["image_export_available", "save_figure"]


def image_export_available() -> bool:
    """True when plotly can write PNG/SVG/PDF here (needs the ``kaleido`` package).

    Returns
    -------
    bool
        Whether ``kaleido`` is installed.
    """
    return importlib.util.find_spec("kaleido") is not None


_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".svg", ".pdf"}


def save_figure(fig, path: str | Path, **kwargs: Any) -> Path:
    """Save a figure (or a PlotView's figure) by file suffix.

    ``.html`` writes a self-contained page (plotly.js inlined, works offline), ``.json``
    the plotly JSON, and ``.png``/``.svg``/``.pdf``/... an image, which needs the
    ``kaleido`` package; without it a :class:`RiskExploreError` says so.

    Parameters
    ----------
    fig : Figure or PlotView
        The figure.
    path : str or Path
        The file; its suffix chooses the format.
    **kwargs
        Arguments of plotly's ``write_html``, ``write_json`` or ``write_image``.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    RiskExploreError
        For an unknown suffix, or an image without ``kaleido``.
    """
    import plotly.graph_objects as go

    path = Path(path)
    suffix = path.suffix.lower()
    fig = getattr(fig, "figure", fig)  # a PlotView: its figure
    static = fig if type(fig) is go.Figure else go.Figure(fig)
    if suffix in (".html", ".htm"):
        static.write_html(path, include_plotlyjs=kwargs.pop("include_plotlyjs", True), **kwargs)
    elif suffix == ".json":
        static.write_json(path, **kwargs)
    elif suffix in _IMAGE_SUFFIXES:
        if not image_export_available():
            raise RiskExploreError(
                f"saving {suffix[1:].upper()} needs the kaleido package, which is not "
                "installed here; save as .html (self-contained) or install kaleido"
            )
        try:
            static.write_image(path, **kwargs)
        except Exception as exc:  # kaleido present but its browser/renderer is not
            raise RiskExploreError(f"could not render {path.name}: {exc}") from exc
    else:
        raise RiskExploreError(
            f"unknown figure format {suffix or '(none)'!r}; use .html, .json or an image "
            "suffix (.png, .svg, .pdf)"
        )
    return path
