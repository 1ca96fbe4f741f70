"""API reference pages, generated at every build from the code: no hand-kept lists.

The public modules are the modules of ``riskexplore`` with no ``_``-prefixed part in their
name; a module's public names are its ``__all__``. Each public name gets one page,
``api/<documented name>.rst``, written where it is defined: a class or function at its
defining module (when that module is public), anything else (constants, names from private
modules) at the first public module that exports it and defines it. Each module gets a page
listing every name of its ``__all__`` with a link to that name's page, so a name exported by
several modules (``riskexplore.RiskScore`` and ``riskexplore.risk_score.model.RiskScore``)
is documented once and linked from each.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass, field
from pathlib import Path

from sphinx.application import Sphinx

PACKAGE = "riskexplore"


@dataclass
class Entry:
    """One documented object: its documented name, kind and the modules exporting it."""

    target: str  # the dotted name its page documents
    kind: str  # autodoc directive: autoclass, autofunction, autodata, automodule
    exported_by: list[str] = field(default_factory=list)


def public_modules(package: str = PACKAGE) -> list[str]:
    """Every module of ``package`` without a ``_``-prefixed part, package first, sorted."""
    root = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            names.append(info.name)
    return sorted(names)


def exported(module_name: str) -> list[str]:
    """The module's public names: its ``__all__``, or, when it has none, the classes and
    functions it defines whose names do not start with ``_``."""
    module = importlib.import_module(module_name)
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(obj) or inspect.isfunction(obj))
        and obj.__module__ == module_name
    ]


def _defines(module_name: str, name: str) -> bool:
    """Whether the module's source assigns or defines ``name`` at top level."""
    try:
        source = inspect.getsource(importlib.import_module(module_name))
    except (OSError, TypeError):
        return False
    pattern = rf"^(?:{re.escape(name)}\s*(?::[^=\n]*)?=|(?:async\s+)?def {name}\b|class {name}\b)"
    return re.search(pattern, source, re.M) is not None


def _kind(obj: object) -> str:
    if inspect.isclass(obj):
        return "autoclass"
    if inspect.isroutine(obj):
        return "autofunction"
    if inspect.ismodule(obj):
        return "automodule"
    return "autodata"


def collect(package: str = PACKAGE) -> tuple[dict[str, list[str]], dict[str, Entry]]:
    """Modules -> their public names, and documented name -> :class:`Entry`.

    Returns
    -------
    tuple
        ``(modules, entries)``: ``modules[m]`` is ``__all__`` of module ``m``;
        ``entries`` maps each page's documented name to its entry, and every
        ``(module, name)`` of ``modules`` is in exactly one entry's ``exported_by``
        (as ``"module.name"``).
    """
    modules = {m: exported(m) for m in public_modules(package)}
    public = set(modules)
    by_object: dict[int, Entry] = {}
    entries: dict[str, Entry] = {}
    # defining modules first, so that a re-export finds the entry of the definition
    order = sorted(
        ((m, n) for m, names in modules.items() for n in names),
        key=lambda mn: (not _defines(*mn), mn[0].count("."), mn),
    )
    for module_name, name in order:
        obj = getattr(importlib.import_module(module_name), name)
        key = id(obj)
        home = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", None)
        is_shared = inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj)
        if inspect.ismodule(obj):
            target = obj.__name__
        elif is_shared and home in public and qualname and "<" not in qualname:
            target = f"{home}.{qualname}"
        else:
            target = f"{module_name}.{name}"
        entry = by_object.get(key) if is_shared else None
        entry = entry or entries.get(target)
        if entry is None:
            entry = Entry(target, _kind(obj))
            entries[target] = entry
            if is_shared:
                by_object[key] = entry
        entry.exported_by.append(f"{module_name}.{name}")
    return modules, entries


def _title(text: str) -> str:
    return f"{text}\n{'=' * len(text)}\n"


def _entry_page(entry: Entry) -> str:
    module, _, name = entry.target.rpartition(".")
    lines = [_title(entry.target.rpartition(".")[2]), ""]
    if entry.kind == "automodule":
        lines += [f"See :doc:`{entry.target}`.", ""]
        return "\n".join(lines)
    lines += [f".. currentmodule:: {module}", "", f".. {entry.kind}:: {name}"]
    if entry.kind == "autoclass":
        lines += ["   :members:"]
        foreign = _foreign_bases(entry.target)
        if foreign:  # members of our own bases are shown; those of other libraries' are not
            lines += [f"   :inherited-members: {', '.join(foreign)}"]
    others = sorted(set(entry.exported_by) - {entry.target})
    if others:
        lines += ["", "Also exported as " + ", ".join(f"``{o}``" for o in others) + "."]
    return "\n".join(lines) + "\n"


def _foreign_bases(target: str) -> list[str]:
    """Names of the class's bases from other libraries, when it also has bases of ours."""
    module, _, name = target.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    mro = cls.__mro__[1:]
    if not any(base.__module__.startswith(PACKAGE) for base in mro):
        return []
    return sorted({base.__name__ for base in mro if not base.__module__.startswith(PACKAGE)})


def _module_page(module: str, names: list[str], pages: dict[str, str]) -> str:
    lines = [_title(module), "", f".. automodule:: {module}", "   :no-members:", ""]
    if names:
        lines += [".. list-table::", "   :widths: 30 70", ""]
        for name in names:
            page = pages[f"{module}.{name}"]
            lines += [f"   * - :doc:`{name} <{page}>`", f"     - {_summary(module, name)}"]
        lines += [""]
    return "\n".join(lines)


