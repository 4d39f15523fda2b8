"""Every notebook in notebooks/ runs top to bottom (small-data switch on) and is stored executed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))

nbformat = pytest.importorskip("nbformat")


def _text(nb: object) -> str:
    """Everything the code cells printed or displayed as text."""
    parts = []
    for cell in nb.cells:  # type: ignore[attr-defined]
        if cell.cell_type != "code":
            continue
        for o in cell.outputs:
            parts.append(o.get("text", "") if o.output_type == "stream" else o.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def _same_ids(text: str, prefix: str) -> int:
    """The N of '<prefix> N/N held-out documents', checking both numbers agree (and N > 0)."""
    m = re.search(re.escape(prefix) + r" (\d+)/(\d+) held-out documents", text)
    assert m, f"no line {prefix!r} in the outputs"
    assert m.group(1) == m.group(2) and int(m.group(2)) > 0, m.group(0)
    return int(m.group(2))


def _check_computed(name: str, text: str) -> None:
    """What each notebook computed, read back from its outputs (stored or fresh)."""
    if name == "compare_strategies.ipynb":
        m = re.search(r"(\d+) rows \((\d+) strategies x (\d+) sizes\)", text)
        assert m and 0 < int(m.group(1)) <= int(m.group(2)) * int(m.group(3)) and int(m.group(2)) >= 10
        # tokens per document: a jamo baseline cuts every syllable in two or three, so it is 1.5-3x the
        # syllable baseline, which is longer than every BPE; the word baseline is the shortest
        m = re.search(r"baseline/jamo ([\d.]+) > baseline/syllable ([\d.]+) > morpheme-aware BPE ([\d.]+) > "
                      r"whitespace BPE ([\d.]+) > baseline/word ([\d.]+)", text)
        assert m, "no line of tokens per document"
        jamo, syllable, morph, ws, word = map(float, m.groups())
        assert 1.5 < jamo / syllable < 3 and syllable > max(morph, ws) and min(morph, ws) > word > 0
        m = re.search(r"baseline/jamo / baseline/syllable = ([\d.]+) tokens", text)
        assert m and abs(float(m.group(1)) - jamo / syllable) < 0.01
        assert re.search(r"morpheme-boundary F1 \(gold Kiwi\): morpheme-aware BPE 0\.\d{3}", text)
        # the 2026 rows: training-only morphology keeps more of Kiwi's boundaries than whitespace BPE
        # with no analyzer at encode time (faster than the row that runs Kiwi); STRR falls as the
        # analyzer does more: whitespace > training-only > analyzer at encode
        m = re.search(r"training-only kiwi: kiwi-train [\d.]+ tokens/어절, mF1 ([\d.]+), ([\d.]+) kdoc/s; at encode: "
                      r"kiwi [\d.]+, [\d.]+, ([\d.]+) kdoc/s; whitespace [\d.]+, ([\d.]+)", text)
        assert m, "no line of the training-only rows"
        train_f1, train_speed, kiwi_speed, ws_f1 = map(float, m.groups())
        assert train_f1 > ws_f1 and train_speed > kiwi_speed
        m = re.search(r"STRR \(syllable rows, mean\): whitespace ([\d.]+)%, training-only ([\d.]+)%, "
                      r"analyzer at encode ([\d.]+)%", text)
        assert m and float(m.group(1)) > float(m.group(2)) > float(m.group(3)), "no STRR line, or out of order"
    elif name == "tour.ipynb":
        assert "lossless round trip: True" in text
        m = re.search(r"lossless round trip on the sample: (\d+)/(\d+)", text)
        assert m and m.group(1) == m.group(2)
        m = re.search(r"dropped by analysis mode: ([\d.]+)% of the [\d,]+ non-space characters .*"
                      r"Foreign ([\d.]+)%, Josa ([\d.]+)%, Punctuation ([\d.]+)%", text)
        assert m, "no share of dropped characters"
        total, parts = float(m.group(1)), [float(m.group(k)) for k in (2, 3, 4)]
        assert abs(total - sum(parts)) < 0.2 and parts[1] > 0 and parts[2] > 0  # 조사 and punctuation dropped
        assert "compose(decompose(word)) == word: True" in text
        m = re.search(r"(\d+) tokenizers trained", text)
        assert m and int(m.group(1)) % 3 == 0 and int(m.group(1)) >= 9  # whitespace, raw, okt x 3 units at least
        # byte tokens read as their text, a byte that is part of a character as <0xEB> (issue 43: they were U+FFFD)
        assert "\ufffd" not in text and re.search(r"/byte +\d+ +\S", text)
    elif name == "to_transformers.ipynb":
        _same_ids(text, "transformers ids == korean_bpe ids on")
        _same_ids(text, "Okt + transformers ids == korean_bpe ids on")  # ... documents without a line break
        assert "Okt words:" in text
        # the padded batch: every mask is ones then zeros, one row at least padded, all the same length
        masks = re.findall(r"mask:\s+\[([01, ]+)\]", text)
        assert len(masks) >= 2 and len({len(m.split(",")) for m in masks}) == 1
        assert all(re.fullmatch(r"1(, 1)*(, 0)*", m) for m in masks) and any(m.endswith("0") for m in masks)
    else:  # pragma: no cover - a new notebook needs its checks here
        raise AssertionError(f"{name}: add what it computes to _check_computed")


def test_there_is_a_notebook() -> None:
    assert {"compare_strategies.ipynb", "tour.ipynb", "to_transformers.ipynb"} <= {p.name for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_executed_without_errors(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: not stored run top to bottom ({counts})"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{path.name}: stored with an error: {errors[0].get('ename')}"
    assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs), f"{path.name}: no plot stored"
    text = _text(nb)
    assert "full run" in text and "small run" not in text, f"{path.name}: not stored from a full run"
    _check_computed(path.name, text)
    stored = nbformat.writes(nb)
    found = re.findall(r"(?:/home/|/Users/|/work/|/tmp/|/root/|[A-Z]:\\\\Users)[^\s\"']*", stored)
    assert not found, f"{path.name}: a stored output holds a path of the machine that ran it: {found[:3]}"


#: notebooks run on all of the embedded corpus in the test (the others on a few hundred documents of it)
FULL_ON_EMBEDDED = {"tour.ipynb", "to_transformers.ipynb"}


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_runs_top_to_bottom(path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each notebook, every cell, on the embedded corpus (NSMC or not): tour and to_transformers on
    all of it, as a newcomer without NSMC runs them (to_transformers used to train on all 2,480 lines
    and test on none); compare_strategies, the whole grid, on a few hundred lines of it."""
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from jupyter_client import KernelManager

    monkeypatch.setenv("KOREAN_BPE_NOTEBOOK_CORPUS", "embedded")  # the kernel inherits these
    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path / "cache"))
    if path.name in FULL_ON_EMBEDDED:
        monkeypatch.delenv("KOREAN_BPE_NOTEBOOK_SMALL", raising=False)
    else:
        monkeypatch.setenv("KOREAN_BPE_NOTEBOOK_SMALL", "1")  # a few hundred documents
    nb = nbformat.read(path, as_version=4)
    # a kernel of this interpreter ("python" in the spec is replaced by sys.executable), given time to
    # stop its analyzer worker processes before any SIGTERM; run in a scratch directory
    km = KernelManager(kernel_name="python3", shutdown_wait_time=60)
    client = nbclient.NotebookClient(nb, km=km, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError, naming the cell, if any cell fails
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert ("full run" if path.name in FULL_ON_EMBEDDED else "small run") in text
    assert "konlpy" in text  # the embedded corpus
    assert not [o for o in outputs if o.output_type == "error"]
    _check_computed(path.name, _text(nb))
