"""Save and load a :class:`korean_bpe.Tokenizer`: three files, versioned, written atomically.

``vocab.json`` (``{"token": id}`` in id order, derived from the other two and checked against
them), ``merges.txt`` (``#version: 0.2``, one ``left right`` merge a line: the rules are
:mod:`korean_bpe.io.format`'s) and ``tokenizer_config.json`` (``format_version``, the stages'
configs, the marker, the special tokens and the fallbacks).  docs/API.md ("io: model files") is
the reference: format versions (:data:`OLD_DEFAULTS`), how a save stays atomic and where it
lands, tokens holding lone surrogates, and what loading checks (:class:`ModelFileError` names the
file and the line of every problem; :func:`alphabet_mismatch`).

>>> import tempfile
>>> from korean_bpe import Tokenizer
>>> tok = Tokenizer.train(["영화 정말 재밌다", "영화 진짜 재밌어요"] * 2, vocab_size=16)
>>> with tempfile.TemporaryDirectory() as d:
...     path = tok.save(f"{d}/model")
...     print(open(f"{d}/model/merges.txt", encoding="utf-8").read().splitlines()[:3])
...     again = Tokenizer.load(path)
['#version: 0.2', '▁ 영', '▁ 재']
>>> again.encode("영화 재밌다") == tok.encode("영화 재밌다")
True
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..trainer.model import BPEModel
from ..markers import MARKER_TEXTS, NoMarker, get_marker, guess_marker, pieces_keep_spaces
from ..units import UNITS, BaseUnit, Unit, get_unit
from ..files import InputFileError, check_output_dir_place, existing_parent, fsync_dir, new_dir_mode, read_input_file
from ..files import write_text_synced as _write_file
from .format import BYTE_TOKENS, MERGES_HEADER, ModelFileError, parse_merges, render_merges_txt

T = TypeVar("T")

__all__ = [
    "ModelFileError", "save_tokenizer", "load_tokenizer", "FORMAT_VERSION", "MERGES_HEADER",
    "VOCAB_FILE", "MERGES_FILE", "CONFIG_FILE", "render_vocab_json", "render_merges_txt", "check_model_dir",
    "find_backup", "alphabet_mismatch", "MAX_FILE_BYTES",
]

#: ``tokenizer_config.json`` format written by this version; loaders accept 1..FORMAT_VERSION.
FORMAT_VERSION = 2
#: format_version -> stage type -> the options a file of that version meant when it omitted them
#: (the defaults changed later).  Version 1: ``raw`` cut whole lines, no dummy prefix.
OLD_DEFAULTS: dict[int, dict[str, dict[str, Any]]] = {
    1: {"raw": {"split_by_whitespace": False, "add_dummy_prefix": False}},
}
FORMAT_NAME = "korean_bpe.Tokenizer"
VOCAB_FILE, MERGES_FILE, CONFIG_FILE = "vocab.json", "merges.txt", "tokenizer_config.json"
FILES = (VOCAB_FILE, MERGES_FILE, CONFIG_FILE)
#: the largest model file read: a vocabulary of millions of tokens fits; a link to ``/dev/zero``, a
#: FIFO or a directory is refused before any read (:func:`korean_bpe.files.read_input_file`)
MAX_FILE_BYTES = 2**30


# --- writing -------------------------------------------------------------------------------------


def render_vocab_json(id_to_token: Sequence[str]) -> str:
    """``vocab.json`` text: one ``"token": id`` a line, in id order (line ``id + 2``).

    >>> print(render_vocab_json(["<unk>", "영", "화", "영화"]))
    {
      "<unk>": 0,
      "영": 1,
      "화": 2,
      "영화": 3
    }
    <BLANKLINE>
    """
    body = ",\n".join(f"  {json.dumps(tok, ensure_ascii=False)}: {i}" for i, tok in enumerate(id_to_token))
    return "{\n" + body + "\n}\n" if body else "{}\n"


def _config(tok: Any) -> dict[str, Any]:
    from .. import __version__
    from ..pre_tokenizers.base import PRE_TOKENIZERS
    from ..units import UNITS

    unit_cfg = tok.unit.to_config()
    pt_cfg = tok.pre_tokenizer.to_config()
    for kind, registry, cfg, obj in (("unit", UNITS, unit_cfg, tok.unit), ("pre_tokenizer", PRE_TOKENIZERS, pt_cfg, tok.pre_tokenizer)):
        if not isinstance(cfg, Mapping) or cfg.get("type") not in registry:
            raise ValueError(
                f"cannot save the {kind} {obj!r}: its to_config() {cfg!r} names no registered type; register its "
                f"class (korean_bpe.{'units.UNITS' if kind == 'unit' else 'pre_tokenizers.PRE_TOKENIZERS'}.register(name)) "
                "so that load can rebuild it"
            )
    model = tok.model
    specials = set(model.special_tokens)
    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "korean_bpe_version": __version__,
        "unit": dict(unit_cfg),
        "pre_tokenizer": dict(pt_cfg),
        "marker": tok.marker,
        "byte_fallback": tok.byte_fallback,
        "hangul_fallback": tok.hangul_fallback,
        "unk_token": tok.unk_token,
        "continuing_subword_prefix": model.continuing_subword_prefix,
        "alphabet_size": len([t for t in dict.fromkeys(model.alphabet) if t not in specials]),
        "num_merges": len(model.merges),
        "vocab_size": model.vocab_size,
        "special_tokens": list(dict.fromkeys(model.special_tokens)),
    }


def check_model_dir(directory: str | os.PathLike[str], *, probe: bool = True) -> Path:
    """Check, before any work, that a model can be saved to ``directory``; returns the real
    directory the files will go to (symbolic links followed).

    Refused with a ValueError that says what to do: a file at the path or above it, a directory
    holding sub-directories (saving replaces the whole directory), and (``probe``) a place the user
    cannot write (tested by creating a temporary directory there: root passes permission checks,
    a read-only file system does not).

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> check_model_dir(f"{d}/model") == Path(os.path.realpath(d)) / "model"
    True
    >>> os.makedirs(f"{d}/project/src")
    >>> check_model_dir(f"{d}/project")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cannot save into .../project: it holds sub-directories (src); saving replaces the whole directory, so give a new or model-only directory, e.g. .../project/tokenizer
    """
    given = Path(os.path.abspath(os.fspath(directory)))
    target = Path(os.path.realpath(given))
    if target.exists() and not target.is_dir():
        raise ValueError(f"cannot save the model: {given} is a file, not a directory; give a new or model-only "
                         "directory path")
    if target.is_dir():
        subdirs = [p.name for p in target.iterdir() if p.is_dir()]
        if subdirs:
            raise ValueError(
                f"cannot save into {given}: it holds sub-directories ({', '.join(sorted(subdirs)[:3])}); saving "
                "replaces the whole directory, so give a new or model-only directory, e.g. "
                f"{given / 'tokenizer'}"
            )
    if probe:
        check_output_dir_place(target, what="the model")
    else:
        existing_parent(target)
    return target


def save_tokenizer(tok: Any, directory: str | os.PathLike[str]) -> Path:
    """Write the three files of ``tok`` (a :class:`korean_bpe.Tokenizer`, or any object with its
    ``model``, ``id_to_token``, ``unit``, ``pre_tokenizer``, ``marker``, ``byte_fallback``,
    ``hangul_fallback`` and ``unk_token``) into ``directory`` atomically (see the module
    docstring); returns ``directory`` as an absolute path."""
    given = Path(os.path.abspath(os.fspath(directory)))
    config = _config(tok)
    texts = {
        VOCAB_FILE: render_vocab_json(tok.id_to_token),
        MERGES_FILE: render_merges_txt(tok.model.merges),
        CONFIG_FILE: json.dumps(config, ensure_ascii=False, indent=2) + "\n",
    }
    target = check_model_dir(given, probe=False)
    exists = target.is_dir()
    keep = [p for p in target.iterdir() if p.name not in FILES] if exists else []
    dir_mode = stat.S_IMODE(target.stat().st_mode) if exists else new_dir_mode()
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = _make_temp(target, "tmp")
    try:
        for name, text in texts.items():
            _write_file(tmp / name, text, errors="surrogatepass")  # lone surrogates: see the module docstring
        if exists and _is_working_directory(target):
            _replace_files_in_place(tmp, target)
        else:
            for p in keep:
                try:
                    os.link(p, tmp / p.name)
                except OSError:
                    shutil.copy2(p, tmp / p.name)
            os.chmod(tmp, dir_mode)  # mkdtemp made it 0700
            fsync_dir(tmp)
            _replace_dir(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(parent)
    _remove_leftovers(target)
    return given


def _is_working_directory(target: Path) -> bool:
    try:
        return os.path.samefile(target, os.getcwd())
    except OSError:
        return False


def _make_temp(target: Path, tag: str) -> Path:
    """A new directory ``.NAME.TAG-STAMP-PID-XXXXXXXX`` beside ``target``: the stamp (ns since the
    epoch, 20 digits) orders backups by age, the pid tells a live save from a killed one."""
    prefix = f".{target.name}.{tag}-{time.time_ns():020d}-{os.getpid()}-"
    return Path(tempfile.mkdtemp(prefix=prefix, dir=target.parent))


def _replace_dir(new: Path, target: Path) -> None:
    """Put directory ``new`` at ``target``: one rename, or two around a backup of the old one."""
    if not target.exists():
        os.rename(new, target)
        return
    backup = _make_temp(target, "old")
    os.rmdir(backup)  # we only wanted a unique name
    os.rename(target, backup)
    os.rename(new, target)
    shutil.rmtree(backup, ignore_errors=True)


def _replace_files_in_place(new: Path, target: Path) -> None:
    """Replace the model files of ``target`` one by one, keeping the directory itself.

    Used when ``target`` is the working directory (``save(".")``): renaming it away would leave the
    process (and a shell sitting there) in a deleted directory.  The old files are first hard-linked
    into a backup beside it, so a crash between the file renames leaves a complete old model, which
    :func:`load_tokenizer` names when it finds the mixed files inconsistent.
    """
    present = [name for name in FILES if (target / name).is_file()]
    backup = None
    if present:
        backup = _make_temp(target, "old")
        for name in present:
            try:
                os.link(target / name, backup / name)
            except OSError:
                shutil.copy2(target / name, backup / name)
        fsync_dir(backup)
    for name in FILES:
        os.replace(new / name, target / name)
    fsync_dir(target)
    shutil.rmtree(new, ignore_errors=True)
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)


def _leftover_re(target_name: str, tag: str) -> re.Pattern[str]:
    """``.NAME.TAG-STAMP-PID-XXXXXXXX`` (``STAMP-PID-`` absent in names older versions wrote); the
    random part has no dot, so another model's leftovers (``.NAME.old-v1.old-...``) never match."""
    return re.compile(rf"\.{re.escape(target_name)}\.{tag}-(?:(\d{{20}})-(\d+)-)?[A-Za-z0-9_]+")


