"""The trained models of :func:`korean_bpe.compare.compare`, kept on disk so that a rerun on the
same training texts reads them back instead of training again.

Each entry is one JSON file ``<key>.json`` in ``models/`` under the analysis cache's directory
(:func:`korean_bpe.pre_tokenizers.cache.cache_dir`: ``$KOREAN_BPE_CACHE_DIR`` or the user cache
directory).  The key is a BLAKE2b hash of everything the model depends on: the training texts
(their content hash, :func:`texts_hash`), the strategy and its full configuration (pre-tokenizer
config, unit, ``min_frequency``), the vocabulary size it was trained at, the seed, the versions of
korean_bpe, of the analyzer and of the peer library, a fingerprint of the training code (the
source of the trainer modules: an edit there retrains) and :data:`FORMAT_VERSION`.  An entry
holds the model (BPE merges, baseline vocabulary, SentencePiece model proto, HF ``tokenizer.json``,
SwTokenizer file) and the seconds its training took, so ``train_s`` stays the original training's.
What the tasks' own models give on a row is kept beside them (:func:`kept_scores`: a downstream
classifier's predictions, the NER tagger's tags, the language model's log probabilities), keyed by
the model's inputs (:func:`data_hash`), settings and seed, the code and the PyTorch version.
A peer's deterministic native crash (``kiwi-swtokenizer`` on NSMC in kiwipiepy 0.24.1: the same
texts and versions crash again) is kept as its note.

Entries are written atomically (a temporary file, then :func:`os.replace`), each with a checksum of
what was written; an entry that cannot be read or does not match its key or its checksum
(truncated, corrupt, edited, another format, not a regular file) is ignored and the model trained
again, overwriting it.  ``compare(..., model_cache=False)`` or ``korean-bpe compare
--no-model-cache`` turns the cache off; deleting the ``models`` directory clears it.

``hf-wordpiece``'s trainer is not deterministic upstream (huggingface/tokenizers#1794: two
trainings on the same texts can give slightly different vocabularies); the cache keeps the first
training's model, so a warm rerun gives that one again.

>>> import tempfile
>>> cache = ModelCache(tempfile.mkdtemp())
>>> key = cache.key({"strategy": "whitespace/syllable", "vocab_size": 8000, "texts": texts_hash(["영화 최고"])})
>>> cache.get(key) is None
True
>>> cache.put(key, {"kind": "baseline", "train_s": 0.5, "vocab_tokens": ["<unk>", "영화"]})
>>> cache.get(key)["vocab_tokens"]
['<unk>', '영화']
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from ..files import read_input_file
from ..io.serialization import MAX_FILE_BYTES

__all__ = ["ModelCache", "FORMAT_VERSION", "texts_hash", "default_directory", "code_fingerprint",
           "library_versions", "data_hash", "kept_scores"]

T = TypeVar("T")

#: bumped whenever an entry's layout changes: older entries then miss and are trained again
#: (2: each entry holds the checksum of what was written)
FORMAT_VERSION = 2


def default_directory() -> Path:
    """``models/`` under the analysis cache's directory (``$KOREAN_BPE_CACHE_DIR`` when set)."""
    from ..pre_tokenizers.cache import cache_dir

    return cache_dir() / "models"


def texts_hash(texts: Iterable[str]) -> str:
    """A content hash of the training texts, in order (BLAKE2b-256 of each text's UTF-8, length-prefixed).

    >>> texts_hash(["영화", "최고"]) == texts_hash(["영화최고"])
    False
    """
    h = hashlib.blake2b(digest_size=32)
    for t in texts:
        b = t.encode("utf-8", "surrogatepass")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


_FINGERPRINTS: dict[str, str] = {}


def code_fingerprint(*modules: str) -> str:
    """A hash of the source files of ``modules`` (dotted names; a package counts its ``.py`` and
    ``.pyx`` files): a change to the training code changes the key, even at the same version."""
    key = ",".join(modules)
    got = _FINGERPRINTS.get(key)
    if got is None:
        import importlib.util

        h = hashlib.blake2b(digest_size=16)
        for name in modules:
            spec = importlib.util.find_spec(name)
            if spec is None or spec.origin is None:
                h.update(f"{name}: missing".encode())
                continue
            origin = Path(spec.origin)
            files = sorted(p for p in origin.parent.iterdir() if p.suffix in (".py", ".pyx")) \
                if origin.name == "__init__.py" else [origin]
            for p in files:
                h.update(p.name.encode())
                h.update(p.read_bytes())
        got = _FINGERPRINTS[key] = h.hexdigest()
    return got


def library_versions(*distributions: str) -> dict[str, str | None]:
    """The installed version of each distribution (None when absent)."""
    from importlib import metadata

    out: dict[str, str | None] = {}
    for name in distributions:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def data_hash(data: Any) -> str:
    """A content hash of JSON data (lists of token strings, of ids, of labels; NumPy numbers and
    arrays as their values): BLAKE2b-256 of its canonical JSON.

    >>> data_hash([["영화", "는"], [1, 0]]) == data_hash([["영화", "는"], [1, 0]]) != data_hash([["영화는"], [1, 0]])
    True
    """
    canonical = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=_plain)
    return hashlib.blake2b(canonical.encode("utf-8", "surrogatepass"), digest_size=32).hexdigest()


