"""Access control and the URL prefix of the dashboard server, without a browser (the served
pages: ``tests/browser/test_shared_server.py``)."""

from __future__ import annotations

import pytest

from riskexplore.cli.dashboard.access import (
    TOKEN_VARIABLE,
    access_token,
    base_url_path,
    display_url,
    is_local,
)
from riskexplore.cli.dashboard.command import main
from riskexplore.cli.dashboard.server import voila_command


@pytest.fixture(autouse=True)
def no_token_variable(monkeypatch):
    monkeypatch.delenv(TOKEN_VARIABLE, raising=False)


def test_this_machine_needs_no_token_and_other_addresses_get_one():
    assert is_local("127.0.0.1") and is_local("localhost") and is_local("::1")
    assert not is_local("0.0.0.0") and not is_local("10.1.2.3")
    assert access_token("127.0.0.1", None, False) is None
    made = access_token("0.0.0.0", None, False)
    assert made and len(made) >= 24 and made != access_token("0.0.0.0", None, False)
    assert access_token("0.0.0.0", " s3cret ", False) == "s3cret"
    assert access_token("127.0.0.1", "s3cret", False) == "s3cret"  # asked for: required


def test_no_auth_is_explicit_and_excludes_a_token(monkeypatch):
    assert access_token("0.0.0.0", None, True) is None
    with pytest.raises(ValueError, match="exclude each other"):
        access_token("0.0.0.0", "s3cret", True)
    with pytest.raises(ValueError, match="token is empty"):
        access_token("0.0.0.0", "  ", False)
    monkeypatch.setenv(TOKEN_VARIABLE, "from-env")
    assert access_token("0.0.0.0", None, False) == "from-env"


def test_base_url_and_display_url():
    assert base_url_path("/") == "/" and base_url_path("") == "/"
    assert base_url_path("clinic") == "/clinic/" == base_url_path("/clinic/")
    assert base_url_path("/a//b") == "/a/b/"
    with pytest.raises(ValueError):
        base_url_path("/a/../b")
    url = display_url("127.0.0.1", 8866, "/clinic/", "voila/render/x.ipynb", "t k")
    assert url == "http://127.0.0.1:8866/clinic/voila/render/x.ipynb?token=t%20k"
    assert not display_url("0.0.0.0", 1, "/").startswith("http://0.0.0.0")


def test_voila_gets_the_token_and_the_prefix():
    cmd, url = voila_command("risk", 8127, token="s3cret", base_url="/clinic/")
    assert "--Voila.token=s3cret" in cmd and "--Voila.base_url=/clinic/" in cmd
    assert url == "http://127.0.0.1:8127/clinic/"
    cmd, _ = voila_command("risk", 8127)
    assert not any(a.startswith("--Voila.token") for a in cmd)


def test_the_launcher_refuses_contradictory_access(capsys):
    assert main(["risk", "--ip", "0.0.0.0", "--no-auth", "--token", "x", "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "exclude each other" in err
