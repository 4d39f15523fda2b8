"""``okt``: konlpy's Okt (Open Korean Text) morpheme analyzer on the real JVM.

>>> okt = OktPreTokenizer()
>>> okt("스파이더맨, 슈퍼맨, 배트맨, 아이언맨은 올해 최고의 영화가 아닐까 생각함")
['스파이더맨', '슈퍼맨', '배트맨', '아이언맨', '올해', '최고', '영화', '아닐까', '생각', '함']

The default ``drop=("Josa", "Punctuation", "Foreign")`` is the classic pre-processing for
analysis (particles, punctuation and symbols go).  ``drop=()`` keeps every morpheme;
``lossless=True`` (which implies ``drop=()``) also records where the spaces were, so that
``restore`` gives the text back:

>>> lossless = OktPreTokenizer(lossless=True)
>>> lossless("아이언맨은 올해 최고!")
['아이언맨', '은', '▁올해', '▁최고', '!']
>>> lossless.restore(lossless("아이언맨은 올해 최고!"))
'아이언맨은 올해 최고!'

``norm`` and ``stem`` rewrite surfaces (``됔ㅋㅋ`` -> ``돼``, ``봤는데`` -> ``보다``): fine for
analysis, refused in lossless mode:

>>> OktPreTokenizer(stem=True)("어제 IMAX 봤는데 쩔어!")
['어제', 'IMAX', '보다', '쩔다']

White space is never a word, nor part of one: Okt reports tabs and line breaks as ``Foreign``
tokens; they are dropped in every mode (lossless mode restores them from the text, each line
break a piece of its own), and a ``Foreign`` run with white space inside (``😉\u00a0😉``) is cut
into one word per run of other characters.

Okt reads NFD Hangul (conjoining jamo) as ``Foreign``: like ``kiwi`` and ``mecab``, this
pre-tokenizer hands Okt the composed text (:func:`korean_bpe.jamo.compose`) and slices the words
out of the original, so NFD input gets the NFC analysis in NFD characters.  Lone surrogates
(which the JVM bridge cannot encode) are analysed as U+FFFD and kept in the words.  With
``norm``/``stem`` the words are Okt's rewritten (composed) surfaces.

``batch(texts)`` gives exactly ``[okt(t) for t in texts]``, fast: each distinct space-separated
piece is analysed once (:func:`space_pieces`; whole texts with ``norm``/``stem``), and within the
pieces each distinct run of Hangul where Okt cannot look across its edges (:func:`run_segments`), many go to the
JVM in one call, large batches are spread over one thread per core (all calling this process's
JVM; ``threads=False``: one worker process and JVM per core, opt-in, see
:class:`OktPreTokenizer`), and analyses are cached on disk (:mod:`korean_bpe.pre_tokenizers.cache`, keyed by the piece or text Okt was given),
so a second run over a corpus is nearly free.  See
:func:`okt_analyzer` for why joining texts cannot change the analysis.

Long runs: Okt's time grows faster than the length of a run of Hangul syllables (3,000 without
a space took 74 s), so a run longer than :data:`MAX_RUN` (100) syllables is cut into pieces
before Okt sees it (:func:`cut_long_runs`); the words still slice the text exactly, and the
analysis of NSMC reviews is unchanged but for a handful (benchmarks/README.md).

Java: Okt needs a JDK and JPype; when either is missing or broken the first analysis raises
:class:`JavaNotFoundError`, whose message says what to install.  ``whitespace``, ``raw``,
``kiwi`` and ``mecab`` need no Java.
"""

from __future__ import annotations


import importlib
import re
import importlib.metadata
import importlib.util
import sys
from collections.abc import Iterable, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

from .._gc import paused
from .._messages import one_line
from .._optional import require
from .executor import Executor
from ._analyzer import AnalyzerSpec, BatchAnalyzer
from ._sejong import WHITE_SPACE, prepare_text, split_white_space
from .base import PRE_TOKENIZERS, BasePreTokenizer, pieces_from_spans, restore_marked, spans_from_surfaces

__all__ = [
    "OktPreTokenizer", "JavaNotFoundError", "OKT_TAGS", "DEFAULT_DROP", "okt_analyzer", "okt_version", "space_pieces",
    "MAX_RUN", "cut_long_runs", "run_segments",
]

#: every part of speech Okt (open-korean-text 2.1.0, ``KoreanPos``) can report
OKT_TAGS = frozenset({
    "Noun", "Verb", "Adjective", "Adverb", "Determiner", "Exclamation", "Josa", "Eomi", "PreEomi",
    "Conjunction", "Modifier", "VerbPrefix", "Suffix", "Unknown", "Korean", "Foreign", "Number",
    "KoreanParticle", "Alpha", "Punctuation", "Hashtag", "ScreenName", "Email", "URL", "CashTag",
    "Space", "Others", "ProperNoun",
})
#: the classic analysis pre-processing: particles, punctuation, symbols/foreign script go
DEFAULT_DROP: tuple[str, ...] = ("Josa", "Punctuation", "Foreign")

