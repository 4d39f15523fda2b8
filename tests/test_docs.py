"""The docs follow the code: the examples of docs/API.md and README.md run, and the modules the docs
name exist.

Every ```python block of docs/API.md and README.md is a doctest; a file's blocks run in order in
one namespace (a later block uses what an earlier one made), in a fresh working directory with a
fresh analysis cache, so a changed output, a renamed option or a moved module fails here.  The
analyzers run for real (Okt starts the JVM).
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "API.md"
README = ROOT / "README.md"

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
_PATH = re.compile(r"korean_bpe/[\w/]*\w(?:\.pyx?|/)?")


def code_blocks(text: str, language: str) -> list[tuple[int, str]]:
    """``(line of the block's first line, 0-based; source)`` of each fenced block in ``language``.

    >>> code_blocks("a\\n```python\\n>>> 1\\n1\\n```\\n```sh\\nls\\n```\\n", "python")
    [(2, '>>> 1\\n1\\n')]
    """
    return [(text.count("\n", 0, m.start(2)), m.group(2)) for m in _FENCE.finditer(text) if m.group(1) == language]


def named_paths(text: str) -> set[str]:
    """The ``korean_bpe/...`` paths a text names (modules, ``.pyx`` files, packages).

    >>> sorted(named_paths("`korean_bpe/io/` and `korean_bpe/trainer/fast.py`, korean_bpe/jamo.py."))
    ['korean_bpe/io/', 'korean_bpe/jamo.py', 'korean_bpe/trainer/fast.py']
    """
    return set(_PATH.findall(text))


def run_examples(doc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, at_least: int) -> None:
    """Run every ```python block of ``doc`` as a doctest, in order, in one namespace, in ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path / "cache"))
    name = doc.relative_to(ROOT).as_posix()
    blocks = code_blocks(doc.read_text(encoding="utf-8"), "python")
    assert len(blocks) >= at_least, f"{name} lost its examples"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    globs: dict[str, object] = {"__name__": name}
    for lineno, source in blocks:
        test = parser.get_doctest(source, globs, f"{name}:{lineno + 1}", str(doc), lineno)
        assert test.examples, f"{name}:{lineno}: a python block without >>> examples (use ```text)"
        runner.run(test, out=report.append, clear_globs=False)
        globs = test.globs
    assert runner.summarize(verbose=False).failed == 0, f"{name} drifted from the code:\n" + "".join(report)


def test_api_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_examples(API, tmp_path, monkeypatch, at_least=10)


def test_readme_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_examples(README, tmp_path, monkeypatch, at_least=5)


def test_paths_named_in_docs_exist() -> None:
    for doc in (API, README):
        missing = sorted(p for p in named_paths(doc.read_text(encoding="utf-8")) if not (ROOT / p).exists())
        assert not missing, f"{doc.name} names paths that do not exist: {missing}"


def _stage_modules() -> list[str]:
    """Each public module and package right under korean_bpe/ (the stages and their helpers)."""
    pkg = ROOT / "korean_bpe"
    out = [f"korean_bpe/{p.name}" for p in pkg.glob("*.py") if not p.name.startswith("_")]
    out += [f"korean_bpe/{p.name}/" for p in pkg.iterdir() if (p / "__init__.py").is_file()]
    return sorted(out)


def test_every_module_is_in_the_api_page_and_the_readme_layout() -> None:
    api = named_paths(API.read_text(encoding="utf-8"))
    readme = README.read_text(encoding="utf-8")
    layout = named_paths(readme[readme.index("## Layout"):])
    modules = _stage_modules()
    assert "korean_bpe/tokenizer.py" in modules and "korean_bpe/trainer/" in modules
    missing = [m for m in modules if m not in api]
    assert not missing, f"docs/API.md does not name {missing}: say which stage each belongs to"
    missing = [m for m in modules if m not in layout]
    assert not missing, f"README.md's Layout does not name {missing}"
    assert "docs/API.md" in readme


def test_api_tables_name_the_registered_stages() -> None:
    from korean_bpe.pre_tokenizers import PRE_TOKENIZERS
    from korean_bpe.units import UNITS

    text = API.read_text(encoding="utf-8")
    for name in PRE_TOKENIZERS.names() + UNITS.names():
        assert f"| `{name}` | `{{\"type\": \"{name}\"" in text, f"docs/API.md has no table row for {name!r}"


def test_every_pre_tokenizer_declaration_has_a_default_and_is_documented() -> None:
    """The declarations are typed on the protocol, with their defaults on BasePreTokenizer (read
    directly, one way); each is listed, with what reads it, in base.py's docstring and in
    docs/API.md's table."""
    from korean_bpe.pre_tokenizers import base

    declared = set(base.DECLARATIONS)
    assert declared - {"pos"} <= set(base.PreTokenizer.__annotations__), "a declaration is not on the protocol"
    assert all(hasattr(base.BasePreTokenizer, name) for name in declared), "a declaration has no default"
    missing_doc = sorted(name for name in declared if f"``{name}``" not in (base.__doc__ or ""))
    assert not missing_doc, f"korean_bpe/pre_tokenizers/base.py's docstring does not list {missing_doc}"
    text = API.read_text(encoding="utf-8")
    assert "| declaration | means | read by |" in text, "docs/API.md has no table of pre-tokenizer declarations"
    table = text[text.index("| declaration | means | read by |"):]
    rows = [row.split("|")[1] for row in table[:table.index("\n\n")].splitlines()[2:]]
    missing_api = sorted(name for name in declared if not any(f"`{name}" in row for row in rows))
    assert not missing_api, f"docs/API.md's table of pre-tokenizer declarations does not list {missing_api}"


