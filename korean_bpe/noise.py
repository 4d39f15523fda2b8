"""Korean text written the way people write it: seeded, deterministic perturbations for
augmentation, robustness tests and the comparison's ``noise`` task.

>>> perturb(["정말 재밌어요"], "spacing_removed", rate=1.0, seed=0)
['정말재밌어요']
>>> perturb(["안녕하세요"], "wrong_layout", rate=1.0, seed=0)
['dkssudgktpdy']
>>> PERTURBATIONS[:3]
('spacing_removed', 'spacing_inserted', 'keyboard_typo')

Every perturbation is a function ``(text, rate, rng) -> text`` registered in :data:`NOISE` under its
name (:func:`register_perturbation`), with a ``rate`` from 0 to 1 whose unit its
:class:`Perturbation` and :func:`describe` state (each syllable, each 어절 or each space), a note
on where it may change a document's label (:attr:`Perturbation.label`), and the promise
that it never makes Unicode that is not valid: no lone surrogate (one already in the text stays
as it is) and no combining jamo left without the jamo it joins (a syllable followed by a
conjoining vowel or final is left alone where changing it would unpair them).

What stays fixed, whatever the seed
-----------------------------------
* ``rate=0`` returns every text unchanged; a rate draws independently for each unit it counts.
* Document ``i`` of ``texts`` is perturbed with its own generator, ``random.Random`` seeded with
  the string ``f"{seed}/{step}/{name}/{i}"`` (SHA-512 of the string: the same in every process,
  whatever ``PYTHONHASHSEED``), so its result does not depend on the other documents.
* Mixtures: ``name`` may be a list of names, applied one after another in that order (step 0, 1,
  ...) at the same rate; the registered ``"mix"`` gives each document one perturbation drawn with
  its generator.  Put the encoding-level ones (``nfd``, ``compat_jamo``, ``wrong_layout``) last in a
  list: the others only touch precomposed syllables.
"""

from __future__ import annotations

import math
import random
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from .jamo import JAMO_ALPHABET, L_COUNT, V_COUNT, compose, decompose_syllable, is_compatibility_jamo, is_syllable
from .registry import Registry

__all__ = ["PERTURBATIONS", "NOISE", "DEFAULT_RATE", "Perturbation", "register_perturbation", "perturb", "describe",
           "to_qwerty", "from_qwerty", "check_rate"]

#: the rate the comparison's ``noise`` task uses by default
DEFAULT_RATE = 0.1


@dataclass(frozen=True)
class Perturbation:
    """One kind of noise: ``apply(text, rate, rng)`` perturbs one text with a generator; ``unit``
    says what one draw of the rate is for, ``summary`` what it does, ``label`` where it may change a
    document's label; ``doc``, its docstring with examples."""

    name: str
    unit: str
    summary: str
    label: str
    apply: Callable[[str, float, random.Random], str] = field(repr=False)
    doc: str = field(default="", repr=False)

    def describe(self, *, rate: float) -> str:
        """One line for reports: ``"initials at 10%: ... (rate: each 어절 ...)"``."""
        return f"{self.name} at {rate:.0%}: {self.summary} (rate: {self.unit})"

    def to_config(self) -> dict[str, str]:
        return {"type": self.name}


#: the perturbations by name (registered by :func:`register_perturbation`)
NOISE: Registry[Perturbation] = Registry("noise perturbation")


def register_perturbation(name: str, *, unit: str, summary: str, label: str
                          ) -> Callable[[Callable[[str, float, random.Random], str]], Callable[[str, float, random.Random], str]]:
    """Function decorator: ``fn(text, rate, rng) -> text`` registered in :data:`NOISE` as ``name``
    (its docstring, with examples, becomes the perturbation's ``doc``)."""

    def decorator(fn: Callable[[str, float, random.Random], str]) -> Callable[[str, float, random.Random], str]:
        made = Perturbation(name, unit, summary, label, fn, fn.__doc__ or "")
        NOISE.register(name)(lambda: made)
        return fn

    return decorator


