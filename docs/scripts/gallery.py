"""The gallery's pictures: taken by the browser tests, kept with the page code they show.

Usage::

    python docs/scripts/gallery.py           # take every picture again (about 4 minutes)
    python docs/scripts/gallery.py --copy    # copy them from artifacts/ after a green run
    python docs/scripts/gallery.py --check   # name the pictures older than their page code

Every picture of ``docs/_static/gallery/`` is a screenshot that a browser test takes
(``tests/_browser.py``: ``screenshot``); nothing else makes them, and they are never edited
by hand. ``docs/_static/gallery/sources.json`` says, for each picture, the ``test`` that
takes it, the page code it ``shows``, and, written here, the content hash of each file of
that code when the screenshot was taken (``made_from``). ``tests/test_gallery.py`` fails,
naming the picture and the file, when the page code changed after its picture was taken.

The page code of a picture is what its ``shows`` names: a file; a notebook, of which only
the code cells count (its text is not in a picture); or one function or method of a
module, ``path::Class.method`` (a model's ``to_html`` without the rest of its module).
A module of ``PAGE_CODE`` (the widgets, the figures, how numbers are written) adds the
modules of ``PAGE_CODE`` it imports, recursively, and the ``.js`` file of its own name
beside it (a package's ``__init__`` only re-exports and is not followed). Content hashes,
never file times: a clean clone has the times of its checkout.

Without options, the script runs the tests named in ``sources.json`` (with this Python,
from the repository root); each gallery screenshot of a test that passes is recorded in
``artifacts/gallery.json`` with its page code's hashes at that moment (``conftest.py`` of
the browser tests), and the pictures are copied here. A test that fails copies nothing.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
GALLERY = ROOT / "docs" / "_static" / "gallery"
SOURCES = "sources.json"
RECORD = "gallery.json"  # in artifacts/: what the passing tests took
COMMAND = "python docs/scripts/gallery.py"
#: The code that draws a page: imports of a module here are followed.
PAGE_CODE = ("riskexplore/widgets/", "riskexplore/figures/", "riskexplore/core/plain_numbers.py")


def read_sources(gallery: Path = GALLERY) -> dict:
    """``sources.json``: ``{picture: {"test", "shows", "made_from"}}``."""
    return json.loads((gallery / SOURCES).read_text(encoding="utf-8"))


def _entry_text(root: Path, entry: str) -> str:
    """The text of one ``shows`` entry (or of one file it leads to)."""
    path, _, name = entry.partition("::")
    text = (root / path).read_text(encoding="utf-8").replace("\r\n", "\n")
    if path.endswith(".ipynb"):
        cells = json.loads(text)["cells"]
        code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
        return "\n# --- cell ---\n".join(code)
    if name:
        return _definition(text, name, entry)
    return text


@lru_cache(maxsize=64)
def _parse(text: str) -> ast.Module:
    """A module's syntax tree (by its text: an edited file is parsed again)."""
    return ast.parse(text)


def _definition(text: str, qualname: str, entry: str) -> str:
    """The source of the function, method or class ``qualname`` of a module."""
    body = _parse(text).body
    node = None
    for part in qualname.split("."):
        defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        node = next((n for n in body if isinstance(n, defs) and n.name == part), None)
        if node is None:
            raise LookupError(f"{SOURCES}: {entry} names nothing in its module")
        body = node.body
    return ast.get_source_segment(text, node) or ""


def _module_file(root: Path, dotted: str) -> str | None:
    """The file of a module (``a/b.py``), or None (a package, a name, or not ours)."""
    path = (root / Path(*dotted.split("."))).with_suffix(".py")
    return path.relative_to(root).as_posix() if path.is_file() else None


