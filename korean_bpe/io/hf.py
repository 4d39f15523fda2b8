"""Export a :class:`korean_bpe.Tokenizer` as a Hugging Face ``tokenizer.json`` or a complete folder.

The file loads with ``tokenizers.Tokenizer.from_file(path)`` and with
``transformers.PreTrainedTokenizerFast(tokenizer_file=path)`` and gives the same ids as ours, and
decodes to our text.  A folder (:func:`export_folder`: the file, ``tokenizer_config.json`` and
``special_tokens_map.json``) loads with ``AutoTokenizer.from_pretrained(folder)`` and in HF's
clients in other languages.  It is written as plain JSON (the format of ``tokenizers`` 0.19-0.23:
``"version": "1.0"``, merges as ``[left, right]`` pairs), so exporting needs no ``tokenizers`` install.

How each part of our pipeline maps to HF stages:

============================ ===========================================================
ours                         ``tokenizer.json``
============================ ===========================================================
``raw`` pre-tokenizer        ``Replace(" ", "▁")`` normalizer + ``Split`` on line breaks
                             (each line break a piece of its own, ``isolated``);
``add_dummy_prefix``         ``Prepend("▁")`` + a ``▁`` after each line break (normalizers);
                             decoder: a regex ``Replace`` drops them after ``Fuse``
``split_by_whitespace``      ``Metaspace(split=True, prepend_scheme="never")``: a piece
                             starts at each ``▁``
``whitespace``               ``Replace`` of every run of Python white space by one space
                             (Python's ``str.split`` set, which is wider than Rust's) +
                             ``Split`` at the spaces (not ``WhitespaceSplit``: the
                             JavaScript client's splits at U+FEFF too)
unit ``syllable``            nothing (HF BPE splits a piece into characters)
unit ``jamo``                68 regex ``Replace`` normalizers that decompose the 11,172
                             Hangul syllables and nothing else, and 827 ``Replace``
                             decoders that compose them back
                             (:mod:`korean_bpe.io.hf_jamo`; not ``Precompiled``, which
                             the JavaScript client reads as NFKC)
unit ``byte``                ``ByteLevel(add_prefix_space=False, use_regex=False)`` and the
                             ``ByteLevel`` decoder (the same GPT-2 byte table)
marker ``"▁"``               a regex ``Replace`` that strips Rust's white space +
                             ``Prepend("▁")`` (taken back from an empty text, where the
                             JavaScript client prepends too) + ``Replace(" ", " ▁")``
                             normalizers (syllable, jamo) or ``Metaspace`` after
                             ``ByteLevel`` (byte)
marker ``"</w>"``            BPE ``end_of_word_suffix``
marker ``"##"``              BPE ``continuing_subword_prefix`` (merged tokens renamed
                             ``가##나`` -> ``가나`` as HF names them; ids unchanged)
``byte_fallback=True``       BPE ``byte_fallback`` + ``ByteFallback`` decoder; the 256
                             ``<0xNN>`` tokens are ordinary vocabulary (as SentencePiece
                             exports them), so ``decode(ids, skip_special_tokens=True)``
                             keeps the characters that went through byte fallback
special tokens               ``added_tokens`` (``special: true``), byte tokens excepted
``encode(dropout=p)``        BPE ``dropout`` when exported with ``dropout=p``
                             (``Tokenizer.to_huggingface(path, dropout=0.1)``): a
                             training-time option, so it is not taken from the tokenizer
``encode_with_offsets``      the ``offsets`` HF computes (``return_offsets_mapping``): the
                             same spans for ``raw`` (every unit) and ``whitespace``
                             (syllable, jamo); see :meth:`korean_bpe.Tokenizer.encode_with_offsets`
                             (:class:`korean_bpe.hf.KoreanBPETokenizerFast` gives ours for all)
============================ ===========================================================

HF's own ``Metaspace`` prepend (``prepend_scheme="always"``/``"first"``) and decoder are not used
for ``raw``'s dummy prefix: the prepend skips a piece that already starts with ``▁``, so
``" 영화"`` would lose its leading space (SentencePiece and ``raw`` give ``['▁', '▁영화']``), and
the decoder drops every ``▁`` of the first token only, not the one opening each line.

Where HF cannot follow exactly (the ids differ only in these cases):

* unit ``jamo``: the ids are exact; composing on decode takes 827 ``Replace`` passes: HF decodes
  a jamo model about a hundred times more slowly than the other units, and the decomposing
  normalizers make its encoding several times slower (see docs/API.md).
* HF's JavaScript client (``@huggingface/tokenizers`` 0.2.0, transformers.js) gives our ids for
  every pipeline above and our text, but a U+FEFF that went through byte fallback at the start
  of a run of byte tokens: its ``ByteFallback`` decoder drops it (a default ``TextDecoder``).
* ``byte_fallback=True`` with marker ``"</w>"`` or ``"##"``: HF turns an unknown character into the
  bytes of the character *with* the marker (``<0x23><0x23>...`` for ``##X``).
* ``hangul_fallback=True``: HF's BPE has no such fallback: a syllable outside the vocabulary is
  ``<unk>`` (or its bytes with ``byte_fallback``) in HF, jamo tokens in ours.
* Offsets: ``whitespace`` with the byte unit (HF's ``▁`` word marker covers no space).
* Text that literally contains a special token (``"<unk>"``) gets that token's id from HF; ours
  refuses it by default and encodes it as ordinary text with ``disallowed_special=()`` (see
  :mod:`korean_bpe.tokenizer`).  The byte tokens' text (``"<0x41>"``) is ordinary text in HF too.

Morpheme pre-tokenizers (``okt``, ``kiwi``, ``mecab``) are analysis run in Python, which no HF
client can do: a ``tokenizer.json`` would give other ids than ours on text, so the export is
refused with the fix (:func:`analysis_refusal`): :class:`korean_bpe.hf.KoreanBPETokenizerFast`
runs the analysis (``korean-bpe export-hf -m MODEL -o DIR/`` writes its folder).  On request,
``pretokenized=True`` writes a file for words that our analysis already cut (each word whole to
BPE, a lossless line-break piece too; decode puts lossless mode's spaces back)::

    words = tok.pre_tokenizer(text)                          # our analysis
    hf.encode(words, is_pretokenized=True).ids               # == tok.encode(text)
    fast(words, is_split_into_words=True)["input_ids"]       # transformers

>>> from korean_bpe.trainer import BPEModel
>>> hf_token_names(BPEModel((), ("가", "##나"), (("가", "##나"),)), marker="##")
('가', '##나', '가나')
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..markers import SPACE_MARK, get_marker, pieces_keep_spaces
from ..pre_tokenizers.base import LINE_BREAKS
from .format import BYTE_TOKENS, SURROGATE
from .hf_jamo import jamo_normalizers, recompose_decoders

__all__ = ["export_tokenizer_json", "export_folder", "tokenizer_json", "tokenizer_config", "special_tokens_map",
           "hf_token_names", "analysis_refusal", "holds_wrapper", "PY_WHITESPACE", "MODEL_SUBDIR"]

#: every character Python's ``str.split()`` splits on (``chr(c).isspace()``)
PY_WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())

_ANALYZED_PRE_TOKENIZERS = ("okt", "kiwi", "mecab")


#: the directory, inside a :class:`korean_bpe.hf.KoreanBPETokenizerFast` ``save_pretrained``
#: folder, that holds our own model files
MODEL_SUBDIR = "korean_bpe"


def analysis_refusal(tokenizer: Any) -> str:
    """Why a stock ``tokenizer.json`` of a model whose pre-tokenizer runs an analyzer (Okt, Kiwi,
    MeCab) is refused, and what to do instead."""
    name = _name(tokenizer.pre_tokenizer)
    return (f"the {name!r} pre-tokenizer runs {name}'s morpheme analysis in Python, which no Hugging Face client "
            "can run: a tokenizer.json of this model would give other ids than ours on text. For our ids in "
            "transformers, save the tokenizer that runs the analysis: "
            "korean_bpe.hf.KoreanBPETokenizerFast.from_korean_bpe(tok).save_pretrained(dir) (CLI: korean-bpe "
            "export-hf -m MODEL -o DIR/), and load it with KoreanBPETokenizerFast.from_pretrained(dir) or "
            "transformers.AutoTokenizer.from_pretrained(dir, trust_remote_code=True), korean_bpe installed; for a "
            "tokenizer.json that takes the words of our analysis (tok.pre_tokenizer(text), encoded with "
            "is_pretokenized=True / is_split_into_words=True), pass pretokenized=True")


def holds_wrapper(path: str | os.PathLike[str]) -> bool:
    """Whether the directory ``path`` is a :class:`korean_bpe.hf.KoreanBPETokenizerFast` folder
    (``save_pretrained``: our model in its ``korean_bpe/`` subfolder)."""
    from .serialization import CONFIG_FILE

    return (Path(path) / MODEL_SUBDIR / CONFIG_FILE).is_file()


def _char_class(chars: str) -> str:
    """A regex character class for ``chars``, each written as ``\\x{..}`` (Oniguruma syntax)."""
    return "[" + "".join(f"\\x{{{ord(c):x}}}" for c in chars) + "]"


def _name(obj: Any) -> str:
    if isinstance(obj, str):
        return obj
    name = getattr(obj, "name", None)
    if isinstance(name, str) and name:
        return name
    return str(obj.to_config()["type"])


def hf_token_names(model: Any, *, marker: str | None) -> tuple[str, ...]:
    """Our tokens (in id order) as HF's BPE names them.

    HF drops the prefix of the right part when it merges (``가`` + ``##나`` -> ``가나``); a model
    trained with ``continuing_subword_prefix="##"`` names its tokens so already, an older model
    that concatenated (``가##나``) is renamed here (same ids).
    """
    ours = tuple(model.id_to_token)
    prefix = get_marker(marker).continuing_prefix
    if prefix is None or getattr(model, "continuing_subword_prefix", None) == prefix:  # already HF's names
        return ours
    names: dict[str, str] = {}
    for tok in (*model.special_tokens, *model.alphabet):
        names.setdefault(tok, tok)
    for left, right in model.merges:
        if not right.startswith(prefix):
            raise ValueError(
                f"merge ({left!r}, {right!r}) has a right part without the {prefix!r} prefix, which HF's "
                f"continuing_subword_prefix cannot load; train with marker={prefix!r} so that every "
                "non-first symbol carries it"
            )
        names.setdefault(left + right, names.get(left, left) + names.get(right, right)[len(prefix):])
    out = tuple(names.get(t, t) for t in ours)
    if len(set(out)) != len(out):
        seen: set[str] = set()
        dup = next(t for t in out if t in seen or seen.add(t))  # type: ignore[func-returns-value]
        raise ValueError(f"token {dup!r} would appear twice in the HF vocabulary (marker={prefix!r} renaming)")
    return out


def tokenizer_json(tokenizer: Any, *, pretokenized: bool = False, dropout: float | None = None,
                   compose_jamo: bool = True) -> dict[str, Any]:
    """The ``tokenizer.json`` content (a dict) for ``tokenizer``; see the module docstring.

    ``pretokenized=True`` (morpheme pre-tokenizers only): the file is for words that our analysis
    already cut (``encode(words, is_pretokenized=True)``, as :mod:`korean_bpe.hf` feeds it), so
    it has no white-space stage: each word goes to BPE whole, a lossless line-break piece included.
    ``dropout``: HF BPE's ``dropout`` probability (``None``: none).  ``compose_jamo=False``
    (unit ``jamo``): no composing decoders, so HF decodes about a hundred times faster but gives
    conjoining jamo back (``unicodedata.normalize("NFC", ...)`` composes them).

    Which HF stages stand for ours follows what our stages declare: the unit's
    ``compiled_symbols`` (``"chars"``, ``"jamo"``: syllables decomposed by the Unicode arithmetic,
    ``"bytes"``: GPT-2's byte level), the pre-tokenizer's ``piece_kind`` and ``pos`` (marked pieces
    of the text itself, no analysis: SentencePiece's cut, ``raw``; ``add_dummy_prefix``), the marker's
    own HF stages (:mod:`korean_bpe.markers`).
    """
    if dropout is not None and (isinstance(dropout, bool) or not isinstance(dropout, (int, float))
                                or not 0.0 < dropout <= 1.0):
        raise ValueError(f"dropout must be None or a probability in (0, 1] (HF refuses 0), got {dropout!r}")
    symbols = getattr(tokenizer.unit, "compiled_symbols", None)
    if symbols not in ("chars", "jamo", "bytes"):
        raise ValueError(f"unit {_name(tokenizer.unit)!r} has no HF equivalent; use 'syllable', 'jamo' or 'byte'")
    mark = get_marker(tokenizer.marker)
    pt = tokenizer.pre_tokenizer
    if pt.pos is not None and not pretokenized:
        raise ValueError(analysis_refusal(tokenizer))
    raw = pt.piece_kind == "marked" and pt.pos is None  # the text's own marked pieces: SentencePiece's cut
    byte, byte_fallback = symbols == "bytes", tokenizer.byte_fallback
    vocab, merges, rename, unk = _hf_vocab(tokenizer)
    normalizers, pre_tokenizers = _hf_cut(pt, mark, raw=raw, byte=byte, jamo=symbols == "jamo",
                                          pretokenized=pretokenized)
    decoders = _hf_decoders(mark, raw=raw, spaces=pieces_keep_spaces(pt), byte=byte, byte_fallback=byte_fallback,
                            dummy_prefix=raw and pt.add_dummy_prefix, compose=symbols == "jamo" and compose_jamo)
    # The byte tokens are ordinary vocabulary, as SentencePiece exports them: as added special
    # tokens, HF's default decode (skip_special_tokens) would delete every byte-fallback character.
    byte_tokens = set(BYTE_TOKENS) if byte_fallback else set()
    added = [
        {"id": vocab[rename[t]], "content": rename[t], "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True}
        for t in tokenizer.model.special_tokens
        if t in rename and t not in byte_tokens
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": _sequence("normalizers", normalizers),
        "pre_tokenizer": _sequence("pretokenizers", pre_tokenizers),
        "post_processor": None,
        "decoder": _sequence("decoders", decoders),
        "model": {
            "type": "BPE",
            "dropout": None if dropout is None else float(dropout),
            "unk_token": unk,
            **mark.hf_model(),
            "fuse_unk": False,
            "byte_fallback": byte_fallback,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": merges,
        },
    }


def _hf_vocab(tokenizer: Any) -> tuple[dict[str, int], list[list[str]], dict[str, str], str | None]:
    """``(vocab, merges, rename, unk)`` under HF's token names (:func:`hf_token_names`); a token
    HF cannot hold (a lone surrogate) and missing byte tokens are refused."""
    model = tokenizer.model
    names = hf_token_names(model, marker=tokenizer.marker)
    bad = next((m for m in map(SURROGATE.search, names) if m is not None), None)
    if bad is not None:
        raise ValueError(
            f"the token {bad.string!r} holds a lone surrogate (U+{ord(bad.group()):04X}), which a "
            "Hugging Face tokenizer cannot hold (its strings are UTF-8); train on text without lone surrogates "
            "(read it with errors='replace', or clean it: text.encode('utf-8', 'replace').decode()), or keep "
            "this model in korean_bpe's own files (Tokenizer.save)")
    rename = dict(zip(model.id_to_token, names))
    vocab = {tok: i for i, tok in enumerate(names)}
    merges = [[rename[a], rename[b]] for a, b in model.merges]
    unk = tokenizer.unk_token if tokenizer.unk_token in vocab else None
    if tokenizer.byte_fallback:
        missing = [t for t in BYTE_TOKENS if t not in vocab]
        if missing:
            raise ValueError(f"byte_fallback needs the 256 byte tokens in the vocabulary; {missing[0]!r} is missing")
    return vocab, merges, rename, unk


def _hf_cut(pt: Any, mark: Any, *, raw: bool, byte: bool, jamo: bool,
            pretokenized: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The normalizers and pre-tokenizers that cut the text as ``pt``, the unit and the marker do."""
    normalizers: list[dict[str, Any]] = []
    pre_tokenizers: list[dict[str, Any]] = []
    if raw:
        if mark.word_start == SPACE_MARK:
            raise ValueError("the raw pre-tokenizer writes spaces as '▁' itself: marker '▁' cannot be exported")
        line_break = _char_class(LINE_BREAKS)
        normalizers.append(_replace(" ", SPACE_MARK))
        if pt.add_dummy_prefix:
            # A "▁" opening each non-empty line.  Not HF's Metaspace prepend, which skips a piece
            # that starts with a space; and not one zero-width regex Replace, which makes HF's
            # ByteLevel panic: Prepend, take it back before a line break, add it after each one.
            not_line_break = "[^" + line_break[1:]
            normalizers.append({"type": "Prepend", "prepend": SPACE_MARK})
            normalizers.append(_replace({"Regex": f"\\A{SPACE_MARK}(?={line_break})"}, ""))
            normalizers += [_replace({"Regex": f"{_char_class(c)}(?={not_line_break})"}, c + SPACE_MARK) for c in LINE_BREAKS]
        pre_tokenizers.append({"type": "Split", "pattern": {"Regex": line_break}, "behavior": "Isolated", "invert": False})
        if pt.to_config().get("split_by_whitespace", False):
            pre_tokenizers.append({"type": "Metaspace", "replacement": SPACE_MARK, "prepend_scheme": "never", "split": True})
    elif pretokenized:
        if pt.pos is None:
            raise ValueError(f"pretokenized=True is for the morpheme pre-tokenizers {_ANALYZED_PRE_TOKENIZERS}; "
                             f"{_name(pt)!r} runs inside tokenizer.json itself: use pretokenized=False")
    else:  # whitespace
        normalizers.append(_replace({"Regex": _char_class(PY_WHITESPACE) + "+"}, " "))
        # not WhitespaceSplit: HF's JavaScript client splits on its own white space (U+FEFF too)
        pre_tokenizers.append({"type": "Split", "pattern": {"Regex": " "}, "behavior": "Removed", "invert": False})
    normalizers += mark.hf_normalizers(raw=raw, byte=byte)
    if jamo:  # last: the stages above touch no syllable; after a stage that inserts, HF's Strip panics
        normalizers += jamo_normalizers()
    if byte:
        pre_tokenizers.append(_BYTE_LEVEL)
    pre_tokenizers += mark.hf_pre_tokenizers(raw=raw, byte=byte)
    return normalizers, pre_tokenizers


def _hf_decoders(mark: Any, *, raw: bool, spaces: bool, byte: bool, byte_fallback: bool, dummy_prefix: bool,
                 compose: bool) -> list[dict[str, Any]]:
    """The decoders that give our text back.  They work token by token until a Fuse or ByteLevel
    joins them, so the markers are resolved first.  (HF's Metaspace decoder drops every "▁" of its
    first token and its Strip decoder panics on an empty token with stop > 0: neither is used where
    it would bite.)"""
    decoders: list[dict[str, Any]] = []
    if not byte and byte_fallback:
        decoders.append({"type": "ByteFallback"})  # <0xEA><0xB0><0x80> -> "가" (with its marker)
    decoders += mark.hf_token_decoders(raw=raw, byte=byte, byte_fallback=byte_fallback)
    decoders.append(_BYTE_LEVEL if byte else {"type": "Fuse"})
    if dummy_prefix:  # one string now: drop the "▁" opening it and each line
        decoders.append(_replace({"Regex": f"\\A{SPACE_MARK}|(?<={_char_class(LINE_BREAKS)}){SPACE_MARK}"}, ""))
    if spaces:  # pieces that keep their spaces as "▁" (raw, lossless analysis): the spaces back
        decoders.append(_replace(SPACE_MARK, " "))
    decoders += mark.hf_text_decoders(raw=raw, byte=byte)
    if compose:
        decoders += recompose_decoders()
    return decoders


#: GPT-2's byte level, as the byte unit spells bytes
_BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}


TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
SPECIAL_TOKENS_MAP_FILE = "special_tokens_map.json"
#: HF's role names for the special tokens known by their usual text
_ROLES = {"<unk>": "unk_token", "[UNK]": "unk_token", "<pad>": "pad_token", "[PAD]": "pad_token", "<s>": "bos_token",
          "</s>": "eos_token", "[CLS]": "cls_token", "[SEP]": "sep_token", "<mask>": "mask_token", "[MASK]": "mask_token"}


def render_tokenizer_json(tokenizer: Any, *, dropout: float | None = None, compose_jamo: bool = True,
                          pretokenized: bool = False) -> str:
    """The text of ``tokenizer.json`` (what :func:`export_tokenizer_json` writes, e.g. to standard output)."""
    content = tokenizer_json(tokenizer, dropout=dropout, compose_jamo=compose_jamo, pretokenized=pretokenized)
    return json.dumps(content, ensure_ascii=False, indent=2) + "\n"


def export_tokenizer_json(tokenizer: Any, path: str | os.PathLike[str], *, dropout: float | None = None,
                          compose_jamo: bool = True, pretokenized: bool = False) -> Path:
    """Write ``tokenizer`` as a Hugging Face ``tokenizer.json`` at ``path`` (atomically).

    ``path`` may be a directory (an existing one, or a path ending with ``/``): it gets a complete
    HF tokenizer folder (:func:`export_folder`), except a directory that holds a saved korean_bpe
    model, whose ``tokenizer_config.json`` is the model's own: it gets ``tokenizer.json`` alone,
    beside the model files; a :class:`korean_bpe.hf.KoreanBPETokenizerFast` folder is refused (its
    ``tokenizer.json`` and ``tokenizer_config.json`` are the wrapper's).  Returns the ``tokenizer.json`` path.
    A model whose pre-tokenizer runs an analyzer (Okt, Kiwi, MeCab) is refused, with the fix
    (:func:`analysis_refusal`), unless ``pretokenized=True``: a file for the words of our analysis.
    A symbolic link is written through to its target; a FIFO or device is refused; a new file
    gets the umask's mode, a replaced one keeps its own (:func:`korean_bpe.files.atomic_write_text`).
    See the module docstring for the mapping and the few cases where HF cannot follow.

    >>> import tempfile, korean_bpe
    >>> tok = korean_bpe.Tokenizer.train(["아이언맨 또 보고 싶다", "또 보고 싶다"] * 3, vocab_size=40)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = export_tokenizer_json(tok, d + "/tokenizer.json")
    ...     from tokenizers import Tokenizer as HF
    ...     HF.from_file(str(p)).encode("또 보고 싶다").ids == tok.encode("또 보고 싶다")
    True
    """
    from ..files import atomic_write_text

    _refuse_wrapper(path)
    if is_folder(path) and not holds_model(path):
        return export_folder(tokenizer, path, dropout=dropout, compose_jamo=compose_jamo,
                             pretokenized=pretokenized) / TOKENIZER_FILE
    target = Path(path) / TOKENIZER_FILE if is_folder(path) else Path(path)
    text = render_tokenizer_json(tokenizer, dropout=dropout, compose_jamo=compose_jamo, pretokenized=pretokenized)
    return atomic_write_text(target, text)


def _refuse_wrapper(path: str | os.PathLike[str]) -> None:
    if is_folder(path) and holds_wrapper(path):
        raise ValueError(f"{path} is a KoreanBPETokenizerFast folder (save_pretrained: its model in {MODEL_SUBDIR}/), whose "
                         "tokenizer.json and tokenizer_config.json a stock export would replace, so that "
                         "AutoTokenizer.from_pretrained(..., trust_remote_code=True) loaded other ids; export to "
                         "another folder")


def holds_model(path: str | os.PathLike[str]) -> bool:
    """Whether the directory ``path`` holds a saved korean_bpe model (its three files)."""
    from .serialization import FILES

    return all((Path(path) / name).is_file() for name in FILES)


def is_folder(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a folder to export into: an existing directory, or a path written
    with a trailing ``/``."""
    return Path(path).is_dir() or os.fspath(path).endswith(("/", os.sep))


def export_folder(tokenizer: Any, directory: str | os.PathLike[str], *, dropout: float | None = None,
                  compose_jamo: bool = True, pretokenized: bool = False) -> Path:
    """Write a complete Hugging Face tokenizer folder: ``tokenizer.json``, ``tokenizer_config.json``
    (:func:`tokenizer_config`) and ``special_tokens_map.json``, all or none (the folder is created
    when missing; a full disk changes nothing in it: :func:`korean_bpe.files.staged_dir`).
    ``AutoTokenizer.from_pretrained(directory)`` and HF's clients in other languages load it with
    our ids and decode it exactly.  Returns the folder.

    >>> import tempfile, korean_bpe
    >>> tok = korean_bpe.Tokenizer.train(["아이언맨 또 보고 싶다", "또 보고 싶다"] * 3, vocab_size=40)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     sorted(p.name for p in export_folder(tok, d).iterdir())
    ['special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json']
    """
    from ..files import atomic_write_text, staged_dir

    folder = Path(directory)
    if holds_model(folder):  # its tokenizer_config.json is our model's own
        raise ValueError(f"{folder} holds a korean_bpe model (vocab.json, merges.txt, tokenizer_config.json), whose "
                         f"tokenizer_config.json the HF folder's would replace; export to another folder, or write "
                         f"the single file {folder / TOKENIZER_FILE} (a path without the trailing '/')")
    _refuse_wrapper(f"{folder}/")
    text = render_tokenizer_json(tokenizer, dropout=dropout, compose_jamo=compose_jamo, pretokenized=pretokenized)
    with staged_dir(folder) as stage:  # the three files or none: a full disk leaves no half folder
        atomic_write_text(stage / TOKENIZER_FILE, text)
        for name, content in ((TOKENIZER_CONFIG_FILE, tokenizer_config(tokenizer)),
                              (SPECIAL_TOKENS_MAP_FILE, special_tokens_map(tokenizer))):
            atomic_write_text(stage / name, json.dumps(content, ensure_ascii=False, indent=2) + "\n")
    return folder


def special_tokens_map(tokenizer: Any) -> dict[str, Any]:
    """The special tokens by HF's role names: ``unk_token`` (the model's), the usual texts of the
    others (``<pad>``/``[PAD]`` -> ``pad_token``, ``<s>``, ``</s>``, ``[CLS]``, ``[SEP]``,
    ``<mask>``/``[MASK]``), the rest as ``additional_special_tokens``.

    >>> from korean_bpe import Tokenizer
    >>> special_tokens_map(Tokenizer.train(["영화 최고"] * 2, vocab_size=12, special_tokens=("<unk>", "<pad>", "<x>")))
    {'unk_token': '<unk>', 'pad_token': '<pad>', 'additional_special_tokens': ['<x>']}
    """
    unk = getattr(tokenizer, "unk_token", None)
    out: dict[str, Any] = {} if unk is None else {"unk_token": unk}
    extra = []
    for token in tokenizer.special_tokens:
        role = _ROLES.get(token)
        if token == unk:
            continue
        if role is not None and role not in out:
            out[role] = token
        else:
            extra.append(token)
    if extra:
        out["additional_special_tokens"] = extra
    return out


def tokenizer_config(tokenizer: Any) -> dict[str, Any]:
    """``tokenizer_config.json`` for the stock ``PreTrainedTokenizerFast``: its class, the special
    tokens (:func:`special_tokens_map`, and each one's ``added_tokens_decoder`` entry) and
    ``clean_up_tokenization_spaces: false`` (a client that defaults to ``true``, such as HF's
    JavaScript tokenizers or older transformers, would turn ``"영화 ,"`` into ``"영화,"``)."""
    from .. import __version__

    vocab = tokenizer.vocab
    added = {str(vocab[t]): {"content": t, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False,
                             "special": True} for t in tokenizer.special_tokens}
    return {"tokenizer_class": "PreTrainedTokenizerFast", "clean_up_tokenization_spaces": False,
            "added_tokens_decoder": added, **special_tokens_map(tokenizer), "korean_bpe_version": __version__}


def _replace(pattern: str | dict[str, str], content: str) -> dict[str, Any]:
    pat = {"String": pattern} if isinstance(pattern, str) else pattern
    return {"type": "Replace", "pattern": pat, "content": content}


def _sequence(key: str, stages: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    if not stages:
        return None
    if len(stages) == 1:
        return dict(stages[0])
    return {"type": "Sequence", key: list(stages)}