# -- the README's `make test`: bytecode caches on, whatever the environment says --------------------

def test_make_runs_its_commands_with_bytecode_caches_on() -> None:
    """The suite starts some 400 Python processes: with PYTHONDONTWRITEBYTECODE=1 in the environment
    (some containers set it) each compiled the package again and each worker rewrote every test
    module; the Makefile's commands run without it."""
    import os
    import shutil
    import subprocess
    import sys

    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    probe = f'probe: ; @{sys.executable} -c "import sys; print(sys.dont_write_bytecode)"'
    proc = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(ROOT), "--eval", probe, "probe"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


# -- the README's `make demo` output and docs/demo_tradeoff.png are a fresh run's ------------------

DEMO_MARK = "<!-- make-demo-output: written by tests/test_docs.py (KOREAN_BPE_UPDATE_DOCS=1 rewrites it) -->"
DEMO_PNG = ROOT / "docs" / "demo_tradeoff.png"


def demo_block(stdout: str) -> str:
    """What the README shows of ``korean-bpe compare -o results``'s output: the verdict, the compact
    table and the summary line (the legend left out)."""
    lines = stdout.splitlines()
    end = next(k for k, line in enumerate(lines) if re.match(r"\d+ rows: ", line))
    return "\n".join(["$ make demo", ".venv/bin/korean-bpe compare -o results", *lines[:end + 1],
                      "(then the legend of the columns and marks)"])


def masked(block: str) -> str:
    """``block`` without what changes from run to run: the table's last column (kdoc/s, a speed) and
    the seconds of the run."""
    out, in_table = [], False
    for line in block.splitlines():
        if line.startswith("strategy "):
            in_table = True
        elif in_table and (not line.strip() or line.startswith(("≡", "("))):
            in_table = False
        elif in_table:
            line = re.sub(r"\s+\S+$", "", line)
        out.append(re.sub(r", \d+ s\.$", ", N s.", line))
    return "\n".join(out)


def readme_demo_block(text: str) -> str:
    start = text.index(DEMO_MARK)
    m = _FENCE.search(text, start)
    assert m is not None and text[start + len(DEMO_MARK):m.start()].strip() == "", "no fenced block after the mark"
    return m.group(2).rstrip("\n")


@pytest.mark.slow
def test_readme_demo_output_and_plot_are_a_fresh_run(tmp_path: Path) -> None:
    """`make demo` as a newcomer runs it (fresh caches): the README's pasted output is what it prints
    (the timing columns aside) and docs/demo_tradeoff.png is its tradeoff.png.  With
    KOREAN_BPE_UPDATE_DOCS=1 the README block and the PNG are rewritten from this run instead."""
    import os
    import shutil
    import subprocess
    import sys

    env = {**os.environ, "KOREAN_BPE_CACHE_DIR": str(tmp_path / "cache"), "RAYON_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-m", "korean_bpe.cli", "compare", "-o", str(tmp_path / "results"),
                           "--no-progress"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stderr
    fresh = demo_block(proc.stdout)
    text = README.read_text(encoding="utf-8")
    if os.environ.get("KOREAN_BPE_UPDATE_DOCS", "") not in ("", "0"):
        m = _FENCE.search(text, text.index(DEMO_MARK))
        README.write_text(text[:m.start(2)] + fresh + "\n" + text[m.end(2):], encoding="utf-8")
        shutil.copyfile(tmp_path / "results" / "tradeoff.png", DEMO_PNG)
        return
    assert masked(readme_demo_block(text)) == masked(fresh), "README's make demo output is stale: rerun with " \
        "KOREAN_BPE_UPDATE_DOCS=1 to rewrite it"
    from matplotlib.testing.compare import compare_images

    # a tolerance for hf-wordpiece's point, which moves a little from run to run (labels then move too);
    # another plot or other data is far above it
    assert compare_images(str(DEMO_PNG), str(tmp_path / "results" / "tradeoff.png"), tol=10) is None, \
        "docs/demo_tradeoff.png is stale: rerun with KOREAN_BPE_UPDATE_DOCS=1"


def test_demo_block_masks_timings_only() -> None:
    out = ("verdict (on 2,000 held-out documents):\nat 8,000 tokens, choose whitespace/syllable: ...\n\n"
           "strategy                 vocab tok/w  unk%  mF1%   rt%    down% [interval] probe% kdoc/s\n"
           "whitespace/syllable(ref)  8000  2.16  0.24  61.9  96.5  77.83 [75.9, 79.9]   80.0   92.2\n"
           "≡ raw/syllable at 8,000: the same ids as whitespace/syllable on every held-out document (shown once)\n\n"
           "11 rows: 8,000 training / 2,000 held-out documents (seed 0), 89 s.\ncolumns, measured on\n")
    block = demo_block(out)
    assert block.splitlines()[2] == "verdict (on 2,000 held-out documents):" and "columns, measured" not in block
    lines = masked(block).splitlines()
    assert lines[6].endswith("77.83 [75.9, 79.9]   80.0") and lines[7].startswith("≡ raw/syllable at 8,000")
    assert masked(block).endswith("(seed 0), N s.\n(then the legend of the columns and marks)")