@register_perturbation("spacing_removed", unit="each run of spaces (U+0020) between two other characters; tabs "
                       "and line breaks stay", summary="spaces between words dropped (정말 재밌어요 -> 정말재밌어요)",
                       label="kept; an ambiguous split can read otherwise (아버지가 방에 -> 아버지가방에)")
def spacing_removed(text: str, rate: float, rng: random.Random) -> str:
    """Spaces dropped, as in 띄어쓰기 left out of a quick review.

    >>> perturb(["정말 재밌어요 최고"], "spacing_removed", rate=1.0, seed=0)
    ['정말재밌어요최고']
    >>> perturb(["정말 재밌어요 최고"], "spacing_removed", rate=0.5, seed=3)
    ['정말 재밌어요최고']
    """
    return _SPACES.sub(lambda m: "" if rng.random() < rate else m.group(0), text)


@register_perturbation("spacing_inserted", unit="each pair of adjacent Hangul syllables",
                       summary="a space inserted inside a word (재밌어요 -> 재 밌어요)",
                       label="kept; a split word can read as two (나는 -> 나 는)")
def spacing_inserted(text: str, rate: float, rng: random.Random) -> str:
    """A space put between two syllables of a word.

    >>> perturb(["재밌어요"], "spacing_inserted", rate=1.0, seed=0)
    ['재 밌 어 요']
    >>> perturb(["정말 재밌어요"], "spacing_inserted", rate=0.5, seed=4)
    ['정말 재 밌 어요']
    """
    out = []
    for i, ch in enumerate(text):
        out.append(ch)
        if i + 1 < len(text) and is_syllable(ch) and is_syllable(text[i + 1]) and rng.random() < rate:
            out.append(" ")
    return "".join(out)


@register_perturbation("keyboard_typo", unit="each Hangul syllable (one of its jamo typed on a 두벌식 "
                       "neighbouring key)", summary="a jamo typed on a neighbouring key (녕 -> 냥, 세 -> 시)",
                       label="kept mostly; a slip can make another word (안 -> 얀, 못 -> 뭇), a negation included")
def keyboard_typo(text: str, rate: float, rng: random.Random) -> str:
    """One jamo of a syllable replaced by a neighbour on the 두벌식 keyboard (a neighbouring key of
    the same kind: a consonant for a consonant, a vowel for a vowel; a compound vowel or 받침, two
    keys, never slips).

    >>> perturb(["안녕하세요", "안녕하세요"], "keyboard_typo", rate=0.3, seed=0)  # ㅕ (u) -> ㅑ (i); ㅔ (p) -> ㅣ (l)
    ['안냥하세요', '안녕하시요']
    """
    return _per_syllable(text, rate, rng, _typo)


@register_perturbation("batchim_dropped", unit="each Hangul syllable with a 받침",
                       summary="a 받침 dropped (좋아 -> 조아, 있어 -> 이어)",
                       label="kept mostly; a dropped 받침 can make another word (안 -> 아, 못 -> 모)")
def batchim_dropped(text: str, rate: float, rng: random.Random) -> str:
    """The final consonant (받침) of a syllable dropped.

    >>> perturb(["좋아요 있어요"], "batchim_dropped", rate=1.0, seed=0)
    ['조아요 이어요']
    """
    return _per_syllable(text, rate, rng, lambda jamo, rng: compose(jamo[:2]) if len(jamo) == 3 else None)


@register_perturbation("batchim_added", unit="each Hangul syllable without a 받침",
                       summary="a 받침 ㅇ, ㅁ or ㄴ added (고마워 -> 고마웡)",
                       label="kept mostly; an added 받침 can make another word (가 -> 강, 보다 -> 본다)")
