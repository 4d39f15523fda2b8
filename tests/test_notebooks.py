"""Every notebook in notebooks/ runs top to bottom (small-data switch on) and is stored executed."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))

nbformat = pytest.importorskip("nbformat")


def test_there_is_a_notebook() -> None:
    assert [p.name for p in NOTEBOOKS] and "compare_strategies.ipynb" in [p.name for p in NOTEBOOKS]


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


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_runs_top_to_bottom(path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from jupyter_client import KernelManager

    monkeypatch.setenv("KOREAN_BPE_NOTEBOOK_SMALL", "1")  # the kernel inherits it: a few hundred documents
    nb = nbformat.read(path, as_version=4)
    # a kernel of this interpreter ("python" in the spec is replaced by sys.executable), given time to
    # stop its analyzer worker processes before any SIGTERM; run in a scratch directory
    km = KernelManager(kernel_name="python3", shutdown_wait_time=60)
    client = nbclient.NotebookClient(nb, km=km, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError, naming the cell, if any cell fails
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "small run" in text
    assert not [o for o in outputs if o.output_type == "error"]
