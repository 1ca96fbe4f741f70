"""The login page of a dashboard server served under a URL prefix.

Voila registers the login page of its identity provider at ``/login`` whatever the server's
prefix (``--base-url``), while it sends a visitor without the token to ``PREFIX/login``:
under a prefix, that visitor went round in redirects instead of seeing the page that asks
for the token. :class:`PrefixedIdentityProvider` registers the login (and logout) pages
under the prefix. The server's command line names it with
``--Voila.identity_provider_class=riskexplore.cli.dashboard.login.PrefixedIdentityProvider``
(see :func:`riskexplore.cli.dashboard.server.voila_command`).
"""

from __future__ import annotations

from jupyter_server.auth.identity import PasswordIdentityProvider
from jupyter_server.utils import url_path_join

__all__ = ["PrefixedIdentityProvider"]


class PrefixedIdentityProvider(PasswordIdentityProvider):
    """Jupyter's token and password identity provider, its pages under the server's prefix."""

    def get_handlers(self) -> list[tuple[str, object]]:
        """The login and logout pages, under the prefix of the server (its ``server_url``).

        Returns
        -------
        list of tuple
            ``(path pattern, handler class)``.
        """
        prefix = getattr(self.parent, "server_url", None) or "/"
        return [(url_path_join(prefix, path), handler) for path, handler in super().get_handlers()]
