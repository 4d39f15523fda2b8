"""Bootstrap intervals and paired comparisons of the per-document metrics of a comparison.

The held-out documents are resampled with replacement, ``resamples`` times, with a fixed seed
(:func:`resample_counts`: how many times each document is drawn in each resample).  Every row of
a comparison uses the same resamples, in any process, so the difference between two rows on a
resample is a *paired* bootstrap.

Each metric is a ratio of sums over the documents (:data:`RATIOS`): a row measures, per document,
the parts of :data:`PARTS` (its tokens, 어절, characters, unknown tokens, ...), and the metric on a
resample is the same ratio of the resample's sums, ``W @ X`` (``W``: resamples x documents draw
counts, ``X``: documents x parts), one matrix product per row.  The interval is the percentile
interval of those values (95% by default).  Rényi efficiency is not a ratio of sums, and it is not
recomputed on each resample: what is bootstrapped is its first-order (delta-method) expansion in the
documents' token counts, ``E + sum_d (w_d - 1) g_d``, with ``g_d`` the document's influence
(:func:`renyi_influence`); its interval is the percentile interval of that linearization.

Paired comparison against a reference row (:func:`paired_p`): the two-sided p-value
``2 min(P*(d <= 0), P*(d >= 0))`` of the resampled differences ``d`` (each share counted as
``(1 + k) / (resamples + 1)``, so no p-value is below the floor ``2 / (resamples + 1)``,
:func:`p_floor`).  It agrees with the percentile interval of the difference away from the boundary
(0 far outside the interval gives a small p, 0 well inside a large one); where 0 lies within a
resample or two of an end of the interval, the ``+ 1`` counting and numpy's interpolated quantiles
can disagree, so the p-value, not the interval, decides a mark.  Identical rows give 1.
``probe_accuracy`` uses McNemar's exact test on the documents the two rows classify differently
(:func:`mcnemar_p`, scipy's binomial test).

Many rows are tested at once, so the reports mark by Holm's step-down correction of each metric's
p-values over the rows of a run (:func:`holm`), the raw p-values kept beside them.

Below :data:`MIN_DOCUMENTS` held-out documents, or below :func:`min_resamples` resamples for the
confidence asked, a percentile interval means nothing (one document gives a zero-width interval and
p = 2 / (resamples + 1) for every difference): :class:`~korean_bpe.compare.Statistics` refuses too
few resamples, and :func:`~korean_bpe.compare.compare` gives no intervals, with a note, for too few
documents.

A hand case: 30 of 100 documents round-trip, so a resample's rate is Binomial(100, 0.3) / 100,
whose 2.5% and 97.5% quantiles are 0.21 and 0.39:

>>> import numpy as np
>>> w = resample_counts(100, resamples=4000, seed=0)
>>> x = np.zeros((100, len(PARTS))); x[:, PARTS.index("docs")] = 1; x[:30, PARTS.index("round_trip")] = 1
>>> reps = ratio_replicates(replicate_sums(x, w))["round_trip_rate"]
>>> [round(float(v), 2) for v in percentile_interval(reps, 0.95)]
[0.21, 0.39]
>>> round(mcnemar_p([True] * 9 + [False], [False] * 9 + [True]), 12)   # 9 vs 1 differ: 2 P(Bin(10, .5) <= 1)
0.021484375
>>> holm([0.01, 0.04, 0.03, float("nan")])   # 3 tests: 3 x 0.01, then 2 x 0.03, then max(0.06, 1 x 0.04)
[0.03, 0.06, 0.06, nan]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

__all__ = ["RESAMPLES", "CONFIDENCE", "MIN_DOCUMENTS", "PARTS", "RATIOS", "resample_counts", "replicate_sums",
           "ratio_replicates", "renyi_influence", "percentile_interval", "paired_p", "mcnemar_p", "holm", "p_floor",
           "min_resamples", "enough_resamples", "seed_counts", "seed_document_metrics", "seed_document_replicates"]

#: the fewest resamples of the held-out documents by default (:func:`enough_resamples`)
RESAMPLES = 1000
#: coverage of the intervals; ``1 - CONFIDENCE`` is the significance level of the marks
CONFIDENCE = 0.95
#: the fewest held-out documents intervals and p-values are given for (fewer: none, with a note)
MIN_DOCUMENTS = 20
#: the per-document counts a row measures, the columns of its document matrix
PARTS = ("docs", "tokens", "words", "continued", "unk", "round_trip", "tp", "pred", "gold", "renyi", "chars",
         "bytes")
#: metric -> (numerator parts, denominator parts): the metric is the sum of the numerator parts over
#: the documents divided by that of the denominator parts (F1: 2 TP / (predicted + gold))
RATIOS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "tokens_per_doc": (("tokens",), ("docs",)),
    "tokens_per_word": (("tokens",), ("words",)),
    "chars_per_token": (("chars",), ("tokens",)),
    "bytes_per_token": (("bytes",), ("tokens",)),
    "continued_word_rate": (("continued",), ("words",)),
    "unk_rate": (("unk",), ("tokens",)),
    "round_trip_rate": (("round_trip",), ("docs",)),
    "morph_precision": (("tp",), ("pred",)),
    "morph_recall": (("tp",), ("gold",)),
    "morph_f1": (("tp", "tp"), ("pred", "gold")),
}


def min_resamples(confidence: float) -> int:
    """The fewest resamples for intervals of ``confidence``: each tail beyond the percentile interval
    holds at least 5 resamples, ``ceil(10 / (1 - confidence))`` (so the p-value floor
    :func:`p_floor` is well below ``1 - confidence``).

    >>> min_resamples(0.95), min_resamples(0.99)
    (200, 1000)
    """
    return math.ceil(round(10 / (1 - confidence), 6))


def enough_resamples(tests: int, confidence: float) -> int:
    """The default number of resamples of a run of ``tests`` rows: :data:`RESAMPLES`, or more where
    Holm's correction over that many tests could otherwise never reach significance (the smallest
    p-value, :func:`p_floor`, times ``tests`` must fall below ``1 - confidence``):
    ``max(RESAMPLES, 100 * ceil(2 * tests / (1 - confidence) / 100))``.

    >>> enough_resamples(12, 0.95), enough_resamples(50, 0.95), enough_resamples(50, 0.99)
    (1000, 2000, 10000)
    """
    need = 2 * tests / (1 - confidence)
    return max(RESAMPLES, 100 * math.ceil(round(need, 6) / 100))


def p_floor(resamples: int) -> float:
    """The smallest p-value a paired bootstrap of ``resamples`` resamples can give: ``2 / (resamples + 1)``.

    >>> round(p_floor(1000), 6)
    0.001998
    """
    return 2 / (resamples + 1)


@lru_cache(maxsize=2)
def resample_counts(n: int, *, resamples: int, seed: int) -> Any:
    """How many times each of ``n`` documents is drawn in each of ``resamples`` resamples with
    replacement (a ``resamples x n`` uint8 array, each row summing to ``n``: a document drawn 256
    times in one resample, probability far below 1e-300, would raise OverflowError),
    from ``numpy.random.default_rng(seed)``: the same in every process.  Kept for the last two
    calls (the rows of a comparison share it)."""
    import numpy as np

    if n < 1 or resamples < 1:
        raise ValueError(f"need documents and resamples, got n={n}, resamples={resamples}")
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, n), dtype=np.uint8)
    for b in range(resamples):
        counts = np.bincount(rng.integers(0, n, size=n), minlength=n)
        if counts.max() > 255:  # pragma: no cover - see above
            raise OverflowError("a document was drawn more often than the count type holds")
        out[b] = counts
    out.setflags(write=False)
    return out


def replicate_sums(parts: Any, counts: Any) -> Any:
    """``counts @ parts``: each resample's sum of each part (``resamples x parts``, float64), one
    float32 matrix product (:func:`_as_float32` of the counts, kept for the rows of a run; sums of
    whole counts are exact below 2**24, the Rényi influences float32-rounded)."""
    import numpy as np

    return (_as_float32(counts) @ np.asarray(parts, dtype=np.float32)).astype(np.float64)


_FLOAT32: list[tuple[Any, Any]] = []  # (counts, their float32 copy) of the last call


def _as_float32(counts: Any) -> Any:
    """``counts`` as float32, the copy kept for the next call with the same array (the rows of a
    comparison share one: converting it is most of a row's bootstrap)."""
    import numpy as np

    if not _FLOAT32 or _FLOAT32[0][0] is not counts:
        _FLOAT32[:] = [(counts, counts.astype(np.float32))]
    return _FLOAT32[0][1]


def ratio_replicates(sums: Any, metrics: Sequence[str] | None = None) -> dict[str, Any]:
    """metric -> its value on each resample (NaN where the denominator is 0), from
    :func:`replicate_sums` of a row's document matrix (columns :data:`PARTS`)."""
    import numpy as np

    out = {}
    for name in (RATIOS if metrics is None else metrics):
        num, den = RATIOS[name]
        top = sum(sums[:, PARTS.index(p)] for p in num)
        bottom = sum(sums[:, PARTS.index(p)] for p in den)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[name] = np.where(bottom != 0, top / np.where(bottom != 0, bottom, 1), np.nan)
    return out


def renyi_influence(flat_ids: Any, doc_of_token: Any, n_docs: int, *, alpha: float, vocab_size: int) -> Any:
    """Each document's first-order effect on Rényi efficiency ``E = H_a(p) / log |V|`` (the
    derivative of ``E`` along the document's token counts): with ``c_i`` the count of token ``i``
    over all documents, ``S = sum c_i^a``, ``T = sum c_i`` and ``c_di`` the document's counts,
    ``g_d = a / (1 - a) (sum_i c_di c_i^(a-1) / S - T_d / T) / log |V|``.  The ``g_d`` sum to 0 (``E``
    does not change when every count is scaled), so a resample drawing document ``d`` ``w_d`` times
    has ``E* ~= E + sum_d w_d g_d``.  Zeros when ``|V| <= 1`` or there are no tokens."""
    import numpy as np

    g = np.zeros(n_docs, dtype=np.float64)
    if flat_ids.size == 0 or vocab_size <= 1 or alpha == 1:
        return g
    c = np.bincount(flat_ids).astype(np.float64)
    s, t = float(np.sum(c ** alpha)), float(flat_ids.size)
    u = np.bincount(doc_of_token, weights=(c ** (alpha - 1) / s)[flat_ids], minlength=n_docs)
    t_d = np.bincount(doc_of_token, minlength=n_docs)
    return alpha / (1 - alpha) * (u - t_d / t) / math.log(vocab_size)


def percentile_interval(replicates: Any, confidence: float) -> tuple[float, float]:
    """The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the non-NaN
    ``replicates`` (numpy's linear interpolation); NaN, NaN when there are none."""
    import numpy as np

    values = np.asarray(replicates, dtype=np.float64)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return math.nan, math.nan
    lo, hi = np.quantile(values, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def paired_p(replicates: Any, reference: Any) -> float:
    """Two-sided paired-bootstrap p-value of a row against its reference from their values on the
    same resamples: ``min(1, 2 min((1 + #{d <= 0}) / (B + 1), (1 + #{d >= 0}) / (B + 1)))`` with
    ``d`` the differences (resamples where either is NaN left out); NaN without any.

    >>> paired_p([0.5, 0.6, 0.7], [0.5, 0.6, 0.7])     # identical rows
    1.0
    >>> paired_p([1.0, 1.1, 1.2], [0.0, 0.1, 0.2])     # better on every resample: the smallest p
    0.5
    """
    import numpy as np

    d = np.asarray(replicates, dtype=np.float64) - np.asarray(reference, dtype=np.float64)
    d = d[~np.isnan(d)]
    if d.size == 0:
        return math.nan
    low = (1 + int(np.count_nonzero(d <= 0))) / (d.size + 1)
    high = (1 + int(np.count_nonzero(d >= 0))) / (d.size + 1)
    return min(1.0, 2 * min(low, high))


def mcnemar_p(correct: Sequence[bool] | Any, reference: Sequence[bool] | Any) -> float:
    """McNemar's exact two-sided test of two classifiers on the same documents: with ``b`` the
    documents only the first gets right and ``c`` those only the reference gets right,
    ``min(1, 2 P(X <= min(b, c)))`` for ``X ~ Binomial(b + c, 1/2)`` (``scipy.stats.binomtest``);
    1.0 when they never differ.

    >>> mcnemar_p([True, True, False], [True, False, True])   # b = c = 1
    1.0
    """
    import numpy as np

    a, r = np.asarray(correct, dtype=bool), np.asarray(reference, dtype=bool)
    if a.shape != r.shape:
        raise ValueError(f"correct and reference must be per document of the same documents, got {a.shape} and "
                         f"{r.shape}")
    b, c = int(np.count_nonzero(a & ~r)), int(np.count_nonzero(~a & r))
    if b + c == 0:
        return 1.0
    from .._optional import require

    binomtest = require("scipy.stats", purpose="McNemar's test of probe_accuracy").binomtest
    return min(1.0, float(binomtest(min(b, c), b + c, 0.5, alternative="two-sided").pvalue))


def holm(p_values: Sequence[float] | Any) -> list[float]:
    """Holm's step-down adjustment of the family ``p_values`` (NaN: not tested, left out and kept
    NaN): the ``k``-th smallest of ``m`` p-values becomes ``max_{j <= k} min(1, (m - j + 1) p_(j))``.
    Rejecting where the adjusted p is below ``alpha`` keeps the chance of any false rejection in the
    family below ``alpha`` (Holm 1979), whatever the dependence between the tests.

    >>> holm([0.04, 0.001, 1.0])
    [0.08, 0.003, 1.0]
    """
    values = [float(p) for p in p_values]
    tested = sorted((p, k) for k, p in enumerate(values) if not math.isnan(p))
    out = [math.nan] * len(values)
    running, m = 0.0, len(tested)
    for j, (p, k) in enumerate(tested):
        running = max(running, min(1.0, (m - j) * p))
        out[k] = running
    return out


@lru_cache(maxsize=2)
def seed_counts(seeds: int, *, resamples: int, seed: int) -> Any:
    """How many times each of ``seeds`` trained models is drawn in each of ``resamples`` resamples
    with replacement (a ``resamples x seeds`` float64 array, each row summing to ``seeds``), from
    ``numpy.random.default_rng([seed, 1])``: the same in every process and for every row, so that
    two rows' resamples draw the same seed numbers (with :func:`resample_counts`' documents)."""
    import numpy as np

    if seeds < 1 or resamples < 1:
        raise ValueError(f"need seeds and resamples, got seeds={seeds}, resamples={resamples}")
    rng = np.random.default_rng([seed, 1])
    out = np.stack([np.bincount(rng.integers(0, seeds, size=seeds), minlength=seeds) for _ in range(resamples)])
    out = out.astype(np.float64)
    out.setflags(write=False)
    return out


def seed_document_metrics(predictions: Any, truth: Any, classes: Any, *, doc_weights: Any = None,
                          seed_weights: Any = None) -> dict[str, Any]:
    """Accuracy and macro-F1 of ``predictions`` (seeds x documents labels) against ``truth`` (a label
    per document), each (seed, document) pair weighted by its seed's and its document's weight.

    Without weights (every one 1): ``downstream_accuracy`` is the share of pairs predicted right;
    ``downstream_macro_f1`` the mean over seeds of each seed's F1 averaged over ``classes`` (F1 of a
    class ``2 TP / (predicted + true)``; a class neither predicted nor true is left out of the
    average, as scikit-learn's ``f1_score(average="macro")`` leaves out labels absent from both).
    With ``doc_weights`` (resamples x documents) and ``seed_weights`` (resamples x seeds), each
    value is an array with one entry per resample: the metric on the resample's draws.

    >>> import numpy as np
    >>> pred = np.array([[1, 0, 1, 1], [1, 0, 0, 1]]); truth = np.array([1, 0, 0, 1])
    >>> m = seed_document_metrics(pred, truth, np.array([0, 1]))
    >>> float(m["downstream_accuracy"]), round(float(m["downstream_macro_f1"]), 4)   # 7 of 8; (0.7333 + 1) / 2
    (0.875, 0.8667)
    """
    import numpy as np

    pred = np.asarray(predictions)
    truth = np.asarray(truth)
    single = doc_weights is None
    w = np.ones((1, pred.shape[1]), dtype=np.float32) if single else _as_float32(doc_weights)
    v = np.ones((1, pred.shape[0])) if seed_weights is None else np.asarray(seed_weights, dtype=np.float64)
    n_seeds = pred.shape[0]
    right = (w @ (pred == truth[None, :]).astype(np.float32).T).astype(np.float64)  # resamples x seeds
    docs = w.astype(np.float64).sum(1, keepdims=True)
    accuracy = (v * right).sum(1) / (n_seeds * docs[:, 0])
    f1s = []
    for k in np.asarray(classes):
        tp = w @ ((pred == k) & (truth[None, :] == k)).astype(np.float32).T
        predicted = w @ (pred == k).astype(np.float32).T
        true = w @ (truth == k).astype(np.float32)[:, None]
        bottom = (predicted + true).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            f1s.append(np.where(bottom > 0, 2 * tp / np.where(bottom > 0, bottom, 1), np.nan))
    per_seed = np.nanmean(np.stack(f1s), axis=0) if f1s else np.full(right.shape, np.nan)
    macro = (v * per_seed).sum(1) / n_seeds
    if single:
        return {"downstream_accuracy": float(accuracy[0]), "downstream_macro_f1": float(macro[0])}
    return {"downstream_accuracy": accuracy, "downstream_macro_f1": macro}


def seed_document_replicates(downstream: Mapping[str, Any], *, resamples: int, seed: int) -> dict[str, Any]:
    """The downstream metrics on each resample of a two-stage bootstrap: the held-out documents drawn
    as for every metric (:func:`resample_counts`), the seeds drawn with replacement
    (:func:`seed_counts`), both with ``seed``; ``downstream`` is the row's ``_downstream`` entry
    (:func:`korean_bpe.compare.downstream.evaluate`)."""
    pred = downstream["predictions"]
    return seed_document_metrics(pred, downstream["truth"], downstream["classes"],
                                 doc_weights=resample_counts(pred.shape[1], resamples=resamples, seed=seed),
                                 seed_weights=seed_counts(pred.shape[0], resamples=resamples, seed=seed))


def row_replicates(parts: Any, point: Mapping[str, float], *, resamples: int, seed: int,
                   renyi: float = math.nan) -> dict[str, Any]:
    """metric -> its values on the resamples, for every metric of :data:`RATIOS` whose ``point``
    value is a number (NaN ones are left out) and ``renyi_efficiency`` (``renyi``, from the
    ``renyi`` part: :func:`renyi_influence`)."""
    counts = resample_counts(parts.shape[0], resamples=resamples, seed=seed)
    sums = replicate_sums(parts, counts)
    keep = [m for m in RATIOS if not _nan(point.get(m))]
    out = ratio_replicates(sums, keep)
    if not _nan(renyi):
        out["renyi_efficiency"] = renyi + sums[:, PARTS.index("renyi")]
    return out


def _nan(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))