#: bumped when the cached analysis format of this module changes
_FORMAT = 1

_JAVA_FIX = (
    "Okt runs on a Java VM through konlpy and JPype. Install a JDK (Java 8 or newer), e.g. "
    "`sudo apt install openjdk-17-jdk` (Debian/Ubuntu) or `brew install openjdk@17` (macOS), "
    "and if it is still not found set JAVA_HOME to its directory "
    "(e.g. `export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64`). "
    "The pre-tokenizers 'whitespace', 'raw', 'kiwi' and 'mecab' work without Java."
)


class JavaNotFoundError(RuntimeError):
    """Okt cannot run: no Java found, the JVM failed to start, or JPype is missing or broken.

    The message says what to install; ``cause`` keeps the original exception for debugging.
    """

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause

    def __reduce__(self) -> tuple[Any, ...]:  # picklable across worker processes
        return (type(self), (self.args[0], None))


def _start_okt() -> Any:
    """konlpy's ``Okt()``, starting the JVM in this process if needed; one clear error otherwise."""
    try:
        jpype = importlib.import_module("jpype")
    except Exception as exc:  # ImportError, or an OSError from a broken native module
        raise JavaNotFoundError(
            f"JPype, the Python-Java bridge Okt needs, cannot be imported ({one_line(exc, named=True)}). "
            "Install or repair it with `pip install --force-reinstall JPype1`. " + _JAVA_FIX,
            exc,
        ) from None
    require("konlpy")  # MissingDependencyError with the pip line when absent
    if not jpype.isJVMStarted():
        try:
            jvmpath = jpype.getDefaultJVMPath()
        except Exception as exc:
            raise JavaNotFoundError(f"No Java runtime was found ({one_line(exc, named=True)}). " + _JAVA_FIX, exc) from None
        try:
            from konlpy import jvm

            jvm.init_jvm(jvmpath)
        except Exception as exc:
            raise JavaNotFoundError(
                f"The Java VM {jvmpath!r} failed to start ({one_line(exc, named=True)}). " + _JAVA_FIX, exc
            ) from None
        _settle_jvm()
        _unlink_jpype_gc()
    try:
        from konlpy.tag import Okt

        return Okt()
    except Exception as exc:
        raise JavaNotFoundError(
            f"The Java VM is running but konlpy's Okt classes could not be loaded ({one_line(exc, named=True)}); "
            "if this process started the JVM itself, start it through konlpy.jvm.init_jvm() instead, "
            "or reinstall konlpy. " + _JAVA_FIX,
            exc,
        ) from None


def _settle_jvm() -> None:
    """Right after this process's JVM starts: the process ends as it would without a JVM.

    * Signals: the JVM takes SIGINT and SIGTERM over when it starts.  In a script, Java's own
      handlers end the process (status 130 or 143) without running Python's: ``korean-bpe``'s
      SIGTERM handler, which stops worker processes and leaves nothing half written, never ran
      once Okt had started.  In an interactive session (IPython, Jupyter: JPype's
      ``interrupt=False``), JPype's handlers pass the signal on with ``PyErr_SetInterruptEx``
      from a Java thread that holds no Python thread state; when Python's handler is the default
      one, CPython 3.11 compares handler objects there and the process dies of SIGSEGV, leaving
      an ``hs_err_pid*.log``: the end of a Jupyter kernel that its shutdown sends SIGTERM
      (notebooks/compare_strategies.ipynb).  So Python's handlers go back in place (only the main
      thread may set them): SIGTERM terminates or runs Python's handler, Ctrl-C raises
      KeyboardInterrupt.  From another thread, SIGTERM goes back to the system's default when
      Python had it.
    * A JVM started from another thread: that thread is the JVM's non-daemon "main" thread, and
      JPype's shutdown at exit waited for it for ever (the process never ended).  It is
      detached now; its next Java call attaches it again, as a daemon like every other thread.
    """
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        for name in ("SIGINT", "SIGTERM"):
            sig = getattr(signal, name, None)
            handler = signal.getsignal(sig) if sig is not None else None
            if handler is not None:  # None: a handler set outside Python, left alone
                signal.signal(sig, handler)
        return
    jpype = importlib.import_module("jpype")
    if getattr(signal, "SIGTERM", None) is not None and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        try:
            java_signal = jpype.JClass("sun.misc.Signal")
            java_signal.handle(java_signal("TERM"), jpype.JClass("sun.misc.SignalHandler").SIG_DFL)
        except Exception:  # pragma: no cover - a JVM without sun.misc.Signal: Java keeps SIGTERM
            pass
    jpype.java.lang.Thread.detach()


