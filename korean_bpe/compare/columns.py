"""The one description of the comparison table's columns: :data:`TABLE`, one :class:`Column` each.

Everything else is generated from it: the frame's column order (:data:`COLUMNS`) and dtypes
(:data:`DTYPES`), the bootstrap columns (``<metric>_ci_low``, ``<metric>_ci_high``, ``<metric>_p``
and its Holm-adjusted ``<metric>_p_holm`` for each metric with ``interval=True``), the printed table's short headers and formats
(:func:`korean_bpe.compare.table.format_table`), the CLI's legend (:func:`legend`), the report's
definitions and cell formats (:func:`definitions`, :func:`cell`).

Notation of the definitions: ``N`` held-out documents, ``W`` their 어절 (white-space words of the
original text), ``T`` the tokens of ``encode_batch``.  A rate (``unit="%"``) is stored as a fraction
in the frame and ``table.csv`` and shown as a percentage everywhere else.

>>> by_name("morph_f1").unit, by_name("morph_f1").interval
('%', True)
>>> COLUMNS[:3], "probe_accuracy_ci_low" in COLUMNS, DTYPES["probe_accuracy_p"]
(('strategy', 'kind', 'pre_tokenizer'), True, 'float64')
>>> cell("morph_f1", 0.62749), cell("morph_f1", 0.62749, percent_sign=False)
('62.75%', '62.75')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Column", "TABLE", "COLUMNS", "DTYPES", "INTERVAL_METRICS", "by_name", "definitions", "cell",
           "legend", "interval_columns", "adjusted_column", "task_columns"]


@dataclass(frozen=True)
class Column:
    """One column of the comparison table."""

    name: str
    #: pandas dtype: ``object`` (text), ``bool``, ``int64`` or ``float64``
    dtype: str
    #: what it means, with its formula (report.md, report.html, docs)
    definition: str
    #: short header of the printed table and the report's main view (``""``: only in the full table)
    header: str = ""
    #: ``"%"``: a fraction shown as a percentage; ``"s"`` seconds; ``""`` a plain number
    unit: str = ""
    #: which way is better: ``"higher"``, ``"lower"`` or ``""`` (neither)
    direction: str = ""
    #: format of the shown value (after the percentage) in the reports and the printed table
    format: str = "{}"
    #: a per-document metric with a bootstrap interval and a paired p-value against the reference row
    interval: bool = False
    #: the printed table's format (``""``: not printed), of the value divided by ``scale``
    short: str = ""
    #: one line for the legend of the printed table
    summary: str = ""
    #: the printed table shows the value divided by this (``encode_texts_per_s`` in thousands)
    scale: float = 1.0

    def shown(self, value: Any, *, short: bool = False) -> str:
        """``value`` as the reports (``short``: the printed table) show it; no NaN handling (see :func:`cell`)."""
        if self.unit == "%":
            value = value * 100
        if short and self.unit == "s":  # three significant digits at most, two decimals: 0.06, 12.3, 1234
            return f"{value:.{2 if abs(value) < 10 else 1 if abs(value) < 100 else 0}f}"
        if short:
            return self.short.format(value / self.scale if self.scale != 1.0 else value)
        return self.format.format(value)


_R = "%"
TABLE: tuple[Column, ...] = (
    Column("strategy", "object", "a readable unique name: pre-tokenizer/unit for our BPE (okt/jamo), baseline/unit "
           "for the baselines, the peer's name for the other tokenizers (sentencepiece-unigram)", "strategy", short='{}'),
    Column("kind", "object", "bpe (our BPE after a pre-tokenizer), baseline (no BPE: every jamo, syllable, morpheme "
           "or 어절 a token, as in kortok) or peer (a tokenizer people use instead, trained on the same texts)"),
    Column("pre_tokenizer", "object", "how text is cut before BPE (whitespace, raw, okt, okt-analysis, kiwi, mecab); "
           "empty for peers, which pre-tokenize themselves, and the jamo/syllable baselines"),
    Column("unit", "object", "the symbols BPE starts from (syllable, jamo, byte); for baselines the token itself "
           "(jamo, syllable, morpheme, word); for peers their own model"),
    Column("lossless", "bool", "the pipeline promises decode(encode(text)) == text"),
    Column("drops_text", "bool", "the pre-tokenizer drops text (okt-analysis: 조사, punctuation and foreign words), "
           "so the row's token counts leave out what it dropped and its dropped characters count as "
           "unrepresentable: not comparable with the rows that keep everything (marked † in the reports)"),
    Column("vocab_size", "int64", "the vocabulary size asked for", "vocab", format="{:,d}", short='{:d}',
           summary='vocabulary size asked for'),
    Column("actual_vocab_size", "int64", "the vocabulary size reached (smaller when merges ran out, or a baseline "
           "has fewer types)", format="{:,d}"),
    Column("tokens_per_doc", "float64", "tokens per held-out document: T / N", "tok/doc", direction="lower",
           format="{:.2f}", interval=True, short='{:.2f}',
           summary='tokens per document'),
    Column("tokens_per_word", "float64", "tokens per 어절 of the original text, the fertility: T / W (lower means "
           "shorter sequences)", "tok/w", direction="lower", format="{:.3f}", interval=True, short='{:.2f}',
           summary='tokens per 어절 (white-space word), the fertility; lower = shorter'),
    Column("continued_word_rate", "float64", "share of 어절 occurrences overlapped by two or more tokens (a token of "
           "white space alone overlaps none; an 어절 a lossy row left with one token is not continued)", "cont%", _R,
           "lower", "{:.2f}", True, short='{:.1f}',
           summary='어절 cut into two or more tokens'),
    Column("chars_per_token", "float64", "characters of the held-out text per token (white space included)",
           format="{:.3f}", direction="higher", interval=True),
    Column("bytes_per_token", "float64", "UTF-8 bytes of the held-out text per token (a Hangul syllable is 3 bytes)",
           format="{:.3f}", direction="higher", interval=True),
    Column("unk_rate", "float64", "share of tokens that are unknown (<unk> or the peer's equivalent)", "unk%", _R,
           "lower", "{:.2f}", True, short='{:.2f}',
           summary='tokens that are unknown'),
    Column("unrepresentable_char_rate", "float64", "share of the held-out characters (white space excluded) the "
           "strategy cannot write at all: encoded alone, the character gives no token or an unknown one", unit=_R,
           direction="lower", format="{:.2f}"),
    Column("renyi_efficiency", "float64", "Rényi efficiency of the unigram token distribution over the held-out "
           "texts, H_a(p) / log |V| with H_a(p) = log(sum p_i^a) / (1 - a), a = 2.5 (Zouhar et al. 2023; the "
           "tokenization-scorer package defaults to a = 3), |V| the row's actual vocabulary size; its interval is "
           "the percentile interval of its first-order (delta-method) expansion in the documents' token counts, evaluated "
           "on the bootstrap resamples (not the measure recomputed on each resample)", "renyi",
           direction="higher", format="{:.3f}", interval=True, short='{:.3f}',
           summary='Rényi efficiency (alpha 2.5) of the token distribution'),
    Column("renyi_efficiency_observed", "float64", "the same with |V| the number of token types seen in the "
           "held-out text", format="{:.3f}"),
    Column("gold", "object", "the analyzer whose morpheme boundaries are the gold standard (Kiwi by default)"),
    Column("self_graded", "bool", "the strategy is built on the gold analyzer (at encode time, or at training time only: "
           "the *-train rows), so it is graded by its own ruler (marked ‡ after mF1 in the reports)"),
    Column("morph_precision", "float64", "share of the token boundaries strictly inside 어절 that are gold "
           "boundaries; boundaries are character offsets of the original text (a token covering part of a "
           "character covers all of it), gold ones every morpheme end inside an 어절 "
           "(korean_bpe.compare.gold); micro-averaged over all 어절", "mP%", _R, "higher", "{:.2f}", True,
           summary='token boundaries inside 어절 that are gold morpheme boundaries'),
    Column("morph_recall", "float64", "share of the gold morpheme boundaries inside 어절 that are token boundaries",
           "mR%", _R, "higher", "{:.2f}", True,
           summary='gold morpheme boundaries that are token boundaries'),
    Column("morph_f1", "float64", "harmonic mean of morph_precision and morph_recall: 2 TP / (predicted + gold)",
           "mF1%", _R, "higher", "{:.2f}", True, short='{:.1f}',
           summary="morpheme-boundary F1 against the gold analyzer; ‡ = its own analyzer"),
    Column("incomplete_hangul_rate", "float64", "share of the vocabulary's tokens holding part of a Hangul "
           "syllable's UTF-8 bytes but not all of it (byte-level vocabularies)", unit=_R, format="{:.2f}"),
    Column("jamo_token_rate", "float64", "share of the vocabulary's tokens holding jamo that do not compose into "
           "whole syllables", unit=_R, format="{:.2f}"),
    Column("partial_char_end_rate", "float64", "share of the vocabulary's tokens whose bytes end inside a UTF-8 "
           "character (byte-level vocabularies; a token of continuation bytes only counts: an upper bound)",
           unit=_R, direction="lower", format="{:.2f}"),
    Column("residue_rate", "float64", "share of the vocabulary that is an intermediate residue (Picky BPE, "
           "LiteToken): a token made by a merge and part of a later merge, that the held-out encoding emits for fewer than "
           "1% of its occurrences, alone or inside the merge trees of the tokens emitted (our BPE rows; NaN for "
           "others)", unit=_R, direction="lower", format="{:.2f}"),
    Column("single_token_retention", "float64", "STRR: share of the occurrences of the 1,000 most frequent held-out "
           "어절 that encode, each alone as a text, to one token other than <unk>", unit=_R, direction="higher", format="{:.2f}"),
    Column("round_trip_rate", "float64", "share of held-out documents with decode(encode(text)) == text exactly "
           "(NaN for a row that drops text)", "rt%", _R, "higher", "{:.2f}", True, short='{:.1f}',
           summary='documents with decode(encode(text)) == text'),
    Column("downstream_accuracy", "float64", "held-out accuracy of a small neural sequence classifier trained from "
           "scratch on the row's token ids of a seeded sample of the training split, averaged over its seeds "
           "(the share of seed x document pairs classified right; NaN unless compare(downstream=...) ran with "
           "labels; korean_bpe.compare.downstream); its interval and p-value come from a two-stage bootstrap "
           "of the held-out documents and the seeds", "down%", _R, "higher", "{:.2f}", True,
           summary="accuracy of a small classifier trained on the row's tokens (mean of its seeds) [interval]"),
    Column("downstream_macro_f1", "float64", "macro-averaged F1 over the classes of that classifier's held-out "
           "predictions, the mean of its seeds' (same bootstrap)", "dF1%", _R, "higher", "{:.2f}", True,
           summary="the downstream classifier's macro-F1 over the classes"),
    Column("downstream_seed_sd", "float64", "standard deviation of the per-seed held-out accuracies of the "
           "downstream classifier: how much its training noise moves one seed's number", "seed sd", _R,
           format="{:.2f}", summary="standard deviation of the downstream accuracy over the seeds"),
    Column("downstream_s", "float64", "CPU seconds of the downstream stage of the row: training its seeds' models "
           "and predicting the held-out documents", unit="s", format="{:.1f}"),
    Column("probe_accuracy", "float64", "held-out accuracy of the order-blind probe: a logistic regression on "
           "bag-of-token counts (the tokens' order is not seen), fitted on a seeded sample of the training "
           "split (NaN without labels): a cheap extrinsic signal, not a model trained on the sequences; its "
           "interval covers the held-out sample, not the fit", "probe%", _R, "higher",
           "{:.2f}", True, short='{:.1f}',
           summary='order-blind probe: bag-of-tokens logistic regression, with labels'),
    Column("train_s", "float64", "seconds to train (our BPE and truncatable peers: once, at the largest size; "
           "counting for a baseline; the original training's when model_cached)", "train s", "s",
           format="{:.3f}", short='{:.2f}',
           summary='seconds to train (our BPE: once, at the largest size)'),
    Column("pretok_s", "float64", "seconds to pre-tokenize the training and held-out texts (once per pre-tokenizer, "
           "shared by its units and sizes; NaN for peers and the jamo/syllable baselines)", unit="s",
           format="{:.2f}"),
    Column("encode_texts_per_s", "float64", "held-out documents encoded per second through the public "
           "encode_batch, on every core (each library's default: ours and HF tokenizers' threads, SentencePiece's), "
           "cold word cache, best of up to three runs (an analyzer row: the analyzer's time, "
           "measured once per analyzer, plus the row's encoding)", "kdoc/s",
           format="{:,.0f}", scale=1000.0, short='{:.1f}',
           summary='thousand held-out documents encoded per second'),
    Column("train_docs", "int64", "documents in the training split", format="{:,d}"),
    Column("test_docs", "int64", "held-out documents measured", format="{:,d}"),
    Column("model_cached", "bool", "the row's model was read from compare()'s model cache instead of trained in "
           "this run (train_s is then the original training's)"),
    Column("same_as", "object", "an earlier row of the same vocabulary size that gives exactly the same tokens on "
           "every held-out document (so every metric is the same; the plots draw one on top of the other), "
           "empty otherwise"),
    Column("reference", "object", "the row the p-values compare against, at the same vocabulary size (default: "
           "whitespace BPE of the row's unit, syllable for the other rows); empty when it was not run"),
)

#: the names of :data:`TABLE`'s columns (the statistics columns aside)
TABLE_NAMES: tuple[str, ...] = tuple(c.name for c in TABLE)
#: the metrics with a bootstrap interval and a p-value, in table order
INTERVAL_METRICS: tuple[str, ...] = tuple(c.name for c in TABLE if c.interval)


def interval_columns(metric: str) -> tuple[str, str, str]:
    """The names of ``metric``'s lower and upper interval bounds and its p-value."""
    return f"{metric}_ci_low", f"{metric}_ci_high", f"{metric}_p"