def _summary(module: str, name: str) -> str:
    """The first sentence of the object's docstring, as plain text (for the list)."""
    obj = getattr(importlib.import_module(module), name)
    if inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj):
        doc = inspect.getdoc(obj) or ""
    else:
        doc = ""
    first = doc.strip().split("\n\n", 1)[0].replace("\n", " ")
    first = re.sub(r":\w+:`~?([^`<]*?)(?: <[^>]*>)?`", r"``\1``", first)
    parts = re.split(r"(``.*?``)", first)  # literals keep their text as it is
    text = "".join(
        part if part.startswith("``") else part.replace("*", r"\*").replace("|", r"\|")
        for part in parts
    )
    return text or "—"


def write_pages(out: Path, package: str = PACKAGE) -> list[str]:
    """Write ``out/<name>.rst`` for each module and documented object; returns the module
    pages. Files left from an earlier build that no longer match a name are removed."""
    modules, entries = collect(package)
    out.mkdir(parents=True, exist_ok=True)
    pages = {
        exported_as: entry.target for entry in entries.values() for exported_as in entry.exported_by
    }
    texts = {f"{target}.rst": _entry_page(entry) for target, entry in entries.items()}
    for module, names in modules.items():
        texts[f"{module}.rst"] = _module_page(module, names, pages)
    texts["index.rst"] = _index(modules)
    for stale in set(p.name for p in out.glob("*.rst")) - set(texts):
        (out / stale).unlink()
    for name, text in texts.items():
        path = out / name
        if not path.exists() or path.read_text() != text:  # unchanged pages are not rebuilt
            path.write_text(text)
    return sorted(modules)


def _index(modules: dict[str, list[str]]) -> str:
    lines = [
        _title("API reference"),
        "",
        "Generated from the docstrings of every public name: a module's public names are "
        "its ``__all__``. The names most used are exported by the package itself "
        "(``from riskexplore import fit_risk_score``); see :doc:`riskexplore`.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
    ]
    lines += [f"   {m}" for m in modules]
    lines += ["", ".. toctree::", "   :hidden:", "   :glob:", "", "   *", ""]
    return "\n".join(lines)


def _generate(app: Sphinx) -> None:
    _, entries = collect()
    app.env.riskexplore_aliases = {  # type: ignore[attr-defined]
        alias: entry.target
        for entry in entries.values()
        for alias in entry.exported_by
        if alias != entry.target
    }
    write_pages(Path(app.srcdir) / "api")


def _skip_foreign(app, what, name, obj, skip, options):  # noqa: ANN001
    """Leave out members that other libraries add to our classes (scikit-learn's
    ``set_fit_request`` and the like): their docstrings are theirs."""
    module = getattr(obj, "__module__", None) or ""
    if module and not module.startswith(PACKAGE):
        return True
    return None


def _resolve_alias(app, env, node, contnode):  # noqa: ANN001
    """Resolve a reference to a re-exported name (``riskexplore.RiskScore``) to its page,
    and ``Class.member`` where ``member`` is documented on a base class."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    aliases = getattr(env, "riskexplore_aliases", {})
    candidates = []
    head, _, member = target.rpartition(".")
    if target in aliases:
        candidates.append(aliases[target])
    elif head in aliases:
        candidates.append(f"{aliases[head]}.{member}")
    candidates += _base_members(head or target, member)
    if _is_field(head, member):  # a dataclass field or attribute: documented on its class
        candidates.append(head)
    domain = env.get_domain("py")
    for candidate in candidates:
        new = node.deepcopy()
        new["reftarget"] = candidate
        reftype = "class" if candidate == head else node["reftype"]
        found = domain.resolve_xref(
            env, node["refdoc"], app.builder, reftype, candidate, new, contnode
        )
        if found is not None:
            return found
    return None


def _is_field(owner: str, member: str) -> bool:
    """Whether ``member`` is a data attribute (a dataclass field, say) of class ``owner``."""
    module, _, name = owner.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        return False
    if not inspect.isclass(cls) or not member:
        return False
    fields = getattr(cls, "__dataclass_fields__", {})
    annotations = {k for c in cls.__mro__ for k in getattr(c, "__annotations__", {})}
    return member in fields or member in annotations


def _base_members(owner: str, member: str) -> list[str]:
    """``Base.member`` for each of ``owner``'s base classes that defines ``member``."""
    module, _, name = owner.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        return []
    if not inspect.isclass(cls) or not member:
        return []
    return [
        f"{base.__module__}.{base.__qualname__}.{member}"
        for base in cls.__mro__[1:]
        if member in vars(base) and base.__module__.startswith(PACKAGE)
    ]


def _data_docstring(app, what, name, obj, options, lines):  # noqa: ANN001
    """A constant that is an instance of one of our classes is described by its own
    ``#:`` comment, not by its class's docstring (which documents the class)."""
    if what in ("data", "attribute") and not inspect.isclass(obj) and not inspect.isroutine(obj):
        class_doc = inspect.getdoc(type(obj)) or ""
        if class_doc and "\n".join(lines).strip() == class_doc.strip():
            cls = type(obj)
            lines[:] = [f"An instance of :class:`{cls.__module__}.{cls.__qualname__}`."]


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", _generate)
    app.connect("autodoc-process-docstring", _data_docstring, priority=100)  # before numpydoc
    app.connect("autodoc-skip-member", _skip_foreign)
    app.connect("missing-reference", _resolve_alias)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
