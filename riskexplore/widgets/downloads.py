"""A file offered for download from a page: an HTML link that carries the file in a
``data:`` URL, so a click saves it at once, with no round trip to the kernel or the
server (in Voila too) and nothing loaded from the network."""

from __future__ import annotations

import base64
import html

__all__ = ["LINK_STYLE", "download_link"]

#: The look of a download link: a blue outlined button.
LINK_STYLE = (
    "font-family:system-ui,sans-serif;display:inline-block;margin:4px 12px 4px 0;"
    "padding:6px 12px;border:1px solid #1976d2;border-radius:4px;color:#1976d2;"
    "text-decoration:none"
)


def download_link(
    text: str, filename: str, payload: str, mime: str, css_class: str = "rx-download"
) -> str:
    """An HTML link that saves ``payload`` as ``filename`` when clicked.

    Parameters
    ----------
    text : str
        The link's words (escaped; a download arrow is put before them).
    filename : str
        The name the browser saves the file under.
    payload : str
        The file's text (UTF-8).
    mime : str
        Its type (``"text/html"``, ``"application/json"``).
    css_class : str
        The link's CSS class (for the page's tests).

    Returns
    -------
    str
        The ``<a download=... href="data:...">`` element.

    Examples
    --------
    >>> link = download_link("Model file", "model.json", "{}", "application/json")
    >>> link.startswith('<a class="rx-download" download="model.json" href="data:')
    True
    """
    data = base64.b64encode(payload.encode("utf-8")).decode("ascii")
    return (
        f'<a class="{html.escape(css_class)}" download="{html.escape(filename)}" '
        f'href="data:{mime};charset=utf-8;base64,{data}" style="{LINK_STYLE}">'
        f"⬇ {html.escape(text)}</a>"
    )