def adjusted_column(metric: str) -> str:
    """The name of ``metric``'s Holm-adjusted p-value (the one the marks use)."""
    return f"{metric}_p_holm"


def _statistics_columns(table: tuple[Column, ...]) -> tuple[Column, ...]:
    """The interval, p-value and adjusted p-value columns of each metric of ``table`` with ``interval``."""
    out = []
    for c in table:
        if c.interval:
            low, high, p = interval_columns(c.name)
            out += [
                Column(low, "float64", f"lower end of the bootstrap percentile interval of {c.name} (documents "
                       "resampled with a fixed seed; 95% by default)", unit=c.unit, format=c.format),
                Column(high, "float64", f"upper end of that interval of {c.name}", unit=c.unit, format=c.format),
                Column(p, "float64", f"two-sided p-value of the difference in {c.name} from the reference row: "
                       + ("McNemar's exact test on the documents each row classifies right"
                          if c.name == "probe_accuracy" else
                          "paired bootstrap (the same resampled documents and seeds)"
                          if c.name.startswith("downstream_") else "paired bootstrap (the same resampled documents)")
                       + ("" if c.name == "probe_accuracy" else
                          ", never below 2 / (resamples + 1), 0.002 at 1,000 resamples")
                       + "; NaN where not tested (the reference itself, a reference not measured, no resamples)",
                       format="{:.3g}"),
                Column(adjusted_column(c.name), "float64", f"{p} adjusted for the multiple comparisons of the run: "
                       f"Holm's step-down correction over every row's {p}; the marks use it", format="{:.3g}"),
            ]
    return tuple(out)