def batchim_added(text: str, rate: float, rng: random.Random) -> str:
    """A 받침 added to an open syllable: ㅇ, ㅁ or ㄴ, as in 애교 spelling (했당, 고마웡, 했음).

    >>> perturb(["고마워 정말"], "batchim_added", rate=0.5, seed=2)
    ['고마웡 정말']
    """
    return _per_syllable(text, rate, rng, lambda jamo, rng: compose(jamo + rng.choice(_ADDED)) if len(jamo) == 2 else None)


@register_perturbation("initials", unit="each 어절 (white-space word) with Hangul syllables and no other Hangul letter",
                       summary="a word abbreviated to its initial consonants (감사 -> ㄱㅅ)",
                       label="may change: a long word abbreviated is unreadable, to a model and sometimes to a reader")
def initials(text: str, rate: float, rng: random.Random) -> str:
    """A word written as the initial consonants of its syllables (ㅇㅇ for 응응, ㄱㅅ for 감사),
    in compatibility jamo; its other characters stay.

    >>> perturb(["응응 감사합니다!"], "initials", rate=1.0, seed=0)
    ['ㅇㅇ ㄱㅅㅎㄴㄷ!']
    """
    def abbreviate(word: str) -> str | None:
        if not any(map(is_syllable, word)) or any(_is_letter_jamo(ch) for ch in word):
            return None
        return "".join(_TO_COMPAT[decompose_syllable(ch)[0]] if is_syllable(ch) else ch for ch in word)

    return _per_word(text, rate, rng, abbreviate)


@register_perturbation("elongation", unit="each 어절 (white-space word) ending in an open syllable, a compatibility "
                       "jamo, an ASCII letter or !?~.", summary="the end of a word stretched (너무 -> 너무우우, ㅋㅋ -> ㅋㅋㅋㅋ)",
                       label="kept: stretching intensifies, it does not reverse")
def elongation(text: str, rate: float, rng: random.Random) -> str:
    """The end of a word drawn out: an open syllable's vowel repeated as 2 or 3 syllables of ㅇ + that
    vowel's sound without its glide (너무 -> 너무우우, 봐 -> 봐아아, 요 -> 요오오), a compatibility
    jamo, an ASCII letter or one of ``!?~.`` repeated 2 or 3 more times (ㅋㅋ -> ㅋㅋㅋㅋ).  A word
    ending otherwise (a 받침, a digit, anything else) stays as it is.

    >>> perturb(["너무 좋다 ㅋㅋ"], "elongation", rate=1.0, seed=1)
    ['너무우우 좋다아아 ㅋㅋㅋㅋ']
    """
    def stretch(word: str) -> str | None:
        last = word[-1]
        if is_syllable(last):
            jamo = decompose_syllable(last)
            return None if len(jamo) == 3 else word + _VOWEL_ECHO[jamo[1]] * rng.randint(2, 3)
        if is_compatibility_jamo(last) or last in _STRETCHY or ("a" <= last.lower() <= "z" and last.isascii()):
            return word + last * rng.randint(2, 3)
        return None

    return _per_word(text, rate, rng, stretch)


@register_perturbation("nfd", unit="each Hangul syllable",
                       summary="a syllable decomposed to conjoining jamo, NFD (한 -> ᄒ ᅡ ᆫ), looking the same",
                       label="kept: the text reads the same")
def nfd(text: str, rate: float, rng: random.Random) -> str:
    """A syllable written as its conjoining jamo, as macOS writes file names (NFD); the text looks
    the same.  At rate 1 a text whose only decomposable characters are Hangul syllables becomes its
    ``unicodedata.normalize("NFD", ...)``.

    >>> out = perturb(["한국어"], "nfd", rate=1.0, seed=0)[0]
    >>> len(out), out == unicodedata.normalize("NFD", "한국어")
    (8, True)
    """
    return _per_syllable(text, rate, rng, lambda jamo, rng: jamo)


@register_perturbation("compat_jamo", unit="each Hangul syllable",
                       summary="a syllable spelled in compatibility jamo (한 -> ㅎㅏㄴ)", label="kept: a reader recomposes it")