def _leftovers(target: Path, tag: str) -> list[Path]:
    pattern = _leftover_re(target.name, tag)
    try:
        return [p for p in target.parent.iterdir()
                if pattern.fullmatch(p.name) and p.is_dir() and not p.is_symlink()]
    except OSError:
        return []


def _stamp_and_pid(path: Path, tag: str, target_name: str) -> tuple[int | None, int | None]:
    m = _leftover_re(target_name, tag).fullmatch(path.name)
    return (int(m.group(1)), int(m.group(2))) if m and m.group(1) else (None, None)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, for instance: alive
        return True
    return True


def _remove_leftovers(target: Path) -> None:
    """After a successful save: remove the temporary and backup directories that killed saves left
    beside ``target`` (not those of a save still running in another process)."""
    for tag in ("tmp", "old"):
        for p in _leftovers(target, tag):
            _, pid = _stamp_and_pid(p, tag, target.name)
            if pid is None or pid == os.getpid() or not _alive(pid):
                shutil.rmtree(p, ignore_errors=True)


def find_backup(directory: str | os.PathLike[str]) -> Path | None:
    """The newest complete model that an interrupted save left beside ``directory``, or None.

    A save killed between its two renames leaves the previous model in ``.NAME.old-...`` beside
    the target; only directories holding all three model files count, the newest by the time
    stamp in the name (by modification time for names without one).
    """
    target = Path(os.path.realpath(os.path.abspath(os.fspath(directory))))
    if not target.name:
        return None
    complete = [p for p in _leftovers(target, "old") if all((p / name).is_file() for name in FILES)]

    def age(p: Path) -> tuple[int, str]:
        stamp, _ = _stamp_and_pid(p, "old", target.name)
        if stamp is None:
            try:
                stamp = p.stat().st_mtime_ns
            except OSError:
                stamp = 0
        return stamp, p.name

    return max(complete, key=age, default=None)


