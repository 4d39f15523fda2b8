"""The package in layers: every module sits in one room of :data:`LAYERS`, imports only from its own
room or the rooms below it, and no import cycle exists, lazy imports (inside functions) included.

The imports are read with :mod:`ast` from the sources, not by importing: an ``import`` or ``from
... import`` anywhere in a module counts (module level, inside a function, a ``try``), except in an
``if TYPE_CHECKING:`` block, which never runs.  ``from package import name`` is an import of the
module ``package.name`` when that is a module, else of ``package`` (the root package's lazy names,
``korean_bpe._LAZY``, resolve to the modules that define them).  The compiled modules (``.pyx``)
are placed but not read: ``ast`` reads Python (``trainer/_merge.pyx`` imports ``_gc``, ``_tasks``
and ``trainer/fast.py``'s ``merge_engine``, its pure-Python twin, when counts overflow int64).

``docs/API.md`` (section "Layers") states the same rooms in the same order; a test checks it.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache, partial
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "korean_bpe"

#: The rooms, from the bottom.  A name ending in ``.*`` is a package with every module in it; the
#: most specific entry places a module.  The one place the order is written (docs/API.md repeats it).
LAYERS: list[tuple[str, list[str]]] = [
    ("Hangul arithmetic, registries and the base", [
        "korean_bpe", "korean_bpe._optional", "korean_bpe._gc", "korean_bpe._threads", "korean_bpe._tasks",
        "korean_bpe._batches",
        "korean_bpe._messages",
        "korean_bpe.registry", "korean_bpe.jamo", "korean_bpe._jamo", "korean_bpe.files", "korean_bpe.tokens",
        "korean_bpe.noise",
    ]),
    ("units and markers", ["korean_bpe.markers", "korean_bpe.units", "korean_bpe.progress"]),
    ("encoding", ["korean_bpe.encoding.*"]),
    ("pre-tokenizers", ["korean_bpe.pre_tokenizers.*"]),
    ("counting and corpora", [
        "korean_bpe.corpus", "korean_bpe.words", "korean_bpe._counting", "korean_bpe.counting",
        "korean_bpe.distributed",
    ]),
    ("training", ["korean_bpe.trainer.*"]),
    ("model files", ["korean_bpe.io.*"]),
    ("the Tokenizer", ["korean_bpe.tokenizer"]),
    ("comparison", ["korean_bpe.compare.*"]),
    ("transformers / HF", ["korean_bpe.hf"]),
    ("command line", ["korean_bpe.cli.*", "korean_bpe.__main__"]),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of the package, by dotted name (``.py`` and the compiled ``.pyx``)."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) + sorted(PACKAGE.rglob("*.pyx"))}


def room_of(name: str) -> int | None:
    best: tuple[int, int] | None = None  # (specificity, room)
    for room, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            if entry == name:
                return room
            if entry.endswith(".*") and (name == entry[:-2] or name.startswith(entry[:-1])):
                if best is None or len(entry) > best[0]:
                    best = (len(entry), room)
    return None if best is None else best[1]


class _Imports(ast.NodeVisitor):
    """``(imported module, line)`` for every import of the package in one module's tree."""

    def __init__(self, name: str, is_package: bool, known: set[str], lazy_names: dict[str, str],
                 type_only: bool = False) -> None:
        self.type_only = type_only  # also the imports of ``if TYPE_CHECKING:`` blocks
        self.name = name
        self.package = name if is_package else name.rpartition(".")[0]
        self.known = known
        self.lazy_names = lazy_names
        self.found: list[tuple[str, int]] = []

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        if not self.type_only and ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        )):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def _add(self, target: str, line: int) -> None:
        if target == "korean_bpe" or target.startswith("korean_bpe."):
            self.found.append((target, line))
            # importing a.b.c runs the packages a.b first: an import of theirs too, unless this
            # module sits inside that package (then it has run already)
            parts = target.split(".")
            for k in range(2, len(parts)):
                package = ".".join(parts[:k])
                if package in self.known and not self.name.startswith(package + "."):
                    self.found.append((package, line))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        for alias in node.names:
            submodule = f"{source}.{alias.name}"
            if submodule in self.known:
                self._add(submodule, node.lineno)
            elif source == "korean_bpe" and alias.name in self.lazy_names:
                self._add(self.lazy_names[alias.name], node.lineno)
            else:
                self._add(source, node.lineno)


@lru_cache(maxsize=None)
def parse(text: str) -> ast.Module:
    """``ast.parse(text)``, once per text: every check reads the whole package, some several times
    (the trees are only read, never changed)."""
    return ast.parse(text)