def compat_jamo(text: str, rate: float, rng: random.Random) -> str:
    """A syllable spelled out in compatibility jamo, one letter a jamo (한 -> ㅎㅏㄴ), as jamo
    libraries and some broken input methods leave it.

    >>> perturb(["한국어"], "compat_jamo", rate=1.0, seed=0)
    ['ㅎㅏㄴㄱㅜㄱㅇㅓ']
    """
    return _per_syllable(text, rate, rng, lambda jamo, rng: "".join(_TO_COMPAT[j] for j in jamo))


@register_perturbation("wrong_layout", unit="each 어절 (white-space word)",
                       summary="a word typed in the English layout (안녕 -> dkssud)",
                       label="kept for a reader who decodes it; a model sees Latin letters where the word was")
def wrong_layout(text: str, rate: float, rng: random.Random) -> str:
    """A word typed with the keyboard in the English layout: its Hangul (syllables and
    compatibility jamo) as the QWERTY keys of the 두벌식 layout (:func:`to_qwerty`).

    >>> perturb(["안녕 ㅋㅋ 반가워"], "wrong_layout", rate=1.0, seed=0)
    ['dkssud zz qksrkdnj']
    """
    return _per_word(text, rate, rng, _qwerty_word)


@register_perturbation("mix", unit="the unit of the perturbation drawn for the document",
                       summary="one perturbation drawn per document", label="as the perturbation drawn")
def mix(text: str, rate: float, rng: random.Random) -> str:
    """Each document gets one of the other perturbations, drawn with its generator, at the rate.

    >>> perturb(["정말 재밌어요"] * 3, "mix", rate=1.0, seed=0)  # spacing_removed, batchim_added, spacing_inserted
    ['정말재밌어요', '정말 잰밌엄욘', '정 말 재 밌 어 요']
    """
    chosen = rng.choice([n for n in PERTURBATIONS if n != "mix"])
    return NOISE.build(chosen).apply(text, rate, rng)


#: the built-in perturbations, in this order everywhere (columns, reports)
PERTURBATIONS: tuple[str, ...] = ("spacing_removed", "spacing_inserted", "keyboard_typo", "batchim_dropped",
                                  "batchim_added", "initials", "elongation", "nfd", "compat_jamo", "wrong_layout",
                                  "mix")


def perturb(texts: Sequence[str], name: str | Sequence[str], *, rate: float, seed: int) -> list[str]:
    """One perturbed text for each of ``texts``: the perturbation ``name`` (a registered name, or a
    list of them applied in order) at ``rate``, seeded by ``seed`` (see the module).

    >>> perturb(["좋아요 ㅋㅋ"], ["batchim_dropped", "wrong_layout"], rate=1.0, seed=0)
    ['whdkdy zz']
    >>> perturb(["좋아요"], "typo", rate=0.1, seed=0)
    Traceback (most recent call last):
    ValueError: unknown noise perturbation 'typo'; choose one of 'batchim_added', ...
    """
    if isinstance(texts, str):
        raise TypeError(f"texts must be a sequence of strings, not one string; write [{texts[:20]!r}]")
    texts = list(texts)
    bad = next((t for t in texts if not isinstance(t, str)), None)
    if bad is not None:
        raise TypeError(f"texts must be strings, got {type(bad).__name__} {bad!r}")
    steps = _steps(name)
    check_rate(rate)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, e.g. seed=0, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int, e.g. seed=0, got {seed}")
    for step, kind in enumerate(steps):
        texts = [kind.apply(t, rate, random.Random(f"{seed}/{step}/{kind.name}/{i}")) if rate else t
                 for i, t in enumerate(texts)]
    return texts


def describe(name: str | Sequence[str], *, rate: float) -> str:
    """One line saying what ``name`` at ``rate`` does, for reports.

    >>> describe("initials", rate=0.1)
    'initials at 10%: a word abbreviated to its initial consonants (감사 -> ㄱㅅ) (rate: each 어절 (white-space word) with Hangul syllables and no other Hangul letter)'
    """
    check_rate(rate)
    return "; then ".join(kind.describe(rate=rate) for kind in _steps(name))


