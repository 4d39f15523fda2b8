"""Where saved files land: symlinks, special files, modes, the working directory, interrupted saves.

Each test is a hostile-user case from issue 14 (items 5-8, 10): what is at the path before the
save, what must be there after.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from korean_bpe import Tokenizer
from korean_bpe.io import ModelFileError
from korean_bpe.io import serialization as ser
from korean_bpe.io.hf import export_tokenizer_json

REVIEWS = ["아이언맨은 올해 최고의 영화!", "영화 정말 재밌다 ㅋㅋ", "스파이더맨 봤는데 쩔어 ㅠㅠ", "이 영화 진짜 별로였어요"] * 4


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer.train(REVIEWS, vocab_size=60)


@pytest.fixture(scope="module")
def other() -> Tokenizer:
    return Tokenizer.train(REVIEWS[:2], vocab_size=30, unit="jamo")


@pytest.fixture()
def umask():
    """Set the umask for one test, restore it after."""
    saved = os.umask(0o022)
    os.umask(saved)
    yield lambda m: os.umask(m)
    os.umask(saved)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# -- 5. export-hf -o PATH: symlinks, special files -------------------------------------------------

def test_export_writes_through_a_symlink_to_its_target(tok, tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert export_tokenizer_json(tok, link) == link
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads(real.read_text(encoding="utf-8"))["model"]["type"] == "BPE"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "made" / "here.json")
    (tmp_path / "made").mkdir()
    export_tokenizer_json(tok, dangling)
    assert dangling.is_symlink() and json.loads((tmp_path / "made" / "here.json").read_text(encoding="utf-8"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.json", "link.json", "made", "real.json"]


def test_export_refuses_special_files_and_leaves_them(tok, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"pipe is a named pipe \(FIFO\), not a regular file: writing would replace it"):
        export_tokenizer_json(tok, fifo)  # (opening the FIFO would block: the check must only stat it)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    link = tmp_path / "to-fifo"
    link.symlink_to(fifo)
    with pytest.raises(ValueError, match="named pipe"):
        export_tokenizer_json(tok, link)
    assert link.is_symlink()
    try:
        os.mknod(tmp_path / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null of our own
    except PermissionError:
        pass  # not root: the FIFO stands for special files
    else:
        with pytest.raises(ValueError, match="null is a character device, not a regular file"):
            export_tokenizer_json(tok, tmp_path / "null")
        assert stat.S_ISCHR(os.lstat(tmp_path / "null").st_mode)
    (tmp_path / "d" / "tokenizer.json").mkdir(parents=True)
    with pytest.raises(ValueError, match=r"tokenizer.json is a directory"):
        export_tokenizer_json(tok, tmp_path / "d")
    left = {p.name for p in tmp_path.iterdir()} - {"null"}
    assert left == {"d", "pipe", "to-fifo"}  # no temporary file left behind
    assert [p.name for p in (tmp_path / "d").iterdir()] == ["tokenizer.json"]


def test_atomic_write_refuses_a_path_under_a_file(tmp_path):
    from korean_bpe.files import atomic_write_text

    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match=r"f is a file, not a directory"):
        atomic_write_text(tmp_path / "f" / "out.json", "{}")


def test_atomic_write_by_another_writer_keeps_the_suffix_and_the_old_file_on_error(tmp_path, umask):
    """The one atomic-write helper, for files another library writes (report figures): the writer
    gets a temporary path with the target's suffix; its error leaves the old file and no debris."""
    from korean_bpe.files import atomic_write

    umask(0o027)
    target = tmp_path / "plot.png"
    seen: list[Path] = []
    atomic_write(target, lambda p: (seen.append(p), p.write_bytes(b"new"))[1])
    assert target.read_bytes() == b"new" and mode(target) == 0o640
    assert seen[0].parent == tmp_path and seen[0].name.endswith(".png") and seen[0] != target
    os.chmod(target, 0o600)

    def fails(p: Path) -> None:
        p.write_bytes(b"half")
        raise ValueError("no data to plot")

    with pytest.raises(ValueError, match="no data to plot"):
        atomic_write(target, fails)
    assert target.read_bytes() == b"new" and sorted(os.listdir(tmp_path)) == ["plot.png"]
    atomic_write(target, lambda p: p.write_bytes(b"newer"))
    assert target.read_bytes() == b"newer" and mode(target) == 0o600  # a replaced file keeps its mode