def _lazy_names() -> dict[str, str]:
    """The root package's lazy attributes (``korean_bpe._LAZY``), read from its source."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and "_LAZY" in ast.unparse(node).split("=")[0]:
            value = ast.literal_eval(node.value)  # type: ignore[arg-type]
            return {name: f"korean_bpe.{module}" for name, (module, _) in value.items()}
    return {}


def import_graph(sources: dict[str, str] | None = None, *, type_only: bool = False) -> dict[str, list[tuple[str, int]]]:
    """``{module: [(imported module, line), ...]}`` over the package; ``sources`` replaces some
    modules' text (the tests below re-add a forbidden import that way); ``type_only``: the imports
    of ``if TYPE_CHECKING:`` blocks count too, but the root package's (they name its lazy attributes,
    :data:`korean_bpe._LAZY`, for type checkers: every module sits below it)."""
    found = modules()
    known = set(found)
    lazy = _lazy_names()
    graph: dict[str, list[tuple[str, int]]] = {}
    for name, path in found.items():
        if path.suffix != ".py":
            graph[name] = []
            continue
        text = (sources or {}).get(name) or path.read_text(encoding="utf-8")
        visitor = _Imports(name, path.name == "__init__.py", known, lazy, type_only and name != "korean_bpe")
        visitor.visit(parse(text))
        graph[name] = [(target, line) for target, line in visitor.found if target != name]
    return graph


def upward_imports(graph: dict[str, list[tuple[str, int]]]) -> list[str]:
    out = []
    for name, imports in graph.items():
        for target, line in imports:
            here, there = room_of(name), room_of(target)
            if here is not None and there is not None and there > here:
                out.append(f"{name}:{line} imports {target} ({LAYERS[there][0]!r}, above {LAYERS[here][0]!r})")
    return out


def cycles(graph: dict[str, list[tuple[str, int]]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    edges = {name: sorted({t for t, _ in imports if t in graph}) for name, imports in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def _with_import(module: str, statement: str, *, lazy: bool) -> dict[str, str]:
    """``module``'s source with ``statement`` added at the end (inside a function when ``lazy``)."""
    text = modules()[module].read_text(encoding="utf-8")
    if lazy:
        return {module: f"{text}\n\ndef _layer_test_probe():\n    {statement}\n"}
    return {module: f"{text}\n{statement}\n"}


# --- the rules -----------------------------------------------------------------------------------


def test_every_module_has_a_room():
    assert [name for name in modules() if room_of(name) is None] == []


def test_no_import_from_a_higher_room():
    assert upward_imports(import_graph()) == []


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_no_import_cycle_counting_type_only_imports():
    """An annotation's import is a dependency too: no cycle even through ``if TYPE_CHECKING:`` blocks."""
    assert cycles(import_graph(type_only=True)) == []
    module = "korean_bpe.compare.heldout"  # measure reads heldout: heldout naming measure's class closes a circle
    text = modules()[module].read_text(encoding="utf-8")
    guarded = f"{text}\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .measure import RowInput\n"
    assert cycles(import_graph({module: guarded})) == []
    assert cycles(import_graph({module: guarded}, type_only=True)) != []


def test_docs_state_the_same_order():
    text = (ROOT / "docs" / "API.md").read_text(encoding="utf-8")
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rooms = re.findall(r"^\d+\. \*\*(.+?)\*\*", section, flags=re.M)
    assert rooms == [name for name, _ in LAYERS]
    for name in modules():  # each module named in its room's line, by its file or its package
        line = re.search(rf"^{room_of(name) + 1}\. \*\*.*$", section, flags=re.M)  # type: ignore[operator]
        assert line is not None
        short = name.removeprefix("korean_bpe").lstrip(".").replace(".", "/") or "korean_bpe/__init__"
        spelled = [f"`{short}.py", f"`{short}.pyx", f"`{short}/`", f"`{short.split('/')[0]}/`"]
        assert any(s in line.group(0) for s in spelled), (name, spelled)


# --- the test catches what the package held before (issue 32) --------------------------------------

#: (module, import statement, lazy, what it breaks): the imports issue 32 removed
REMOVED = [
    ("korean_bpe.corpus", "from .counting import FORMAT", False, "cycle"),                # corpus <-> counting
    ("korean_bpe.encoding.fallback", "from ..io.format import BYTE_TOKENS", False, "upward"),  # model files
    ("korean_bpe.trainer.pipeline", "from ..io.format import BYTE_TOKENS, check_writable_token", False, "upward"),
    ("korean_bpe.counting", "from .io.files import atomic_write_text", True, "upward"),
    ("korean_bpe.counting", "from .trainer.fast import CountedWords, word_counter", True, "upward"),
    ("korean_bpe.compare.gold", "from ..pre_tokenizers._sejong import _prepare", True, "private"),
]
CHECKS = {
    "cycle": lambda graph, sources: cycles(graph),
    "upward": lambda graph, sources: upward_imports(graph),
    "private": lambda graph, sources: private_imports(sources),
}