def _plain(value: Any) -> Any:
    """A NumPy number or array as JSON data (``json.dumps``' ``default``); TypeError for anything else."""
    if hasattr(value, "tolist") and hasattr(value, "dtype"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON data")


def kept_scores(cache: ModelCache | None, fields: Mapping[str, Any], *, make: Callable[[], tuple[T, dict[str, Any]]],
                load: Callable[[dict[str, Any]], T | None]) -> T:
    """What a task's trained models give on a row (a classifier's predictions, a tagger's tags, a
    language model's log probabilities), kept in ``cache`` so that a rerun trains nothing.

    ``fields``: everything the value depends on (``"kind"`` among them: the inputs' hashes, the
    settings, the seed, the code's fingerprint, the libraries' versions).  The value is
    ``load(entry)`` of the entry stored under them when there is one it reads (None, KeyError,
    TypeError or ValueError: it does not), else the value of ``make()``, which returns ``(value,
    entry)``: the entry (JSON data) is stored for the next run.  ``cache`` None: ``make()``'s
    value, nothing read or kept.

    >>> import tempfile
    >>> cache, made = ModelCache(tempfile.mkdtemp()), []
    >>> def make():
    ...     made.append(1)
    ...     return [1, 0], {"tags": [1, 0]}
    >>> [kept_scores(cache, {"kind": "toy"}, make=make, load=lambda e: e["tags"]) for _ in range(2)], len(made)
    ([[1, 0], [1, 0]], 1)
    """
    key = cache.key(fields) if cache is not None else ""
    entry = cache.get(key) if cache is not None else None
    if entry is not None:
        try:
            value = load(entry)
        except (KeyError, TypeError, ValueError):
            value = None
        if value is not None:
            return value
    value, entry = make()
    if cache is not None:
        cache.put(key, {**entry, "kind": fields["kind"]})
    return value


def _checksum(body: Mapping[str, Any]) -> str:
    """BLAKE2b-256 of ``body``'s canonical JSON: an entry edited after it was written (even into
    another valid model) no longer matches the checksum stored with it, and is trained again."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(canonical.encode("ascii"), digest_size=32).hexdigest()


class ModelCache:
    """The entries in ``directory`` (created on the first :meth:`put`)."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_directory()

    def key(self, fields: Mapping[str, Any]) -> str:
        """The entry name of ``fields`` (JSON-serialisable): BLAKE2b-256 of their canonical JSON
        with :data:`FORMAT_VERSION` and korean_bpe's version."""
        from .. import __version__

        canonical = json.dumps({"format": FORMAT_VERSION, "korean_bpe": __version__, **fields},
                               sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.blake2b(canonical.encode("utf-8", "surrogatepass"), digest_size=32).hexdigest()

    def path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def entries(self) -> list[Path]:
        """The entry files, sorted (none when the directory does not exist; a write's leftover
        temporary file, ``.<key>.json.*.tmp.json``, is none)."""
        if not self.directory.is_dir():
            return []
        return sorted(p for p in self.directory.glob("*.json") if not p.name.startswith("."))

    def clear(self) -> int:
        """Delete every entry (and leftover temporary files); returns how many entries went."""
        removed = 0
        if not self.directory.is_dir():
            return 0
        for f in [*self.directory.glob("*.json"), *self.directory.glob(".*.tmp")]:  # .tmp: older writes
            try:
                f.unlink()
            except FileNotFoundError:
                continue
            removed += not f.name.startswith(".")
        return removed

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry stored under ``key``, or None when there is none or it cannot be read
        (missing, truncated, corrupt, another format, another key): the caller trains again."""
        try:
            entry = json.loads(read_input_file(self.path(key), what="a model-cache entry", max_bytes=MAX_FILE_BYTES))
        except (OSError, ValueError):  # ValueError: not a regular file, too large, not JSON
            return None
        if not isinstance(entry, dict) or entry.pop("checksum", None) != _checksum(entry) \
                or entry.get("format") != FORMAT_VERSION or entry.get("key") != key or not isinstance(entry.get("kind"), str):
            return None
        return entry

    def put(self, key: str, entry: Mapping[str, Any]) -> None:
        """Store ``entry`` under ``key`` atomically (:func:`korean_bpe.files.atomic_write_text`);
        a directory that cannot be written costs the cache, never the run (the error is swallowed)."""
        from ..files import atomic_write_text

        # ASCII JSON: a lone surrogate (a text's, kept in a syllable model's alphabet) is written as
        # its \udXXX escape and read back as it was; raw, it cannot be encoded as UTF-8
        body = {**entry, "format": FORMAT_VERSION, "key": key}
        text = json.dumps({**body, "checksum": _checksum(body)})
        try:
            atomic_write_text(self.path(key), text)
        except (OSError, ValueError):  # ValueError: atomic_write refuses a path under a file
            pass