# -- 6. modes follow the umask -----------------------------------------------------------------------

@pytest.mark.parametrize("mask,dmode,fmode", [(0o022, 0o755, 0o644), (0o027, 0o750, 0o640), (0o077, 0o700, 0o600)])
def test_saved_files_follow_the_umask(tok, tmp_path, umask, mask, dmode, fmode):
    umask(mask)
    target = tok.save(tmp_path / "model")
    assert mode(target) == dmode
    assert {p.name: mode(p) for p in target.iterdir()} == dict.fromkeys(
        ["merges.txt", "tokenizer_config.json", "vocab.json"], fmode)
    assert mode(export_tokenizer_json(tok, tmp_path / "tokenizer.json")) == fmode
    assert mode(export_tokenizer_json(tok, target)) == fmode


def test_resave_keeps_the_modes_the_user_chose(tok, other, tmp_path, umask):
    umask(0o022)
    target = tok.save(tmp_path / "model")
    os.chmod(target, 0o751)
    out = export_tokenizer_json(tok, target)
    os.chmod(out, 0o600)
    other.save(target)
    assert mode(target) == 0o751 and mode(out) == 0o600
    export_tokenizer_json(other, out)
    assert mode(out) == 0o600


# -- 7. a model directory that is a symlink ----------------------------------------------------------

def test_save_into_a_symlinked_model_directory(tok, other, tmp_path):
    real = tok.save(tmp_path / "models" / "v1")
    link = tmp_path / "current"
    link.symlink_to(real, target_is_directory=True)
    assert other.save(link) == link
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert Tokenizer.load(real).model == other.model and Tokenizer.load(link).model == other.model
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["v1"]
    fresh = tmp_path / "next"
    fresh.symlink_to(tmp_path / "models" / "v2")  # dangling: the model goes where it points
    tok.save(fresh)
    assert fresh.is_symlink() and Tokenizer.load(tmp_path / "models" / "v2").model == tok.model


# -- 8. save(".") keeps the working directory --------------------------------------------------------

CWD_CHILD = textwrap.dedent(
    """
    import os, sys
    from korean_bpe import Tokenizer
    texts = ["아이언맨은 올해 최고의 영화!", "영화 정말 재밌다 ㅋㅋ"] * 4
    before = os.stat(".").st_ino
    tok = Tokenizer.train(texts, vocab_size=int(sys.argv[2]))
    tok.save(sys.argv[1])
    print(os.getcwd(), os.stat(".").st_ino == before, sorted(os.listdir(".")))
    print(Tokenizer.load(".").model == tok.model)
    """
)