# --- reading -------------------------------------------------------------------------------------


def load_tokenizer(directory: str | os.PathLike[str], build: Callable[..., T]) -> T:
    """Rebuild the tokenizer saved in ``directory``, checking every file (see the module docstring):
    ``build(model, pre_tokenizer=, unit=, marker=, byte_fallback=, unk_token=, hangul_fallback=)``
    makes it (:meth:`korean_bpe.Tokenizer.load` passes its class); a ``ValueError`` it raises
    becomes a :class:`ModelFileError` on ``tokenizer_config.json``."""
    root = Path(directory)
    if not root.is_dir():
        backup = find_backup(root)
        hint = (f"; an interrupted save left the previous model in {backup}: rename it to {root.name}"
                if backup is not None else "; save a model with Tokenizer.save(directory)")
        what = "is not a directory" if root.exists() else "does not exist"
        raise ModelFileError(f"model directory {what}{hint}", path=root)
    try:
        return _load_tokenizer(root, build)
    except ModelFileError as exc:
        backup = find_backup(root)
        if backup is None:
            raise
        raise ModelFileError(f"{exc.reason}; an interrupted save may have left the previous model in {backup}",
                             path=exc.path, line=exc.line) from None


def _load_tokenizer(root: Path, build: Callable[..., T]) -> T:
    texts = {name: _read_text(root / name) for name in FILES}
    config = _Config(texts[CONFIG_FILE], root / CONFIG_FILE)
    unit_cfg = config.get("unit", (dict,), 'a unit config such as {"type": "jamo"}')
    pt_cfg = config.get("pre_tokenizer", (dict,), 'a pre-tokenizer config such as {"type": "whitespace"}')
    marker = config.get("marker", (str, type(None)), f"one of {MARKER_TEXTS!r}")
    if marker not in MARKER_TEXTS:
        raise ModelFileError(f"marker {marker!r} is not one of {MARKER_TEXTS!r}", path=config.path,
                             line=config.line("marker"))
    byte_fallback = config.get("byte_fallback", (bool,), "true or false")
    hangul_fallback = config.get("hangul_fallback", (bool,), "true or false") if "hangul_fallback" in config.data else False
    unk_token = config.get("unk_token", (str, type(None)), "a token or null")
    prefix = config.get("continuing_subword_prefix", (str, type(None)), "a string or null")
    alphabet_size = config.get("alphabet_size", (int,), "the number of alphabet tokens")
    num_merges = config.get("num_merges", (int,), "the number of merges")
    specials = config.special_tokens()
    unit, pre_tokenizer = config.stages(unit_cfg, pt_cfg)

    vocab_lines, tokens = _read_vocab(texts[VOCAB_FILE], root / VOCAB_FILE, specials)
    if not 0 <= alphabet_size <= len(tokens) - len(specials):
        raise ModelFileError(f"alphabet_size {alphabet_size} does not fit the {len(tokens)} tokens of vocab.json",
                             path=config.path, line=config.line("alphabet_size"))
    alphabet = tokens[len(specials):len(specials) + alphabet_size]
    merges = _read_merges(texts[MERGES_FILE], root / MERGES_FILE, num_merges, set(specials) | set(alphabet), prefix)
    model = BPEModel(special_tokens=tuple(specials), alphabet=tuple(alphabet), merges=tuple(merges),
                     continuing_subword_prefix=prefix)
    _check_derived(tokens, model.id_to_token, root / VOCAB_FILE, vocab_lines)
    if "vocab_size" in config.data and config.data["vocab_size"] != model.vocab_size:  # written by save, derived
        raise ModelFileError(f"vocab_size {config.data['vocab_size']!r} disagrees with the {model.vocab_size} tokens "
                             f"of vocab.json and merges.txt: the files come from different models, or one was edited",
                             path=config.path, line=config.line("vocab_size"))
    _check_alphabet(config, unit_cfg.get("type"), unit, marker, alphabet)
    if byte_fallback:
        have = set(tokens)
        missing = [t for t in BYTE_TOKENS if t not in have]
        if missing:
            raise ModelFileError(f"byte_fallback is true but the byte token {missing[0]!r} is not in vocab.json",
                                 path=config.path, line=config.line("byte_fallback"))
    try:
        return build(model, pre_tokenizer=pre_tokenizer, unit=unit, marker=_load_marker(marker, pre_tokenizer, config),
                     byte_fallback=byte_fallback, unk_token=unk_token, hangul_fallback=hangul_fallback)
    except ValueError as exc:
        raise ModelFileError(f"inconsistent settings: {exc}", path=config.path) from None