def _imports(root: Path, path: str) -> set[str]:
    """The module files a module imports (at its top or in a function)."""
    package = path.rsplit("/", 1)[0].replace("/", ".")
    found = set()
    for node in ast.walk(_parse((root / path).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package upwards
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(f for f in (_module_file(root, n) for n in names) if f)
    return found


def _is_page_code(path: str) -> bool:
    return any(path == p or (p.endswith("/") and path.startswith(p)) for p in PAGE_CODE)


def page_code(shows: list[str], root: Path = ROOT) -> list[str]:
    """Every entry and file a picture's page code is made of (sorted); see the module."""
    found: set[str] = set()
    todo = list(shows)
    while todo:
        entry = todo.pop()
        if entry in found:
            continue
        found.add(entry)
        if "::" in entry or not entry.endswith(".py") or not _is_page_code(entry):
            continue
        todo += [f for f in _imports(root, entry) if _is_page_code(f)]
        script = (root / entry).with_suffix(".js")
        if script.is_file():
            todo.append(script.relative_to(root).as_posix())
    return sorted(found)


def fingerprint(shows: list[str], root: Path = ROOT) -> dict[str, str]:
    """``{entry: content hash}`` of a picture's page code, as it is now."""
    return {
        entry: hashlib.sha256(_entry_text(root, entry).encode("utf-8")).hexdigest()[:12]
        for entry in page_code(shows, root)
    }


def stale(sources: dict, root: Path = ROOT) -> dict[str, list[str]]:
    """``{picture: [entries changed, added or gone]}`` of the pictures older than their
    page code (``[]``: never taken by a test); ``{}`` when every picture is up to date."""
    out = {}
    for name, spec in sources.items():
        now, then = fingerprint(spec["shows"], root), spec.get("made_from") or {}
        changed = sorted(e for e in now.keys() | then.keys() if now.get(e) != then.get(e))
        if not then or changed:
            out[name] = changed if then else []
    return out


def stale_message(found: dict[str, list[str]]) -> str:
    """What to say about stale pictures, and how to take them again."""
    lines = [f"{len(found)} gallery picture(s) older than the page code they show:"]
    lines += [
        f"  {name}: {', '.join(entries)} changed" if entries else f"  {name}: never taken"
        for name, entries in found.items()
    ]
    lines.append(f"Take them again from the browser tests: {COMMAND} (about 4 minutes)")
    return "\n".join(lines)


def record(path: Path) -> dict[str, str] | None:
    """The page code's hashes now if ``path`` (a screenshot) is a gallery picture."""
    spec = read_sources().get(Path(path).name)
    return None if spec is None else fingerprint(spec["shows"])


def keep(artifacts: Path, taken: dict[str, dict[str, str] | None]) -> None:
    """Update ``artifacts/gallery.json`` after a test: ``{picture: hashes}`` to keep, or
    ``{picture: None}`` to forget (its test failed)."""
    path = artifacts / RECORD
    kept = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    for name, hashes in taken.items():
        if hashes is None:
            kept.pop(name, None)
        else:
            kept[name] = hashes
    path.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def copy(artifacts: Path = ARTIFACTS, gallery: Path = GALLERY) -> list[str]:
    """Copy the pictures the passing tests took into the gallery, with their hashes.

    Raises
    ------
    FileNotFoundError
        A picture was not taken by a passing test, or the page code changed since.
    """
    sources = read_sources(gallery)
    path = artifacts / RECORD
    taken = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    missing = [n for n in sources if n not in taken or not (artifacts / n).is_file()]
    if missing:
        raise FileNotFoundError(
            f"not taken by a passing test in {artifacts}: {', '.join(missing)}; run {COMMAND}"
        )
    moved = [n for n, s in sources.items() if fingerprint(s["shows"]) != taken[n]]
    if moved:
        raise FileNotFoundError(
            f"the page code changed after these were taken: {', '.join(moved)}; run {COMMAND}"
        )
    for picture in gallery.glob("*.png"):
        if picture.name not in sources:
            picture.unlink()
    for name, spec in sources.items():
        shutil.copyfile(artifacts / name, gallery / name)
        spec["made_from"] = taken[name]
    text = json.dumps(sources, indent=1, ensure_ascii=False) + "\n"
    (gallery / SOURCES).write_text(text, encoding="utf-8")
    return list(sources)


def take() -> int:
    """Run the tests that take the gallery's pictures; returns pytest's exit code."""
    tests = list(dict.fromkeys(spec["test"] for spec in read_sources().values()))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests]
    print(" ".join(command[1:]), flush=True)
    return subprocess.call(command, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--copy", action="store_true", help="copy from artifacts/ only")
    mode.add_argument("--check", action="store_true", help="name the stale pictures")
    args = parser.parse_args(argv)
    if args.check:
        found = stale(read_sources())
        print(stale_message(found) if found else "every gallery picture is up to date")
        return 1 if found else 0
    if not args.copy and take() != 0:
        print("error: a browser test failed; the gallery is unchanged", file=sys.stderr)
        return 1
    try:
        names = copy()
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for name in names:
        print(f"{(GALLERY / name).relative_to(ROOT)}: {(GALLERY / name).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