def _unlink_jpype_gc() -> None:
    """Right after this process's JVM starts: Python's collector runs as it would without a JVM.

    JPype links the two collectors with ``_jpype._collect`` in ``gc.callbacks``: at the start and
    the end of *every* Python collection (a young one every 700 container objects made) it reads
    glibc's malloc statistics (``mallinfo``, a walk over every free block of the heap), and when
    they grew it runs Java's ``System.gc()``, a full collection of Okt's heap.  In a process that
    had started Okt, ``Tokenizer.encode_batch`` on 150,000 reviews took 0.70 s instead of 0.28, and
    on a fragmented heap (a long session, a test worker) plain Python code ran over a thousand
    times slower: 39.9 s against 0.03 s for two ``list(d.items())`` of 100,000 entries
    (benchmarks/bench_jvm_gc.py; JPype issues 1197 and 1315).  Passing it only the full
    collections still ran a Java collection at nearly every one.  So the callback is taken out:
    Okt's Java objects live for one call and are released when Python drops them, and Java
    collects its own heap when it fills.  A JVM started by someone else is left as it is."""
    import gc

    collect = getattr(sys.modules.get("_jpype"), "_collect", None)
    if collect is not None:
        gc.callbacks[:] = [cb for cb in gc.callbacks if cb is not collect]


def okt_version() -> str:
    """``"konlpy 0.6.0; open-korean-text 2.1.0; format 1"``: what the cache is keyed on.

    Read from package metadata and the jar's file name, without starting the JVM.
    """
    try:
        konlpy_version = importlib.metadata.version("konlpy")
    except importlib.metadata.PackageNotFoundError:
        konlpy_version = "absent"
    jar = "unknown"
    spec = importlib.util.find_spec("konlpy")
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            found = sorted(Path(loc, "java").glob("open-korean-text-*.jar"))
            if found:
                jar = found[-1].name[len("open-korean-text-") : -len(".jar")]
                break
    return f"konlpy {konlpy_version}; open-korean-text {jar}; format {_FORMAT}"


# -- the analysis: many texts per JVM call -------------------------------------------------------

#: a private-use character: its own Okt ``Foreign`` token when surrounded by spaces
_SEP_CHAR = "\ue000"
_SEP = f" {_SEP_CHAR} "
_SEP_TOKEN = f"{_SEP_CHAR}/Foreign"
#: joins the token strings of one JVM answer into one Java string (one crossing instead of many)
_TOKEN_JOIN = "\x00"
#: Java's ``\s`` (what Okt splits on) minus the space: Okt makes Foreign tokens of these
_JAVA_WS_NOT_SPACE = "\t\n\x0b\x0c\r"
_JAVA_WS = " " + _JAVA_WS_NOT_SPACE
#: white space that Okt drops together with the word it opens (``"\u3000영화"`` gives no token,
#: ``"x\u3000영화"`` gives ``x``, ``\u3000``, ``영화``): Python's white space that is neither
#: Java's ``\s`` nor a control character Okt keeps as ``Foreign``.  The text Okt sees has a space
#: in its place (:func:`_okt_prepare`); a word never holds white space, so no word changes.
_OKT_DROPS = "\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_OKT_DROPS_RE = re.compile(f"[{_OKT_DROPS}]")
_OKT_DROPS_TO_SPACE = str.maketrans(dict.fromkeys(_OKT_DROPS, " "))
#: texts and characters per joined JVM call
_JOIN_TEXTS = 500
_JOIN_CHARS = 50_000
#: space-free pieces per space-joined JVM call (see :func:`okt_analyzer`)
_JOIN_PIECES = 2000
#: the longest run of Hangul syllables that Okt is given in one piece (see :func:`cut_long_runs`)
MAX_RUN = 100
#: syllables that end a sentence or a word in reviews: a cut right after one is preferred
_ENDINGS = frozenset("다요음함임죠네")