@pytest.mark.parametrize("how", [".", "absolute"])
def test_save_dot_keeps_the_working_directory(tok, tmp_path, how):
    target = tok.save(tmp_path / "model")
    (target / "README.md").write_text("notes", encoding="utf-8")
    ino = os.stat(target).st_ino
    for size in ("40", "45"):  # over an existing model, twice
        proc = subprocess.run([sys.executable, "-c", CWD_CHILD, "." if how == "." else str(target), size],
                              cwd=target, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        cwd, same, files = proc.stdout.splitlines()[0].split(" ", 2)
        assert cwd == str(target) and same == "True"
        assert files == str(["README.md", "merges.txt", "tokenizer_config.json", "vocab.json"])
        assert proc.stdout.splitlines()[1] == "True"
    assert os.stat(target).st_ino == ino  # the directory itself was kept, not replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]  # no backup or temporary left


# -- 10. a save interrupted between its two renames --------------------------------------------------

def interrupt_between_renames(monkeypatch) -> None:
    """Make the next save fail at its second rename (the new model into place), as a kill would."""
    real_rename = os.rename
    calls = []

    def rename(a, b):
        calls.append((a, b))
        if len(calls) == 2:
            raise OSError(5, "injected fault: killed between the renames")
        return real_rename(a, b)

    monkeypatch.setattr(ser.os, "rename", rename)


def test_interrupted_save_names_the_newest_complete_backup(tok, other, tmp_path, monkeypatch):
    target = tok.save(tmp_path / "model")
    decoy = tmp_path / ".model.old-zzzz"  # an empty leftover whose name sorts last
    decoy.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid no save runs under any more
    old_complete = tmp_path / f".model.old-00000000000000000001-{dead.pid}-abc"  # complete, but older
    ser.save_tokenizer(other, tmp_path / "elsewhere")
    os.rename(tmp_path / "elsewhere", old_complete)
    with monkeypatch.context() as m:
        interrupt_between_renames(m)
        with pytest.raises(OSError, match="injected fault"):
            other.save(target)
    assert not target.exists()
    with pytest.raises(ModelFileError, match="interrupted save left the previous model in") as info:
        Tokenizer.load(target)
    backup = Path(str(info.value).split("previous model in ")[1].split(": rename it")[0])
    assert backup not in (decoy, old_complete)
    assert Tokenizer.load(backup).model == tok.model
    assert ser.find_backup(target) == backup
    other.save(target)  # the next save cleans every leftover up
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]
    assert Tokenizer.load(target).model == other.model


def test_save_dot_interrupted_between_its_file_renames_names_the_backup(tok, other, tmp_path, monkeypatch):
    target = tok.save(tmp_path / "model")
    monkeypatch.chdir(target)
    real_replace = os.replace
    calls = []

    def replace(a, b):  # killed after the first of the three file renames
        calls.append(b)
        if len(calls) == 2:
            raise OSError(5, "injected fault")
        return real_replace(a, b)

    with monkeypatch.context() as m:
        m.setattr(ser.os, "replace", replace)
        with pytest.raises(OSError, match="injected fault"):
            other.save(".")
    with pytest.raises(ModelFileError, match="an interrupted save may have left the previous model in") as info:
        Tokenizer.load(".")  # vocab.json new, merges.txt old: inconsistent, and the backup is named
    backup = Path(str(info.value).split("previous model in ")[1])
    assert Tokenizer.load(backup).model == tok.model
    other.save(".")
    assert Tokenizer.load(".").model == other.model
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_leftovers_of_another_model_are_not_touched(tok, other, tmp_path):
    tok.save(tmp_path / "m")
    foreign = tmp_path / ".m.old-v1.old-00000000000000000001-1-abc"  # a backup of the model "m.old-v1"
    foreign.mkdir()
    other.save(tmp_path / "m")
    assert foreign.is_dir()


def test_check_output_file_runs_the_checks_up_front(tmp_path):
    from korean_bpe.files import NotRegularFileError, check_output_file

    (tmp_path / "real.csv").write_text("old")
    (tmp_path / "link.csv").symlink_to(tmp_path / "real.csv")
    assert check_output_file(tmp_path / "link.csv") == tmp_path / "real.csv"
    assert check_output_file(tmp_path / "new" / "out.csv") == tmp_path / "new" / "out.csv"
    assert not (tmp_path / "new").exists()  # checking creates nothing
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(NotRegularFileError, match="named pipe"):
        check_output_file(tmp_path / "fifo")
    with pytest.raises(ValueError, match="real.csv is a file, not a directory"):
        check_output_file(tmp_path / "real.csv" / "out.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link.csv", "real.csv"]