def check_rate(rate: float) -> float:
    """``rate`` if it is a number from 0 to 1; else TypeError or ValueError saying so."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float)):
        raise TypeError(f"rate must be a number from 0 to 1, e.g. rate=0.1, got {rate!r}")
    if not (0 <= rate <= 1) or math.isnan(rate):
        raise ValueError(f"rate must be from 0 to 1 (the share of units perturbed), e.g. rate=0.1, got {rate!r}")
    return rate


def to_qwerty(text: str) -> str:
    """The keys the 두벌식 layout types ``text``'s Hangul with (syllables and compatibility jamo);
    everything else stays.  :func:`from_qwerty` reads them back.

    >>> to_qwerty("안녕하세요, 꿀잼 ㅋㅋ")
    'dkssudgktpdy, Rnfwoa zz'
    """
    return text.translate(_qwerty_table())


def from_qwerty(keys: str) -> str:
    """Hangul typed as ``keys`` on the 두벌식 layout, as an input method composes it (a consonant
    before a vowel starts a syllable; a 받침 and a compound 받침 are kept while no vowel follows).
    Letters that are no 두벌식 key (uppercase other than QWERTOP) stay.  ``from_qwerty(to_qwerty(t))
    == t`` for every text of complete syllables and characters that are not Latin letters.

    >>> from_qwerty("dkssudgktpdy, Rnfwoa zz")
    '안녕하세요, 꿀잼 ㅋㅋ'
    >>> from_qwerty("rkrtl")  # 각시, not 갃 + ㅣ
    '각시'
    """
    seq = [_KEY_TO_COMPAT.get(ch, ch) for ch in keys]
    out: list[str] = []
    i, n = 0, len(seq)
    while i < n:
        if not (seq[i] in _AS_INITIAL and i + 1 < n and seq[i + 1] in _AS_VOWEL):
            out.append(seq[i])
            i += 1
            continue
        initial, vowel, i = seq[i], seq[i + 1], i + 2
        if i < n and (vowel, seq[i]) in _COMPOUND:
            vowel, i = _COMPOUND[vowel, seq[i]], i + 1
        final = ""
        if i < n and seq[i] in _AS_FINAL and not (i + 1 < n and seq[i + 1] in _AS_VOWEL):
            final, i = seq[i], i + 1
            if i < n and (final, seq[i]) in _COMPOUND and not (i + 1 < n and seq[i + 1] in _AS_VOWEL):
                final, i = _COMPOUND[final, seq[i]], i + 1
        out.append(compose(_AS_INITIAL[initial] + _AS_VOWEL[vowel] + (_AS_FINAL[final] if final else "")))
    return "".join(out)


# --- tables and pure helpers ------------------------------------------------------------------------

_SPACES = re.compile(r"(?<=\S) +(?=\S)")
_WORDS = re.compile(r"\S+")
_STRETCHY = frozenset("!?~.")
#: the 받침 batchim_added draws from (conjoining finals ㅇ, ㅁ, ㄴ)
_ADDED = ("\u11bc", "\u11b7", "\u11ab")

#: conjoining jamo (modern: 19 initials, 21 vowels, 27 finals) -> its compatibility jamo, by name
#: (HANGUL CHOSEONG KIYEOK and HANGUL JONGSEONG KIYEOK are both HANGUL LETTER KIYEOK)
_TO_COMPAT: dict[str, str] = {j: unicodedata.lookup("HANGUL LETTER " + unicodedata.name(j).split(" ", 2)[2])
                              for j in JAMO_ALPHABET}
_INITIALS, _VOWELS, _FINALS = (JAMO_ALPHABET[:L_COUNT], JAMO_ALPHABET[L_COUNT:L_COUNT + V_COUNT],
                               JAMO_ALPHABET[L_COUNT + V_COUNT:])
#: compatibility jamo -> the conjoining jamo of that role, where it has one
_AS_INITIAL = {_TO_COMPAT[j]: j for j in _INITIALS}
_AS_VOWEL = {_TO_COMPAT[j]: j for j in _VOWELS}
_AS_FINAL = {_TO_COMPAT[j]: j for j in _FINALS}

#: the 두벌식 layout: QWERTY key -> compatibility jamo (Shift gives the five doubled consonants, ㅒ and ㅖ)
_KEY_TO_COMPAT: dict[str, str] = dict(zip("qwertyuiopasdfghjklzxcvbnmQWERTOP",
                                          "ㅂㅈㄷㄱㅅㅛㅕㅑㅐㅔㅁㄴㅇㄹㅎㅗㅓㅏㅣㅋㅌㅊㅍㅠㅜㅡㅃㅉㄸㄲㅆㅒㅖ"))
#: compound vowels and 받침 typed as two keys' jamo
_COMPOUND: dict[tuple[str, str], str] = {
    ("ㅗ", "ㅏ"): "ㅘ", ("ㅗ", "ㅐ"): "ㅙ", ("ㅗ", "ㅣ"): "ㅚ", ("ㅜ", "ㅓ"): "ㅝ", ("ㅜ", "ㅔ"): "ㅞ",
    ("ㅜ", "ㅣ"): "ㅟ", ("ㅡ", "ㅣ"): "ㅢ", ("ㄱ", "ㅅ"): "ㄳ", ("ㄴ", "ㅈ"): "ㄵ", ("ㄴ", "ㅎ"): "ㄶ",
    ("ㄹ", "ㄱ"): "ㄺ", ("ㄹ", "ㅁ"): "ㄻ", ("ㄹ", "ㅂ"): "ㄼ", ("ㄹ", "ㅅ"): "ㄽ", ("ㄹ", "ㅌ"): "ㄾ",
    ("ㄹ", "ㅍ"): "ㄿ", ("ㄹ", "ㅎ"): "ㅀ", ("ㅂ", "ㅅ"): "ㅄ",
}
#: compatibility jamo -> the keys that type it
_COMPAT_KEYS: dict[str, str] = {jamo: key for key, jamo in _KEY_TO_COMPAT.items()}
_COMPAT_KEYS |= {whole: _COMPAT_KEYS[a] + _COMPAT_KEYS[b] for (a, b), whole in _COMPOUND.items()}
#: an open syllable's vowel -> the syllable ㅇ + that vowel without its glide that draws it out (봐 -> 아)
_GLIDES = dict(zip("ㅑㅒㅕㅖㅘㅙㅚㅛㅝㅞㅟㅠㅢ", "ㅏㅐㅓㅔㅏㅐㅔㅗㅓㅔㅣㅜㅣ"))
_VOWEL_ECHO: dict[str, str] = {v: compose("\u110b" + _AS_VOWEL[_GLIDES.get(_TO_COMPAT[v], _TO_COMPAT[v])])
                               for v in _VOWELS}

_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _key_neighbours(key: str) -> tuple[str, ...]:
    """The keys next to ``key`` on a staggered QWERTY keyboard (same row, and the two touching
    keys of the rows above and below), lowercase, in row order: ``_key_neighbours("s")`` ->
    ``('w', 'e', 'a', 'd', 'z', 'x')``."""
    r, c = next((r, row.index(key.lower())) for r, row in enumerate(_ROWS) if key.lower() in row)
    spots = [(r - 1, c), (r - 1, c + 1), (r, c - 1), (r, c + 1), (r + 1, c - 1), (r + 1, c)]
    return tuple(_ROWS[i][j] for i, j in spots if 0 <= i < len(_ROWS) and 0 <= j < len(_ROWS[i]))


def _typo_table() -> dict[str, tuple[str, ...]]:
    """A conjoining jamo typed with one key (a simple or doubled consonant, ㅒ, ㅖ and the simple
    vowels) -> the conjoining jamo of the same role on the neighbouring keys of the same kind."""
    table = {}
    for role in (_AS_INITIAL, _AS_VOWEL, _AS_FINAL):
        for compat, conjoining in role.items():
            if len(_COMPAT_KEYS[compat]) == 1:
                near = (role.get(_KEY_TO_COMPAT[k]) for k in _key_neighbours(_COMPAT_KEYS[compat]))
                table[conjoining] = tuple(j for j in near if j is not None)
    return table


_TYPOS = _typo_table()


def _typo(jamo: str, rng: random.Random) -> str | None:
    """``jamo`` (a syllable's conjoining jamo) with one of them on a neighbouring key; None when none can slip."""
    slips = [k for k, j in enumerate(jamo) if _TYPOS.get(j)]
    if not slips:
        return None
    k = rng.choice(slips)
    return compose(jamo[:k] + rng.choice(_TYPOS[jamo[k]]) + jamo[k + 1:])


def _joins_next(text: str, i: int) -> bool:
    """The character after ``text[i]`` is a conjoining vowel or final that joins it (U+1160..U+11FF)."""
    return i + 1 < len(text) and "\u1160" <= text[i + 1] <= "\u11ff"


def _is_letter_jamo(ch: str) -> bool:
    return "\u1100" <= ch <= "\u11ff" or is_compatibility_jamo(ch) or "\ua960" <= ch <= "\ua97f" or "\ud7b0" <= ch <= "\ud7ff"


def _per_syllable(text: str, rate: float, rng: random.Random,
                  change: Callable[[str, random.Random], str | None]) -> str:
    """``text`` with each precomposed syllable, drawn with probability ``rate``, replaced by
    ``change(its conjoining jamo, rng)`` (None: no change); a syllable a conjoining vowel or final
    follows is left alone (it is not drawn)."""
    out = list(text)
    for i, ch in enumerate(text):
        if is_syllable(ch) and not _joins_next(text, i):
            new = change(decompose_syllable(ch), rng) if rng.random() < rate else None
            if new is not None:
                out[i] = new
    return "".join(out)


def _per_word(text: str, rate: float, rng: random.Random, change: Callable[[str], str | None]) -> str:
    """``text`` with each white-space word drawn with probability ``rate`` replaced by
    ``change(word)`` (None: unchanged)."""
    def one(m: re.Match[str]) -> str:
        if rng.random() >= rate:
            return m.group(0)
        new = change(m.group(0))
        return m.group(0) if new is None else new

    return _WORDS.sub(one, text)


def _qwerty_word(word: str) -> str:
    table = _qwerty_table()
    return "".join(ch if _joins_next(word, i) else table.get(ord(ch), ch) for i, ch in enumerate(word))


@lru_cache(maxsize=1)
def _qwerty_table() -> dict[int, str]:
    """Syllables and compatibility jamo -> their 두벌식 keys (made on first use)."""
    table = {ord(c): keys for c, keys in _COMPAT_KEYS.items()}
    for code in range(0xAC00, 0xD7A4):
        table[code] = "".join(_COMPAT_KEYS[_TO_COMPAT[j]] for j in decompose_syllable(chr(code)))
    return table


def _steps(name: str | Sequence[str]) -> list[Perturbation]:
    """The perturbations ``name`` names, in order (ValueError/TypeError with the fix)."""
    if isinstance(name, str):
        return [NOISE.build(name)]
    if not isinstance(name, Sequence) or not name:
        raise TypeError(f"name must be a perturbation name or a non-empty list of them, e.g. 'keyboard_typo' or "
                        f"['spacing_removed', 'nfd']; choose from {', '.join(PERTURBATIONS)}, got {name!r}")
    bad = next((n for n in name if not isinstance(n, str)), None)
    if bad is not None:
        raise TypeError(f"each perturbation is named by a string, e.g. 'keyboard_typo', got {bad!r}")
    return [NOISE.build(n) for n in name]
