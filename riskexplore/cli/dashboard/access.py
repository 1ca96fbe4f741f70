"""Who may open the dashboards, and where: access control and the URL prefix of the server.

A server on the machine's own address (``127.0.0.1``, the default) is reachable only from
this machine and needs no access control. A server on any other address (``--ip 0.0.0.0``,
a shared server for a group) is reachable from the network, so it requires a **token**: the
one given (``--token``, or the environment variable :data:`TOKEN_VARIABLE`), else a new
random one, printed in the page's URL; a visitor without it gets Voila's login page
instead of the dashboard. Only ``--no-auth`` serves it to anyone, and the launcher then says
so. ``--base-url /prefix/`` serves every page under a prefix (behind a reverse proxy, or as a
JupyterHub service).
"""

from __future__ import annotations

import os
import secrets
import socket
from urllib.parse import quote

__all__ = [
    "LOCAL_HOSTS",
    "TOKEN_VARIABLE",
    "access_token",
    "base_url_path",
    "display_url",
    "exposure_note",
    "is_local",
]

#: Addresses reachable only from this machine.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

#: The environment variable that may hold the token (keeps it out of the process list).
TOKEN_VARIABLE = "RISKEXPLORE_DASHBOARD_TOKEN"


def is_local(host: str) -> bool:
    """Whether a server on ``host`` is reachable only from this machine.

    Parameters
    ----------
    host : str
        The address to listen on.

    Returns
    -------
    bool
        True for the loopback addresses.
    """
    return host in LOCAL_HOSTS or host.startswith("127.")


def access_token(host: str, token: str | None, no_auth: bool) -> str | None:
    """The token a server on ``host`` requires, or None when it requires none.

    Parameters
    ----------
    host : str
        The address to listen on.
    token : str, optional
        The token asked for (``--token``; default: :data:`TOKEN_VARIABLE`, else a new
        random one off this machine).
    no_auth : bool
        Serve without access control (``--no-auth``).

    Returns
    -------
    str or None
        The token.

    Raises
    ------
    ValueError
        For both a token and ``no_auth``, or an empty token.
    """
    token = token if token is not None else os.environ.get(TOKEN_VARIABLE)
    if no_auth:
        if token:
            raise ValueError("--no-auth and a token exclude each other; give one of them")
        return None
    if token is not None and not token.strip():
        raise ValueError("the token is empty; give a token, or --no-auth to serve without one")
    if token:
        return token.strip()
    return None if is_local(host) else secrets.token_urlsafe(24)


def base_url_path(prefix: str) -> str:
    """``prefix`` as Voila's base URL: one leading and one trailing slash.

    Parameters
    ----------
    prefix : str
        For example ``dashboards``, ``/dashboards`` or ``/group/dashboards/``.

    Returns
    -------
    str
        For example ``/dashboards/``.
    """
    parts = [p for p in prefix.strip().split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise ValueError(f"--base-url {prefix!r}: '.' and '..' are not allowed")
    return "/" + "".join(f"{p}/" for p in parts)


def display_url(host: str, port: int, base_url: str, path: str = "", token: str | None = None):
    """The URL a visitor opens: ``http://HOST:PORT/BASE/PATH?token=TOKEN``.

    A server on every address (``0.0.0.0``, ``::``, ``""``) is shown with this machine's
    name.

    Parameters
    ----------
    host : str
        The address the server listens on.
    port : int
        Its port.
    base_url : str
        Its prefix (``/`` or ``/prefix/``).
    path : str
        The page under the prefix (e.g. ``voila/render/risk_score_builder.ipynb``).
    token : str, optional
        The token, added as a query.

    Returns
    -------
    str
        The URL.
    """
    shown = socket.gethostname() if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    query = f"?token={quote(token)}" if token else ""
    return f"http://{shown}:{port}{base_url}{path}{query}"


def exposure_note(token: str | None) -> str:
    """What the launcher says about a server on an address other than this machine's.

    Parameters
    ----------
    token : str or None
        The token the pages require, if any.

    Returns
    -------
    str
        One line.
    """
    if token:
        return "Anyone who can reach this address and has the token opens the pages."
    return "No access control (--no-auth): anyone who can reach this address opens the pages."