#: every column, the statistics ones included, in the frame's order
ALL: tuple[Column, ...] = TABLE + _statistics_columns(TABLE)
_BY_NAME = {c.name: c for c in ALL}
#: the columns of the frame :func:`korean_bpe.compare.compare` returns, in order
COLUMNS: tuple[str, ...] = tuple(c.name for c in ALL)
#: the dtype of each column (an empty frame has them too)
DTYPES: dict[str, str] = {c.name: c.dtype for c in ALL}


def task_columns(extra: Sequence[Column]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The frame's column names and dtypes when tasks add the columns ``extra``: :data:`COLUMNS`,
    then each of ``extra`` with its statistics columns (for those with ``interval``).

    >>> names, dtypes = task_columns([Column("token_count", "int64", "held-out tokens")])
    >>> names[-2:], dtypes["token_count"]
    (('probe_accuracy_p_holm', 'token_count'), 'int64')
    """
    clash = sorted({c.name for c in extra} & set(COLUMNS))
    if clash:
        raise ValueError(f"a task's columns must be new: {', '.join(clash)} already in the table")
    added = tuple(extra) + _statistics_columns(tuple(extra))
    return COLUMNS + tuple(c.name for c in added), DTYPES | {c.name: c.dtype for c in added}


def by_name(name: str) -> Column:
    """The :class:`Column` called ``name`` (KeyError for another name)."""
    return _BY_NAME[name]


def definitions(extra: Sequence[Column] = ()) -> dict[str, str]:
    """Column name -> its definition, in table order, the unit said for rates and seconds; with the
    tasks' columns ``extra`` and their statistics columns after the table's.

    >>> definitions([Column("token_count", "int64", "held-out tokens of the row")])["token_count"]
    'held-out tokens of the row'
    """
    out = {}
    for c in ALL + tuple(extra) + _statistics_columns(tuple(extra)):
        unit = " (a fraction in table.csv, a percentage in the reports)" if c.unit == "%" else \
            " (seconds)" if c.unit == "s" and "seconds" not in c.definition else ""
        better = f"; {c.direction} is better" if c.direction else ""
        out[c.name] = c.definition + unit + better
    return out


NA = "–"


def cell(name: str, value: Any, *, percent_sign: bool = True) -> str:
    """``value`` of column ``name`` as the reports show it: rates as percentages (with a ``%`` unless
    ``percent_sign`` is False: under a header that says so), NaN as an en dash, booleans as yes/no,
    columns not in the table as ``str``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NA
    if type(value).__name__ in ("bool", "bool_"):  # Python's and numpy's
        return "yes" if bool(value) else "no"
    column = _BY_NAME.get(name)
    if column is None:
        return str(value)
    try:
        return column.shown(value) + ("%" if column.unit == "%" and percent_sign else "")
    except (TypeError, ValueError):
        return str(value)


def legend(headers: Sequence[str] | None = None) -> str:
    """What the printed table's short headers mean (the CLI prints it under the table): those of
    ``headers`` (a header may carry `` [interval]``), else of every column the full table prints.

    >>> print(legend(["tok/w", "down% [interval]"]))
      tok/w     tokens per 어절 (white-space word), the fertility; lower = shorter [tokens_per_word]
      down%     accuracy of a small classifier trained on the row's tokens (mean of its seeds)
                [interval] [downstream_accuracy]
    """
    if headers is None:
        chosen = [c for c in TABLE if c.short and c.name != "strategy"]
    else:
        wanted = {h.split(" [")[0] for h in headers}
        chosen = [c for c in TABLE if c.header in wanted and c.summary and c.name != "strategy"]
    import textwrap

    return "\n".join(textwrap.fill(f"  {c.header:9s} {c.summary} [{c.name}]", 100, subsequent_indent=" " * 12)
                     for c in chosen)