def cut_long_runs(text: str, *, limit: int = MAX_RUN) -> list[str]:
    """``text`` cut into consecutive segments (``"".join(segments) == text``) so that no run of
    Hangul syllables is longer than ``limit``; a text without such a run comes back whole.

    Okt's time grows faster than the length of a Korean chunk (a run of Hangul syllables: it
    parses each one as a whole; other scripts, punctuation and ``ㅋㅋ`` are cut out by patterns,
    in linear time): 1,000 syllables without a space took 8.5 s, 3,000 took 74 s
    (benchmarks/README.md), so one spam line could stall a corpus.  A longer run is cut into
    the fewest pieces of at most ``limit`` syllables, of about equal length, each cut right after
    a syllable that ends a sentence in reviews (``다 요 음 함 임 죠 네``) if the last quarter of
    the piece holds one, else at the piece's length (inside a word: Okt analyses the two sides
    apart).  Segments never start or end with white space, so Okt's spacing tokens are as for
    the whole text.

    >>> cut_long_runs("정말재밌다진짜최고", limit=6)
    ['정말재밌다', '진짜최고']
    >>> cut_long_runs("아주 긴 글도 띄어 쓰면 그대로", limit=6)
    ['아주 긴 글도 띄어 쓰면 그대로']
    """
    if len(text) <= limit:
        return [text]
    cuts: list[int] = []
    for m in _long_run_re(limit).finditer(text):
        pos, end = m.span()
        while end - pos > limit:
            rest = end - pos
            size = -(-rest // -(-rest // limit))  # ceil(rest / pieces), pieces = ceil(rest / limit)
            low = pos + max(1, size - size // 4)
            cut = next((c for c in range(pos + size, low - 1, -1) if text[c - 1] in _ENDINGS), pos + size)
            cuts.append(cut)
            pos = cut
    if not cuts:
        return [text]
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def _long_run_re(limit: int) -> re.Pattern[str]:
    pattern = _LONG_RUN_CACHE.get(limit)
    if pattern is None:
        pattern = _LONG_RUN_CACHE[limit] = re.compile("[\uac00-\ud7a3]{%d,}" % (limit + 1))
    return pattern


_LONG_RUN_CACHE: dict[int, re.Pattern[str]] = {}


def _okt_prepare(text: str) -> tuple[str, list[int] | None]:
    """The text Okt sees (:func:`korean_bpe.pre_tokenizers._sejong.prepare_text`: composed Hangul,
    lone surrogates as U+FFFD), with a space for each white-space character Okt would drop a word
    after (``_OKT_DROPS``: U+3000, U+00A0, U+2003, ...); the same length, offsets unchanged.

    >>> _okt_prepare("\u3000영화\xa0최고")
    (' 영화 최고', None)
    """
    prepared, offsets = prepare_text(text)
    if _OKT_DROPS_RE.search(prepared):
        prepared = prepared.translate(_OKT_DROPS_TO_SPACE)
    return prepared, offsets


def _plain_piece(text: str) -> bool:
    """A non-empty text without Java white space or NUL: it can share a space-joined JVM call."""
    return bool(text) and _TOKEN_JOIN not in text and not any(c in text for c in _JAVA_WS)


def space_pieces(text: str) -> list[str] | None:
    """The space-separated pieces whose Okt analyses, concatenated, are the analysis of ``text``
    (``norm=False``, ``stem=False``), or None when ``text`` must be analysed whole.

    Okt analyses each space-separated piece on its own (see :func:`okt_analyzer`), so a corpus
    needs each distinct piece analysed once: on the NSMC train split, 388k distinct pieces
    (2.2M characters) instead of 161k distinct reviews (5.8M characters).  Texts with other Java
    white space (tab, line breaks) or NUL go whole.

    >>> space_pieces("  어제 IMAX  봤는데 ")
    ['어제', 'IMAX', '봤는데']
    >>> space_pieces("영화\\t좋다") is None
    True
    """
    if _TOKEN_JOIN in text or any(c in text for c in _JAVA_WS_NOT_SPACE):
        return None
    return [p for p in text.split(" ") if p]


#: a run of Hangul syllables: what Okt's chunker makes one ``Korean`` chunk of
_HANGUL_RUN = re.compile("[\uac00-\ud7a3]+")
#: what lets one of Okt's chunks hold Hangul next to something else (see :func:`run_segments`):
#: ``@ ＠`` (e-mail, mention), ``# ＃`` (hashtag), ``$`` (cash tag), ``://`` (URL with a scheme,
#: whose host may be Hangul) and a dot after an ASCII letter, digit or accented Latin letter
#: (a host name: a URL match also takes the character before it, which may be Hangul)
_CHUNK_RISK = re.compile(r"[@\uff20#\uff03$]|://|[0-9A-Za-z\u00c0-\u036f\u1e00-\u1eff]\.")


def run_segments(piece: str) -> list[str]:
    """``piece`` (a space-free text) cut before and after its runs of Hangul syllables
    (``"".join(segments) == piece``), where Okt's analysis of the piece is the concatenation
    of the segments' analyses; ``[piece]`` when a cut could change it.

    Okt (open-korean-text 2.1.0) cuts a piece into chunks with patterns (URL, e-mail, mention,
    hashtag, cash tag, number, Hangul run, ``ㅋㅋ``-style jamo, Latin, punctuation; the rest
    ``Foreign``) and parses each Hangul run alone; its stemmer only joins an ending to the
    predicate right before it, both from one Hangul run.  A cut at the edge of a Hangul run
    therefore changes nothing unless another chunk can take Hangul in: a number takes a unit
    after its digits (``10년``, ``3만원``), and the rest of a run it took a unit from is then no
    ``Korean`` chunk but part of a ``Foreign`` one with what follows (``20일이상”``): a run right
    after an ASCII digit is cut on neither side; and a URL, e-mail, mention, hashtag or cash tag can take a
    neighbouring syllable; a piece holding what they need (see ``_CHUNK_RISK``) is not cut.
    Checked against Okt on every distinct piece of the NSMC train and test splits
    (benchmarks/README.md).  The batch analyses each distinct segment once: on the train split
    the distinct segments hold a fifth fewer syllables than the distinct pieces.

    >>> run_segments("영화ㅋㅋ최고!!")
    ['영화', 'ㅋㅋ', '최고', '!!']
    >>> run_segments("10년전,최고")
    ['10년전,', '최고']
    >>> run_segments("#영화스타그램")
    ['#영화스타그램']
    """
    if _CHUNK_RISK.search(piece):
        return [piece]
    cuts = [0]
    for m in _HANGUL_RUN.finditer(piece):
        start, end = m.span()
        if start and "0" <= piece[start - 1] <= "9":
            continue  # a number's unit, or a run Okt then leaves to a Foreign token: no cut on either side
        if start:
            cuts.append(start)
        cuts.append(end)
    if cuts[-1] != len(piece):
        cuts.append(len(piece))
    if len(cuts) <= 2:
        return [piece]
    return [piece[a:b] for a, b in zip(cuts, cuts[1:])]


def _joinable(text: str) -> bool:
    """Whether ``text`` can share a JVM call: see :func:`okt_analyzer`."""
    if _SEP_CHAR in text or _TOKEN_JOIN in text:
        return False
    if text and text[0] in _JAVA_WS_NOT_SPACE:
        return False
    tail = text[len(text.rstrip(_JAVA_WS)) :]
    return not tail or tail[0] == " "


def okt_analyzer(*, norm: bool = False, stem: bool = False, max_run: int = MAX_RUN) -> Any:
    """Start Okt in this process and return ``analyze(texts) -> [["surface/Tag", ...], ...]``,
    exactly ``okt.pos(text, norm=norm, stem=stem, join=True)`` for each text whose runs of Hangul
    syllables are at most ``max_run`` long; a text with a longer run is cut into
    segments (:func:`cut_long_runs`) and its analysis is theirs, concatenated, so that Okt's
    time stays linear in the length of the text.

    Why joining texts is safe.  Okt (open-korean-text 2.1.0) splits its input on Java's ``\\s``
    and analyses each piece on its own; a run of white space is a ``Space`` token (which konlpy
    drops) when it starts with a space, else a ``Foreign`` token; the normalizer only rewrites
    runs of Hangul, and the stemmer only glues an ending to the token right before it (a
    ``Space`` token in between stops it).  Texts joined with ``" \\ue000 "`` are therefore
    analysed exactly as alone, each separated by one ``\\ue000/Foreign`` token, provided that a
    text contains neither ``\\ue000`` nor NUL, does not start with a tab or line break, and does
    not end with a white-space run that starts with one (the run would absorb the separator's
    space).  Other texts go alone.  Each joined answer is checked: if it does not hold exactly
    one separator token between consecutive texts, that group is analysed text by text.

    Pieces (texts without any white space or NUL, see :func:`space_pieces`) need no separator
    when norm and stem are off: joined by single spaces, each token's surface is an exact slice
    of one piece, so the tokens are dealt out by length; a group whose surfaces do not tile its
    pieces exactly is analysed piece by piece.
    """
    return _OktAnalyzer(norm=norm, stem=stem, max_run=max_run)


class _OktAnalyzer:
    """:func:`okt_analyzer`'s callable: one Okt (JVM) and the ways texts are joined for it."""

    def __init__(self, *, norm: bool, stem: bool, max_run: int) -> None:
        okt = _start_okt()
        jpype = importlib.import_module("jpype")
        self._jki = okt.jki
        self._jnorm = jpype.java.lang.Boolean(bool(norm))
        self._jstem = jpype.java.lang.Boolean(bool(stem))
        self._jstring = jpype.JClass("java.lang.String")
        self._plain = not norm and not stem
        self._max_run = max_run

    def __call__(self, texts: list[str]) -> list[list[str]]:
        segments = [cut_long_runs(t, limit=self._max_run) for t in texts]
        if all(len(s) == 1 for s in segments):
            return self._analyze_whole(texts)
        flat = self._analyze_whole([seg for segs in segments for seg in segs])
        out: list[list[str]] = []
        at = 0
        for segs in segments:
            out.append([tok for analysis in flat[at : at + len(segs)] for tok in analysis])
            at += len(segs)
        return out

    def tokens(self, text: str) -> list[str]:
        """Okt's ``surface/Tag`` tokens of one text."""
        answer = self._jki.tokenize(text, self._jnorm, self._jstem)
        if _TOKEN_JOIN in text:
            return [str(t) for t in answer.toArray()]
        flat = str(self._jstring.join(_TOKEN_JOIN, answer))
        return flat.split(_TOKEN_JOIN) if flat else []

    def spaced(self, group: list[str]) -> list[list[str]] | None:
        """Plain pieces joined by single spaces; each token goes to the piece its surface
        covers (surfaces are exact slices when norm and stem are off)."""
        toks = self.tokens(" ".join(group))
        out: list[list[str]] = []
        i, n = 0, len(toks)
        for piece in group:
            mine: list[str] = []
            at = 0
            while at < len(piece):
                if i >= n:
                    return None
                tok = toks[i]
                surface = tok[: tok.rfind("/")]
                if not surface or not piece.startswith(surface, at):
                    return None
                mine.append(tok)
                at += len(surface)
                i += 1
            out.append(mine)
        return out if i == n else None

    def joined(self, group: list[str]) -> list[list[str]] | None:
        """Texts joined by the separator; None when the answer does not hold one between each two."""
        out: list[list[str]] = [[]]
        for tok in self.tokens(_SEP.join(group)):
            if tok == _SEP_TOKEN:
                out.append([])
            else:
                out[-1].append(tok)
        return out if len(out) == len(group) else None

    def _analyze_whole(self, texts: list[str]) -> list[list[str]]:
        """Texts without over-long runs: plain pieces joined by spaces, other joinable texts by
        the separator, the rest alone (see :func:`okt_analyzer`)."""
        results: list[list[str] | None] = [None] * len(texts)
        group: list[int] = []
        pieces: list[int] = []
        chars = piece_chars = 0
        for i, t in enumerate(texts):
            if self._plain and _plain_piece(t):
                pieces.append(i)
                piece_chars += len(t)
                if len(pieces) >= _JOIN_PIECES or piece_chars >= _JOIN_CHARS:
                    self._flush(texts, pieces, self.spaced, results)
                    piece_chars = 0
            elif not _joinable(t):
                results[i] = self.tokens(t)
            else:
                group.append(i)
                chars += len(t)
                if len(group) >= _JOIN_TEXTS or chars >= _JOIN_CHARS:
                    self._flush(texts, group, self.joined, results)
                    chars = 0
        self._flush(texts, pieces, self.spaced, results)
        self._flush(texts, group, self.joined, results)
        return results  # type: ignore[return-value]

    def _flush(self, texts: list[str], group: list[int], join: Any, results: list[list[str] | None]) -> None:
        """Analyse the texts of ``group`` (indices) together by ``join``, else one by one; empty it."""
        if not group:
            return
        parts = join([texts[i] for i in group]) if len(group) > 1 else None
        if parts is None:
            parts = [self.tokens(texts[i]) for i in group]
        for i, p in zip(group, parts):
            results[i] = p
        group.clear()


def _rebuild_okt(config: dict[str, Any], runtime: dict[str, Any]) -> OktPreTokenizer:
    config = dict(config)
    config.pop("type", None)
    return OktPreTokenizer(**config, **runtime)


# -- the pre-tokenizer ---------------------------------------------------------------------------


@PRE_TOKENIZERS.register("okt")
class OktPreTokenizer(BasePreTokenizer):
    """Okt morphemes as words (see the module docstring for examples).

    Options (keyword-only):

    * ``drop``: Okt tags whose morphemes are dropped (:data:`OKT_TAGS`); default
      :data:`DEFAULT_DROP`, or ``()`` when ``lossless``.
    * ``norm``, ``stem``: Okt's normalization and stemming (rewrite surfaces; not lossless).
    * ``lossless``: keep every morpheme and mark the spaces before them with ``▁``
      (:func:`~korean_bpe.pre_tokenizers.base.pieces_from_spans`), so that ``restore(pt(text))
      == text`` for every text without ``▁``.
    * ``cache``, ``cache_dir``, ``workers``, ``executor``: how :meth:`batch` runs (see
      :class:`~korean_bpe.pre_tokenizers._analyzer.BatchAnalyzer`); they never change the output,
      so they are not part of :meth:`to_config`.
    * ``threads``: how a batch with many pieces to analyse uses the cores.  ``True`` (default,
      from ``THREADS_MIN`` = 2,000 pieces): ``workers`` threads of this process, all calling its
      one JVM (JPype leaves the GIL while Okt works); nothing to start, the JVM warms up once,
      and it works from any script.  ``False`` (opt-in): ``workers`` worker processes, one JVM
      each, for batches of at least ``PARALLEL_MIN`` = 4,000 pieces and ``PARALLEL_MIN_CHARS``
      = 200,000 characters to analyse (smaller ones stay in this process).  The workers are
      started with ``spawn``, which imports the calling script in each of them: the script
      must keep its code under ``if __name__ == "__main__":`` (without it every worker runs
      the script again and the batch fails with a ``BrokenProcessPool`` that says so).  That,
      and their cost, is why processes are never chosen automatically.  Measured on 20,000
      NSMC train reviews (69,769 distinct pieces), 2 cores shared with other jobs (load 8-12),
      each cold batch in a fresh interpreter: threads 59.3 s wall, 20.6 s CPU (0.35 cores);
      two worker processes 64.0 s wall, 33.6 s CPU, workers included (0.53 cores): every JVM
      spends about 10 s CPU starting and warming up, the analysis itself about 11 s; on
      the full train split (387,654 pieces), load 3.5-5: threads 55.4 s wall, 75.5 s CPU (1.36
      cores); processes 101.5 s, 102.8 s CPU (1.01 cores).  Processes lost at both sizes
      (benchmarks/README.md, "Okt throughput").  The output is identical either way.
    """

    name = "okt"

    def __init__(
        self,
        *,
        drop: Iterable[str] | None = None,
        norm: bool = False,
        stem: bool = False,
        lossless: bool = False,
        cache: bool = True,
        cache_dir: str | None = None,
        workers: int | None = None,
        executor: Executor | None = None,
        threads: bool = True,
    ) -> None:
        for arg, value in (("norm", norm), ("stem", stem), ("lossless", lossless), ("cache", cache), ("threads", threads)):
            if not isinstance(value, bool):
                raise TypeError(f"{arg} must be True or False, got {value!r}")
        if isinstance(drop, str):
            raise TypeError(f"drop must be a collection of Okt tags such as ('Josa',), not the string {drop!r}")
        if drop is None:
            drop_t: tuple[str, ...] = () if lossless else DEFAULT_DROP
        else:
            drop_t = tuple(drop)
            unknown = [t for t in drop_t if t not in OKT_TAGS]
            if unknown:
                raise ValueError(f"drop has unknown Okt tags {unknown}; choose from {sorted(OKT_TAGS)}")
        if lossless:
            if drop_t:
                raise ValueError(
                    f"lossless=True keeps every morpheme, so it needs drop=() (got drop={drop_t!r}); "
                    "use OktPreTokenizer(lossless=True) or OktPreTokenizer(drop=..., lossless=False)"
                )
            if norm or stem:
                raise ValueError(
                    f"lossless=True cannot restore text that norm/stem rewrote (got norm={norm}, stem={stem}); "
                    "use OktPreTokenizer(lossless=True) with norm=False, stem=False, or lossless=False"
                )
        self.drop = drop_t
        self._drop = frozenset(drop_t)
        self.norm = norm
        self.stem = stem
        self.lossless = lossless
        self._batcher = BatchAnalyzer(
            AnalyzerSpec(
                name="okt",
                version=okt_version(),
                options=(("max_run", MAX_RUN), ("norm", norm), ("stem", stem)),
                factory="korean_bpe.pre_tokenizers.okt:okt_analyzer",
                threads=threads,
            ),
            cache=cache,
            cache_dir=cache_dir,
            workers=workers,
            executor=executor,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        b = self._batcher
        runtime = {"cache": b.cache, "cache_dir": b.cache_dir, "workers": b.workers, "executor": b.executor,
                   "threads": b.spec.threads}
        return (_rebuild_okt, (self.to_config(), runtime))

    # analysis -> words
    def _words(self, text: str, prepared: str, offsets: list[int] | None, analysis: Sequence[str]) -> list[str]:
        """Words of ``text`` from Okt's analysis of ``prepared`` (``prepare_text(text)``: composed
        Hangul, lone surrogates as U+FFFD; ``offsets`` maps its offsets back, None when same length)."""
        toks = [tok.rsplit("/", 1) for tok in analysis]
        drop = self._drop
        if self.norm or self.stem:  # surfaces rewritten: Okt's words, cut at white space
            return [w for surface, tag in toks if tag not in drop for w in surface.split()]
        if prepared == text and not self.lossless:  # the common case: surfaces are the words
            words: list[str] = []
            for surface, tag in toks:
                if tag in drop:
                    continue
                if WHITE_SPACE.search(surface) is None:
                    words.append(surface)
                else:  # Okt's Foreign runs can hold U+00A0, U+2028, ...: never a space in a word
                    words.extend(surface.split())
            return words
        toks = [(surface, tag) for surface, tag in toks if surface and not surface.isspace()]
        spans = spans_from_surfaces(prepared, [surface for surface, _ in toks])
        if offsets is not None:
            spans = [(offsets[a], offsets[b]) for a, b in spans]
        keep = [self.lossless or tag not in drop for _, tag in toks]
        cut = split_white_space(text, [(a, b, k) for (a, b), k in zip(spans, keep)])
        if self.lossless:
            return pieces_from_spans(text, [(a, b) for a, b, _ in cut])
        return [text[a:b] for a, b, k in cut if k]

    def pos(self, text: str) -> list[tuple[str, str]]:
        """Okt's ``(surface, tag)`` pairs for ``text``, nothing dropped (konlpy's ``okt.pos``;
        like every method here, Okt sees NFD Hangul composed, lone surrogates as U+FFFD and the
        white space it would drop a word after, U+3000 and U+00A0 among them, as a space).

        >>> OktPreTokenizer().pos("돈날림ㅠㅠ!!")
        [('돈', 'Noun'), ('날림', 'Noun'), ('ㅠㅠ', 'KoreanParticle'), ('!!', 'Punctuation')]
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        prepared, _ = _okt_prepare(text)
        return [tuple(tok.rsplit("/", 1)) for tok in self._batcher.analyze([prepared])[0]]  # type: ignore[misc]

    def __call__(self, text: str) -> list[str]:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        prepared, offsets = _okt_prepare(text)
        return self._words(text, prepared, offsets, self._batcher.analyze([prepared])[0])

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]:
        """``[self(t) for t in texts]``, fast: joined JVM calls, worker processes, on-disk cache.

        ``show_progress``: a progress bar on stderr (None: only for long batches in a terminal).
        """
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"texts must be strings; item {i} is {type(t).__name__}: {t!r}")
        # millions of small lists and no reference cycles: the cyclic collector would only
        # re-walk them (and everything else alive) again and again, a third of a warm run
        with paused():
            return self._batch(texts, show_progress)

    def _batch(self, texts: list[str], show_progress: bool | None) -> list[list[str]]:
        prepared = [_okt_prepare(t) for t in texts]
        if self.norm or self.stem:  # whole texts: the normalizer and stemmer see all of it
            analyses = self._batcher.analyze_batch([p for p, _ in prepared], show_progress=show_progress)
        else:  # each distinct space-separated piece once (see space_pieces)
            units = [space_pieces(p) or ([] if p.strip(" ") == "" else [p]) for p, _ in prepared]
            # ... and each distinct run of Hangul in them once (see run_segments)
            pieces = list(dict.fromkeys(u for us in units for u in us))
            cut = {u: run_segments(u) if _plain_piece(u) else [u] for u in pieces}
            keys = list(dict.fromkeys(s for u in pieces for s in cut[u]))
            analysed = dict(zip(keys, self._batcher.analyze_batch(keys, show_progress=show_progress)))
            table = {u: analysed[u] if len(cut[u]) == 1 else [tok for s in cut[u] for tok in analysed[s]] for u in pieces}
            del analysed, cut
            if not self.lossless:  # the words of a text are the words of its pieces, in order
                memo: dict[str, list[str]] = {}  # "surface/Tag" -> its words (tokens repeat a lot)
                words: dict[str, list[str]] = {}
                for u, analysis in table.items():
                    ws: list[str] = []
                    for tok in analysis:
                        kept = memo.get(tok)
                        if kept is None:
                            kept = memo[tok] = self._words(tok, tok, None, (tok,))
                        ws += kept
                    words[u] = ws
                get = words.__getitem__
                return [
                    list(chain.from_iterable(map(get, us))) if p == t else self._words(t, p, o, [x for u in us for x in table[u]])
                    for t, (p, o), us in zip(texts, prepared, units)
                ]
            analyses = [[tok for u in us for tok in table[u]] for us in units]
        return [self._words(t, p, o, a) for t, (p, o), a in zip(texts, prepared, analyses)]

    def restore(self, words: Sequence[str]) -> str:
        """Lossless mode: the text again; otherwise the words joined by spaces."""
        if self.lossless:
            return restore_marked(words)
        return " ".join(words)

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name, "drop": list(self.drop), "norm": self.norm, "stem": self.stem, "lossless": self.lossless}