class _Config:
    """``tokenizer_config.json``, read: each key checked on demand, errors naming the key's line."""

    def __init__(self, text: str, path: Path) -> None:
        self.path = path
        data = _parse_json(text, path)
        if not isinstance(data, dict):
            raise ModelFileError(f"expected a JSON object, got {type(data).__name__}", path=path, line=1)
        self.data: dict[str, Any] = data
        self._lines = _KeyLines(text)
        if "format" in data and data["format"] != FORMAT_NAME:  # files of format 1 may lack the key
            raise ModelFileError(f"format {data['format']!r} is not a korean_bpe tokenizer ({FORMAT_NAME!r}): "
                                 "this folder holds another library's model, or the file was edited",
                                 path=path, line=self.line("format"))
        version = self.get("format_version", (int,), f"an int (this korean_bpe reads 1..{FORMAT_VERSION})")
        if version > FORMAT_VERSION:
            raise ModelFileError(
                f"format_version {version} was written by a newer korean_bpe ({data.get('korean_bpe_version')}); "
                f"this one reads format 1..{FORMAT_VERSION}: upgrade korean_bpe", path=path, line=self.line("format_version"))
        if version < 1:
            raise ModelFileError(f"format_version {version} is not a korean_bpe format (1..{FORMAT_VERSION})",
                                 path=path, line=self.line("format_version"))
        self.version = version

    def line(self, key: str) -> int | None:
        return self._lines.get(key)

    def get(self, key: str, types: tuple[type, ...], what: str) -> Any:
        if key not in self.data:
            raise ModelFileError(f"missing key {key!r} ({what})", path=self.path, line=None)
        value = self.data[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise ModelFileError(f"{key!r} must be {what}, got {value!r}", path=self.path, line=self.line(key))
        return value

    def special_tokens(self) -> list[str]:
        specials = self.get("special_tokens", (list,), "a list of tokens")
        bad = next((t for t in specials if not isinstance(t, str) or not t), None)
        if bad is not None or len(set(specials)) != len(specials):
            raise ModelFileError(f"special_tokens must be distinct non-empty strings; got {bad!r}" if bad is not None
                                 else "special_tokens holds a token twice", path=self.path, line=self.line("special_tokens"))
        return specials

    def stages(self, unit_cfg: dict[str, Any], pt_cfg: dict[str, Any]) -> tuple[Any, Any]:
        """The unit and the pre-tokenizer (a format-1 ``raw`` with its old defaults), rebuilt."""
        from ..pre_tokenizers.base import get_pre_tokenizer
        from ..units import get_unit

        try:
            unit = get_unit(unit_cfg)
        except (ValueError, TypeError) as exc:
            raise ModelFileError(f"bad 'unit': {exc}", path=self.path, line=self.line("unit")) from None
        old_defaults = OLD_DEFAULTS.get(self.version, {}).get(pt_cfg.get("type"))
        if old_defaults:
            pt_cfg = {**old_defaults, **pt_cfg}
        try:
            pre_tokenizer = get_pre_tokenizer(pt_cfg)
        except (ValueError, TypeError) as exc:
            raise ModelFileError(f"bad 'pre_tokenizer': {exc}", path=self.path, line=self.line("pre_tokenizer")) from None
        return unit, pre_tokenizer


def _read_vocab(text: str, path: Path, specials: Sequence[str]) -> tuple[_KeyLines, list[str]]:
    """``vocab.json``: each token once, ids ``0..n-1`` each once, the special tokens first."""
    vocab_lines = _KeyLines(text)
    pairs = _parse_json(text, path, pairs=True)
    if not isinstance(pairs, _Pairs):
        raise ModelFileError("expected a JSON object {token: id}", path=path, line=1)
    id_to_token: list[str | None] = [None] * len(pairs)
    seen: set[str] = set()
    for tok, i in pairs:
        if tok in seen:
            raise ModelFileError(f"token {tok!r} appears twice", path=path, line=vocab_lines.get(tok))
        seen.add(tok)
        if not isinstance(i, int) or isinstance(i, bool):
            raise ModelFileError(f"the id of {tok!r} must be an int, got {i!r}", path=path, line=vocab_lines.get(tok))
        if not 0 <= i < len(pairs):
            raise ModelFileError(f"the id {i} of {tok!r} is out of range: {len(pairs)} tokens need ids 0..{len(pairs) - 1}",
                                 path=path, line=vocab_lines.get(tok))
        if id_to_token[i] is not None:
            raise ModelFileError(f"id {i} is given to both {id_to_token[i]!r} and {tok!r}", path=path, line=vocab_lines.get(tok))
        id_to_token[i] = tok
    tokens: list[str] = id_to_token  # type: ignore[assignment]  # every id is filled: n distinct ids in 0..n-1
    for k, tok in enumerate(specials):
        if k >= len(tokens) or tokens[k] != tok:
            got = tokens[k] if k < len(tokens) else None
            raise ModelFileError(
                f"special token {tok!r} (tokenizer_config.json) must have id {k}, but id {k} is {got!r}",
                path=path, line=vocab_lines.get(got) if got is not None else None)
    return vocab_lines, tokens


def _read_merges(text: str, path: Path, num_merges: int, known: set[str], prefix: str | None) -> list[tuple[str, str]]:
    """``merges.txt``, each line checked, as many merges as the config says."""
    model_probe = BPEModel((), (), (), continuing_subword_prefix=prefix)
    merges = parse_merges(text, path, known=known, merged=model_probe.merged_token)
    if len(merges) != num_merges:
        raise ModelFileError(
            f"holds {len(merges)} merges but tokenizer_config.json says {num_merges}: the file was cut or edited",
            path=path, line=len(merges) + 2 if len(merges) < num_merges else num_merges + 2)
    return merges


def _check_derived(tokens: Sequence[str], derived: Sequence[str], path: Path, vocab_lines: _KeyLines) -> None:
    """vocab.json holds exactly the ids the alphabet and merges.txt give (derived, not stored twice)."""
    if tuple(tokens) == tuple(derived):
        return
    k = next((k for k, (a, b) in enumerate(zip(tokens, derived)) if a != b), min(len(tokens), len(derived)))
    if k < len(tokens):
        got = tokens[k]
        should = derived[k] if k < len(derived) else None
        msg = (f"token {got!r} has id {k}, but the alphabet and merges.txt give id {k} to {should!r}"
               if should is not None else
               f"token {got!r} (id {k}) is made by no merge of merges.txt and is not in the alphabet")
        raise ModelFileError(msg + ": vocab.json does not match merges.txt", path=path, line=vocab_lines.get(got))
    raise ModelFileError(
        f"lacks the token {derived[k]!r} (id {k}) that merges.txt makes: vocab.json does not match merges.txt",
        path=path, line=None)


def _check_alphabet(config: _Config, unit_name: Any, unit: Any, marker: str | None, alphabet: Sequence[str]) -> None:
    """The unit (asked: ``alphabet_problem``) and the marker must fit the alphabet; the error names the fix."""
    why = alphabet_mismatch(unit, marker, alphabet)
    if why is None:
        return
    if marker_mismatch(marker, alphabet) is not None:
        guess = guess_marker(alphabet)
        fits = [guess] if alphabet_mismatch(unit, guess, alphabet) is None else []
        key, fix = "marker", " or ".join(f'"marker": {json.dumps(m, ensure_ascii=False)}' for m in fits)
    else:
        fits = [u for u in _units_that_tell() if alphabet_mismatch(u, marker, alphabet) is None]
        key, fix = "unit", " or ".join(f'"unit": {{"type": "{u}"}}' for u in fits)
    raise ModelFileError(
        f"the {key} does not fit the model in vocab.json: with the {unit_name} unit and marker {marker!r}, {why}; "
        + (f"the alphabet fits {fix}: set that" if fits else "the alphabet fits no unit and marker: the files "
           "do not belong together"), path=config.path, line=config.line(key))


def _load_marker(marker: str | None, pre_tokenizer: Any, config: _Config) -> Any:
    """The marker object; ``None`` with a pre-tokenizer that drops the spaces (saved before that was
    refused) loads as it did (decode glues the words), with a warning."""
    if marker is not None or pieces_keep_spaces(pre_tokenizer):
        return get_marker(marker)
    import warnings

    warnings.warn(
        f"{config.path}: this model was saved with marker null and the pre-tokenizer {pre_tokenizer!r}, which drops the "
        "spaces, so decode glues the words together ('영화 정말 재밌다' -> '영화정말재밌다'); it loads as saved. "
        "Train it again with marker='▁' (default) or a lossless pre-tokenizer such as raw",
        UserWarning, stacklevel=4)
    return NoMarker(glue_words=True)


def _units_that_tell() -> list[str]:
    """The registered units whose class says which alphabets it makes (``alphabet_problem``)."""
    return [name for name in UNITS.names()
            if getattr(UNITS.get_class(name), "alphabet_problem", BaseUnit.alphabet_problem) is not BaseUnit.alphabet_problem]


def marker_mismatch(marker: str | None, alphabet: Sequence[str]) -> str | None:
    """Why an alphabet (non-empty) cannot come from words marked with ``marker`` (None: it can);
    see :meth:`korean_bpe.markers.Marker.alphabet_problem`.

    >>> marker_mismatch("</w>", ["가", "▁"])
    "no alphabet token ends with '</w>', which marker '</w>' glues to the last symbol of every word"
    """
    return get_marker(marker).alphabet_problem(alphabet)


def alphabet_mismatch(unit: str | Unit, marker: str | None, alphabet: Sequence[str]) -> str | None:
    """Why ``alphabet`` (the model's tokens after the special tokens, before the merges) cannot
    come from ``unit`` (a unit or its name) with ``marker``, naming the first token that shows it;
    None when it can.  The unit says which symbols it makes (``alphabet_problem``, see
    :meth:`korean_bpe.units.BaseUnit.alphabet_problem`): ``jamo`` never a Hangul syllable,
    ``byte`` only its 256 byte symbols (and always all of them), ``syllable`` composed text (an
    alphabet of conjoining jamo and no syllable, or of exactly the 256 byte symbols, is a jamo
    or byte model); a unit that does not say is never refused.

    >>> alphabet_mismatch("jamo", "▁", ["▁", "영", "화"])
    "the alphabet holds '영', a Hangul syllable, which the jamo unit never makes (it splits syllables into jamo)"
    >>> alphabet_mismatch("syllable", "▁", ["▁", "영", "화"]) is None
    True
    """
    u = get_unit(unit)
    why = marker_mismatch(marker, alphabet)
    if why is not None:
        return why.replace("is not one symbol", f"is not one {u.name} symbol")
    if not alphabet or not hasattr(u, "alphabet_problem"):
        return None
    mark = get_marker(marker)
    return u.alphabet_problem([mark.base(tok) for tok in alphabet if tok != mark.word_start])  # type: ignore[no-any-return]


def _read_text(path: Path) -> str:
    try:
        data = read_input_file(path, what="a model file", max_bytes=MAX_FILE_BYTES)
    except InputFileError as exc:
        raise ModelFileError(exc.reason, path=path) from None
    except FileNotFoundError:
        raise ModelFileError(
            f"missing file {path.name}: a korean_bpe model directory holds {', '.join(FILES)} (written by "
            "Tokenizer.save)", path=path) from None
    try:
        return data.decode("utf-8", "surrogatepass")  # a lone surrogate (ED A0 80): see the module docstring
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ModelFileError(f"not valid UTF-8 (byte offset {exc.start}: {exc.reason})", path=path, line=line) from None


class _Pairs(list):  # type: ignore[type-arg]
    """A JSON object kept as its (key, value) pairs, so that duplicate keys can be reported."""


def _parse_json(text: str, path: Path, *, pairs: bool = False) -> Any:
    try:
        if pairs:
            return json.loads(text, object_pairs_hook=_Pairs)
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"bad JSON: {exc.msg} (column {exc.colno})", path=path, line=exc.lineno) from None


_KEY_RE = re.compile(r'^[ \t]*("(?:[^"\\\n]|\\.)*")[ \t]*:', re.MULTILINE)


def _key_lines(text: str) -> dict[str, int]:
    """Line of the first occurrence of each JSON key that starts a line (our files: every key)."""
    out: dict[str, int] = {}
    line, pos = 1, 0
    for m in _KEY_RE.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        try:
            key = json.loads(m.group(1))
        except json.JSONDecodeError:
            continue
        out.setdefault(key, line)
    return out


class _KeyLines:
    """The lines of a JSON file's keys (:func:`_key_lines`), found when an error first asks for one:
    a file read without error never pays for them (a 32k ``vocab.json``: about 0.1 s)."""

    def __init__(self, text: str) -> None:
        self._text: str | None = text
        self._lines: dict[str, int] = {}

    def get(self, key: str) -> int | None:
        if self._text is not None:
            self._lines, self._text = _key_lines(self._text), None
        return self._lines.get(key)
