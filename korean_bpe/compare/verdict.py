"""The verdict of a comparison: for each family of metrics and each vocabulary size, the best strategy
and the strategies not significantly different from it.

The families, in the order the reports show them (:data:`FAMILIES`): downstream accuracy (a model
trained on the tokens; first, when it was measured), the order-blind probe, morpheme-boundary F1
(the rows graded by their own analyzer left out) and the sequence length (tokens per 어절; the rows that
drop text left out).  In each,
the best row is the one with the best value (ties: the earlier row of the table); every other row is
compared with it by the metric's paired test on the same resamples (the paired bootstrap of
:func:`~korean_bpe.compare.stats.paired_p`, McNemar's exact test for the probe), and the p-values of
a family and size are adjusted for the number of comparisons with Holm's step-down method
(:func:`~korean_bpe.compare.stats.holm`).  A row whose adjusted p is at least ``alpha`` is "not significantly different from
the best": the strategies a reader cannot tell apart from the best on this data.

Only the strategies a user would deploy compete (:func:`not_a_candidate`): the baselines are
reference points (every character, 어절 or analyzer morpheme a token: what the subword rows are
measured against), a row with more than :data:`MAX_UNK_RATE` of its tokens unknown has lost text, and
a row that did not reach the vocabulary size asked (the corpus ran out of merges) is a smaller model
than its neighbours; such rows keep their values in the table and are listed in the verdict as
reference points, never as best.  A metric a row cannot be compared on is left out of its family
(:func:`_unfair`): the length of a row that drops text, the scores of a model that learned nothing
(:func:`unlearned`: a classifier giving one class for every document, or an accuracy not surely
better than always predicting the most frequent label; a NER tagger finding no entity; too few
documents or steps for it).

:func:`choose` turns the verdicts into one recommendation a size (:class:`Choice`): on the first
family measured of :data:`EVIDENCE` (a model trained on the tokens; then the tasks' own families; then
the order-blind probe), among the candidates level with the best, the one with the shortest sequences
(fewest tokens per 어절, the cost of every model that reads them) among those that keep the text; ties
go to the better value on the evidence, then to the earlier row.  Without a labelled family there is
no evidence of what serves a model, and the choice says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import columns, stats
from .rows import Row
from .tasks import Task, paired_p

__all__ = ["FAMILIES", "EVIDENCE", "MAX_UNK_RATE", "SIZE_SLACK", "Verdict", "Choice", "verdicts", "choose",
           "not_a_candidate", "unlearned", "grouped", "format_verdicts", "format_choices"]

#: family name -> the metric that decides it, in the order the reports show them
FAMILIES: dict[str, str] = {
    "downstream": "downstream_accuracy",
    "probe (order-blind)": "probe_accuracy",
    "morpheme boundaries": "morph_f1",
    "sequence length": "tokens_per_word",
}
#: the families a choice rests on, in order of preference (the tasks' own families come between the
#: two): what a model trained on the tokens does, then what a bag of them does
EVIDENCE = ("downstream", "probe (order-blind)")
#: a row with more of its tokens unknown than this is not a candidate: it lost that much text
MAX_UNK_RATE = 0.05
#: a row whose vocabulary reached less than this share of the size asked is not a candidate at that size
SIZE_SLACK = 0.98


@dataclass(frozen=True)
class Verdict:
    """The verdict of one family at one vocabulary size."""

    family: str
    metric: str
    vocab_size: int
    best: str
    value: float
    #: the strategies not significantly different from ``best`` (Holm-adjusted p >= alpha), best first
    tied: tuple[str, ...]
    #: strategy -> its Holm-adjusted p-value against ``best``
    adjusted_p: dict[str, float]
    #: the rows compared (``best`` included)
    compared: int
    #: the metric's column, for a task's own metric (None: :func:`korean_bpe.compare.columns.by_name`)
    column: columns.Column | None = None
    #: strategy -> (its value, why it is not a candidate: :func:`not_a_candidate`), the rows measured
    #: but left out of the competition, in table order
    reference_points: dict[str, tuple[float, str]] = field(default_factory=dict)
    #: whether a choice may rest on this family (False for a task whose ``choice_evidence`` is False:
    #: robustness under noise says which rows hold up, not which serve a model)
    evidence: bool = True

    def shown(self) -> str:
        """The best value as the reports show it (a rate as a percentage)."""
        column = self.column or columns.by_name(self.metric)
        return column.shown(self.value) + ("%" if column.unit == "%" else "")

    def level(self) -> str:
        """The rows level with the best, as the terminal says it: ``"none"``, ``"all N others"`` (every
        other row compared, two or more), else their names."""
        others = self.tied[1:]
        if not others:
            return "none"
        return f"all {len(others)} others" if len(others) == self.compared - 1 and len(others) > 1 else ", ".join(others)


def verdicts(rows: Sequence[Row], tasks: Sequence[Task], *, alpha: float) -> list[Verdict]:
    """The verdicts of the measured ``rows`` (as :func:`~korean_bpe.compare.assemble.build_frame`
    leaves them: with their replicates, and the evidence of the tasks that keep it), per family
    of :data:`FAMILIES` and of the tasks' ``verdict`` families measured in some row, per vocabulary size; the p-values are the tests of
    the ``tasks`` that measure each metric (:func:`korean_bpe.compare.tasks.paired_p`); none for a
    family whose rows have no resamples (``Statistics(resamples=0)``)."""
    out = []
    own = {c.name: c for task in tasks for c in task.columns}  # the tasks' own metrics
    families = [*((family, metric, True) for family, metric in FAMILIES.items()),
                *((family, metric, getattr(task, "choice_evidence", True)) for task in tasks
                  for family, metric in task.verdict)]
    for family, metric, evidence in families:
        column = own.get(metric) or columns.by_name(metric)
        for size in sorted({row.vocab_size for row in rows}):
            measured = [row for row in rows if row.vocab_size == size and _number(row.columns.get(metric))
                         and not (metric == "morph_f1" and row.columns.get("self_graded"))]
            left_out = {row.strategy: (float(row.columns[metric]), why) for row in measured
                        if (why := not_a_candidate(row.columns))}
            candidates = [row for row in measured if row.strategy not in left_out and not _unfair(metric, row.columns)]
            if len(candidates) < 2:
                continue
            sign = -1 if column.direction == "lower" else 1
            best = max(candidates, key=lambda row: sign * row.columns[metric])  # max keeps the first of equals
            others = [row for row in candidates if row is not best]
            raw = [paired_p(metric, row, best, tasks) for row in others]
            if all(math.isnan(p) for p in raw):
                continue
            adjusted = stats.holm(raw)
            tied = tuple(row.strategy for row, p in zip(others, adjusted) if not math.isnan(p) and p >= alpha)
            out.append(Verdict(family, metric, size, best.strategy, float(best.columns[metric]),
                               (best.strategy, *tied), {row.strategy: p for row, p in zip(others, adjusted)},
                               len(candidates), own.get(metric), left_out, evidence))
    return out


def not_a_candidate(row: Mapping[str, Any]) -> str:
    """Why the row (a table row, or :attr:`Row.columns <korean_bpe.compare.rows.Row>`) cannot be a
    verdict's best, or ``""`` when it can: a baseline (a reference point), more than
    :data:`MAX_UNK_RATE` of its tokens unknown, or a vocabulary short of the size asked.

    >>> not_a_candidate({"kind": "baseline", "strategy": "baseline/word", "unit": "word"})
    'a reference point (every 어절 a token)'
    >>> not_a_candidate({"kind": "bpe", "unk_rate": 0.0, "vocab_size": 16000, "actual_vocab_size": 2475})
    'reached 2,475 of 16,000 tokens'
    >>> not_a_candidate({"kind": "peer", "unk_rate": 0.002, "vocab_size": 8000, "actual_vocab_size": 8000})
    ''
    """
    if row.get("kind") == "baseline":
        unit = str(row.get("unit") or "")
        what = {"word": "every 어절 a token", "syllable": "every character a token", "jamo": "every jamo a token",
                "morpheme": "every morpheme of the analyzer a token"}.get(unit, "no BPE")
        return f"a reference point ({what})"
    unknown = row.get("unk_rate")
    if _number(unknown) and unknown > MAX_UNK_RATE:
        return f"{unknown:.0%} of its tokens unknown"
    asked, reached = row.get("vocab_size"), row.get("actual_vocab_size")
    if _number(asked) and _number(reached) and reached < SIZE_SLACK * asked:
        return f"reached {int(reached):,} of {int(asked):,} tokens"
    return ""


def _unfair(metric: str, row: Mapping[str, Any]) -> str:
    """Why ``metric`` of the row cannot be compared with the others' (``""``: it can): the length of
    a row that drops text leaves out what it dropped; the scores of a model that learned nothing
    (:func:`unlearned`) say nothing of the tokens.

    >>> _unfair("downstream_accuracy", {"downstream_one_class": True})
    'its model learned nothing (one class for every document)'
    >>> _unfair("nsmc_macro_f1", {"downstream_one_class": True}), _unfair("tokens_per_word", {"drops_text": False})
    ('', '')
    """
    if metric == "tokens_per_word" and row.get("drops_text"):
        return "drops text, so its sequences leave out what it dropped"
    for task, how in unlearned(row).items():
        if metric.startswith(f"{task}_"):
            return f"its model learned nothing ({how})"
    return ""


def unlearned(row: Mapping[str, Any]) -> dict[str, str]:
    """The tasks whose model on the row (a table row, or :attr:`Row.columns
    <korean_bpe.compare.rows.Row>`) learned nothing, and how it shows.  A classifier task
    (``downstream``, ``nsmc``, ...): every seed's model predicts one class for every document
    (``<task>_one_class``), or the accuracy's interval reaches down to what always predicting the
    most frequent training label gets (``<task>_accuracy_ci_low`` <= ``<task>_chance``).  Any task
    may say it in its own words (``<prefix>_unlearned``, ``""`` when its model learned; the
    metrics starting with ``<prefix>_`` are its model's: ``ner_entity_unlearned``, the NER tagger
    that tags every token O).

    >>> unlearned({"downstream_one_class": False, "downstream_chance": 0.51, "downstream_accuracy_ci_low": 0.46})
    {'downstream': 'its accuracy interval reaches down to 51.00%, always predicting the most frequent label'}
    >>> unlearned({"downstream_one_class": False, "downstream_chance": 0.51, "downstream_accuracy_ci_low": 0.76})
    {}
    >>> unlearned({"ner_entity_unlearned": "it tags every token O: no entity in any test sentence"})
    {'ner_entity': 'it tags every token O: no entity in any test sentence'}
    """
    found = {}
    for key, value in row.items():
        if key.endswith("_unlearned") and isinstance(value, str) and value:  # a task's own rule, in its words
            found[key.removesuffix("_unlearned")] = value
        elif key.endswith("_one_class") and value is True:
            found[key.removesuffix("_one_class")] = "one class for every document"
        elif key.endswith("_chance") and _number(value):
            task = key.removesuffix("_chance")
            low = row.get(f"{task}_accuracy_ci_low")
            if task not in found and _number(low) and low <= value:
                found[task] = f"its accuracy interval reaches down to {value:.2%}, always predicting the most frequent label"
    return found


@dataclass(frozen=True)
class Choice:
    """The strategy :func:`choose` recommends at one vocabulary size, and on what evidence."""

    vocab_size: int
    #: the strategy to choose
    strategy: str
    #: the verdict it rests on (None: no labelled family was measured, the choice is the shortest sequences)
    evidence: Verdict | None
    #: its value on the evidence's metric (NaN without evidence)
    value: float
    #: ``(low, high)``: the interval of that value (NaN without resamples)
    interval: tuple[float, float]
    #: its tokens per 어절
    tokens_per_word: float
    #: the candidates level with the best on the evidence (the best first), or every candidate without evidence
    level: tuple[str, ...]
    #: where it stands across the run's tasks, when two or more were measured (set by
    #: :func:`korean_bpe.compare.summary.place_choices`; ``""``: no summary at its size)
    across: str = ""

    def describe(self, *, alpha: float) -> str:
        """The choice and its evidence in one paragraph (the CLI and the reports print it).

        >>> v = Verdict("downstream", "downstream_accuracy", 8000, "mecab/syllable", 0.7888,
        ...             ("mecab/syllable", "whitespace/syllable"), {"whitespace/syllable": 0.41}, 3)
        >>> print(Choice(8000, "whitespace/syllable", v, 0.7783, (0.759, 0.799), 2.16,
        ...              ("mecab/syllable", "whitespace/syllable")).describe(alpha=0.05))
        at 8,000 tokens, choose whitespace/syllable: downstream accuracy 77.83% [75.90, 79.90], level with the best, mecab/syllable (78.88%; Holm-adjusted p 0.41 >= 0.05), with the shortest sequences of the 2 candidates level with it that keep the text (2.16 tokens per 어절)
        """
        head = f"at {self.vocab_size:,} tokens, choose {self.strategy}"
        v = self.evidence
        if v is None and len(self.level) == 1:
            return (f"{head}: the only candidate ({self.tokens_per_word:.2f} tokens per 어절); the other rows are "
                    "reference points or fell short (below), so nothing was compared")
        if v is None:
            return (f"{head}: the shortest sequences ({self.tokens_per_word:.2f} tokens per 어절) of the "
                    f"{len(self.level)} candidates that keep the text. No labelled task was measured, so nothing "
                    "here says which segmentation serves a model best: give labels (an NSMC-format TSV, or "
                    "--labels) and --downstream")
        column = v.column or columns.by_name(v.metric)
        unit = "%" if column.unit == "%" else ""
        shown = column.shown(self.value) + unit
        if not math.isnan(self.interval[0]):
            shown += f" [{column.shown(self.interval[0])}, {column.shown(self.interval[1])}]"
        what = _METRIC_WORDS.get(v.metric, f"{v.family} ({v.metric})")
        if self.strategy == v.best:
            standing = "the best of the candidates"
        else:
            standing = (f"level with the best, {v.best} ({v.shown()}; Holm-adjusted p "
                        f"{v.adjusted_p[self.strategy]:.2g} >= {alpha:g})")
        if len(self.level) > 1:
            standing += (f", with the shortest sequences of the {len(self.level)} candidates level with it that keep "
                         f"the text ({self.tokens_per_word:.2f} tokens per 어절)")
        across = f"; {self.across}" if self.across else ""
        return f"{head}: {what} {shown}, {standing}{across}"


#: how :meth:`Choice.describe` names the evidence's metric
_METRIC_WORDS = {"downstream_accuracy": "downstream accuracy", "probe_accuracy": "order-blind probe accuracy"}


def choose(found: Sequence[Verdict], table: Any) -> list[Choice]:
    """One :class:`Choice` per vocabulary size of ``table`` (the comparison's frame) with a candidate
    (see the module docstring for the rule), on the verdicts ``found``
    (:func:`verdicts`, whose order gives the families' order: :data:`EVIDENCE` first, then the others)."""
    records = table.to_dict("records") if hasattr(table, "to_dict") else list(table)
    out = []
    for size in sorted({int(r["vocab_size"]) for r in records}):
        at_size = {r["strategy"]: r for r in records if int(r["vocab_size"]) == size}
        candidates = [r for r in at_size.values() if not not_a_candidate(r) and _number(r.get("tokens_per_word"))]
        if not candidates:
            continue
        evidence = _evidence([v for v in found if v.vocab_size == size])
        keeps_text = [r for r in candidates if not r.get("drops_text")]
        if evidence is None:
            pool = keeps_text or candidates
            pick = min(pool, key=lambda r: r["tokens_per_word"])
            out.append(Choice(size, pick["strategy"], None, math.nan, (math.nan, math.nan),
                              float(pick["tokens_per_word"]), tuple(r["strategy"] for r in pool)))
            continue
        level = [at_size[name] for name in evidence.tied]
        sign = -1 if (evidence.column or columns.by_name(evidence.metric)).direction == "lower" else 1
        pool = [r for r in level if not r.get("drops_text")] or level[:1]
        pick = min(pool, key=lambda r: (r["tokens_per_word"], -sign * r[evidence.metric]))
        low, high = (pick.get(n, math.nan) for n in columns.interval_columns(evidence.metric)[:2])
        out.append(Choice(size, pick["strategy"], evidence, float(pick[evidence.metric]),
                          (float(low), float(high)), float(pick["tokens_per_word"]), tuple(evidence.tied)))
    return out


def _evidence(at_size: Sequence[Verdict]) -> Verdict | None:
    """The verdict a choice rests on: downstream, then a task's own family, then the probe; None when
    none of them was decided (the families of :data:`FAMILIES` without labels are not evidence)."""
    unlabelled = set(FAMILIES) - set(EVIDENCE)
    ranked = sorted((v for v in at_size if v.family not in unlabelled and v.evidence),
                    key=lambda v: (v.family != EVIDENCE[0], v.family == EVIDENCE[1]))
    return ranked[0] if ranked else None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not math.isnan(value)


def grouped(found: Sequence[Verdict]) -> list[tuple[str, list[tuple[str, Verdict]]]]:
    """The verdicts in their order, the families of one kind measured several ways at one size
    together (``"noise accuracy drop (nfd)"``, ``"noise accuracy drop (mix)"``: a task's family per
    perturbation): ``(kind, [(way, verdict), ...])`` in the place of the first; every other verdict
    alone, ``(family, [("", verdict)])``.

    >>> v = lambda family: Verdict(family, "m", 8000, "r1", 0.5, ("r1",), {}, 2)
    >>> [(kind, [way for way, _ in ways]) for kind, ways in grouped([v("x (a)"), v("y"), v("x (b)"), v("z (c)")])]
    [('x', ['a', 'b']), ('y', ['']), ('z (c)', [''])]
    """
    import re

    ways: dict[tuple[str, int], list[tuple[str, Verdict]]] = {}
    kinds = []
    for v in found:
        m = re.fullmatch(r"(.+) \((.+)\)", v.family)
        kinds.append((m.group(1), v.vocab_size) if m else None)
        if m:
            ways.setdefault((m.group(1), v.vocab_size), []).append((m.group(2), v))
    out: list[tuple[str, list[tuple[str, Verdict]]]] = []
    for v, key in zip(found, kinds):
        if key is not None and len(ways[key]) > 1:
            if ways[key][0][1] is v:  # the kind's place: its first way's
                out.append((key[0], ways[key]))
        else:
            out.append((v.family, [("", v)]))
    return out


def format_verdicts(found: Sequence[Verdict], *, alpha: float, width: int = 100) -> str:
    """The verdicts as text, one paragraph a family and size, wrapped to ``width`` columns; the
    families of one kind measured several ways at a size (:func:`grouped`) as one block, a line each.

    >>> v = lambda family, best, tied: Verdict(family, "probe_accuracy", 8000, best, 0.5, (best, *tied), {}, 3)
    >>> print(format_verdicts([v("x (a)", "r1", ["r2"]), v("x (b)", "r2", []), v("y", "r1", ["r2", "r3"])], alpha=0.05))
    x at 8,000 (best; not significantly different from it, Holm-adjusted p >= 0.05):
        (a)  r1 (50.00%); r2
        (b)  r2 (50.00%); none
    y at 8,000 (probe_accuracy): best r1 (50.00%); not significantly different from it (Holm-adjusted p
        >= 0.05, 2 comparisons): all 2 others
    """
    import textwrap

    lines = []
    for kind, ways in grouped(found):
        if ways[0][0]:
            lines.append(f"{kind} at {ways[0][1].vocab_size:,} (best; not significantly different from it, "
                         f"Holm-adjusted p >= {alpha:g}):")
            pad = max(len(way) for way, _ in ways) + 2
            for way, w in ways:
                lines.append(textwrap.fill(f"{'(' + way + ')':<{pad}}  {w.best} ({w.shown()}); {w.level()}", width,
                                           initial_indent="    ", subsequent_indent=" " * (pad + 6)))
            continue
        v = ways[0][1]
        text = (f"{v.family} at {v.vocab_size:,} ({v.metric}): best {v.best} ({v.shown()}); not significantly "
                f"different from it (Holm-adjusted p >= {alpha:g}, {v.compared - 1} "
                f"comparison{'s' if v.compared > 2 else ''}): {v.level()}")
        lines.append(textwrap.fill(text, width, subsequent_indent="    "))
    return "\n".join(lines)


def format_choices(choices: Sequence[Choice], found: Sequence[Verdict], *, alpha: float, width: int = 100) -> str:
    """The choices (:func:`choose`) as text, each followed by the rows left out of the competition at
    its size (:func:`not_a_candidate`), wrapped to ``width`` columns; ``""`` without a choice."""
    import textwrap

    lines = []
    for choice in choices:
        lines.append(textwrap.fill(choice.describe(alpha=alpha), width, subsequent_indent="    "))
        left: dict[str, str] = {}
        for v in found:
            if v.vocab_size == choice.vocab_size:
                for name, (_, why) in v.reference_points.items():
                    left.setdefault(name, why)
        if left:
            text = "not candidates: " + "; ".join(f"{name}, {why}" for name, why in left.items())
            lines.append(textwrap.fill(text, width, initial_indent="    ", subsequent_indent="    "))
    return "\n".join(lines)