@pytest.mark.parametrize("module, statement, lazy, kind", REMOVED, ids=[f"{m}:{s}" for m, s, _, _ in REMOVED])
def test_removed_imports_would_fail(module, statement, lazy, kind):
    sources = _with_import(module, statement, lazy=lazy)
    assert CHECKS[kind](import_graph(sources), sources) != []


def test_type_checking_imports_do_not_count():
    """An ``if TYPE_CHECKING:`` block never runs: an annotation may name a higher room's class."""
    module = "korean_bpe.encoding.fallback"
    text = modules()[module].read_text(encoding="utf-8")
    guarded = f"{text}\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from ..tokenizer import Tokenizer\n"
    assert upward_imports(import_graph({module: guarded})) == []
    assert upward_imports(import_graph(_with_import(module, "from ..tokenizer import Tokenizer", lazy=True))) != []


def private_imports(sources: dict[str, str] | None = None, *, across: str = "room") -> list[str]:
    """Private names (``_x``, not dunders, not modules) imported from a module of another room
    (``across="room"``: a room's API is its public names) or of any other module
    (``across="module"``; a package's own ``__init__`` counts as another module)."""
    known = set(modules())
    out = []
    for name, path in modules().items():
        if path.suffix != ".py":
            continue
        tree = parse((sources or {}).get(name) or path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = _resolve(name, path, node)
            if target is None or target == name or (across == "room" and room_of(target) in (None, room_of(name))):
                continue
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and f"{target}.{alias.name}" not in known:
                    out.append(f"{name}:{node.lineno} imports {target}.{alias.name}")
    return out


def _resolve(name: str, path: Path, node: ast.ImportFrom) -> str | None:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    if node.level:
        base = package.split(".")
        base = base[: len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))
    return node.module if node.module and node.module.startswith("korean_bpe") else None


def test_no_private_name_from_another_room():
    assert private_imports() == []


# --- rooms talk through public names (issue 38) -------------------------------------------------------

#: the packages whose modules neither import another module's private names nor read another
#: object's private attributes; the rest of the package imports at most :data:`MOST_PRIVATE_IMPORTS`
CLIENTS = ("korean_bpe.compare", "korean_bpe.cli")
MOST_PRIVATE_IMPORTS = 10


def private_attribute_reads(sources: dict[str, str] | None = None) -> list[str]:
    """Reads of ``x._name`` in the modules of :data:`CLIENTS` where ``x`` is not ``self`` or ``cls``
    and ``_name`` is not defined in the reading module (a function, class or attribute it assigns):
    reaching into an object of another module's class."""
    out = []
    for name, path in modules().items():
        if path.suffix != ".py" or not name.startswith(CLIENTS):
            continue
        tree = parse((sources or {}).get(name) or path.read_text(encoding="utf-8"))
        own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        own |= {t.attr for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
                if isinstance(t, ast.Attribute)}
        own |= {n.target.attr for n in ast.walk(tree) if isinstance(n, (ast.AnnAssign, ast.AugAssign))
                and isinstance(n.target, ast.Attribute)}
        own |= {n.target.id for n in ast.walk(tree) if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and isinstance(node.value, ast.Name) and node.value.id not in ("self", "cls")
                    and node.attr not in own):
                out.append(f"{name}:{node.lineno} reads {node.value.id}.{node.attr}")
    return out


def test_clients_import_no_private_name_and_the_package_few():
    found = private_imports(across="module")
    assert [f for f in found if f.startswith(CLIENTS)] == []
    assert len(found) <= MOST_PRIVATE_IMPORTS, found


def test_clients_read_no_private_attribute():
    assert private_attribute_reads() == []


@pytest.mark.parametrize("module, line, check", [
    # what compare/ held before issue 38: a private import from another module of its own room ...
    ("korean_bpe.compare.run", "from .strategies import _peer_names", partial(private_imports, across="module")),
    # ... and reads of other objects' privates (a Tokenizer's marker and encoder, a segmenter's cache)
    ("korean_bpe.compare.segmenters", "def _probe(tok):\n    return tok._encoder", private_attribute_reads),
    ("korean_bpe.cli.compare", "def _probe(seg):\n    return seg._specials", private_attribute_reads),
])
def test_the_checks_catch_what_compare_held_before(module, line, check):
    text = modules()[module].read_text(encoding="utf-8")
    assert check() == [] or check is not private_attribute_reads
    assert len(check({module: f"{text}\n{line}\n"})) == len(check()) + 1
