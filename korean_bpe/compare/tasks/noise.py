"""Token stability under Korean noise as a task: each row's held-out documents perturbed the way
people write (:mod:`korean_bpe.noise`), encoded again, and compared with the clean encoding.

For each perturbation ``<name>`` at its rate, on the ``N`` held-out documents (``W`` their 어절,
white-space words of the clean text):

* ``noise_<name>_stability``: per document ``1 - d / max(len(clean), len(noisy))``, ``d`` the
  Levenshtein distance between the clean and the noisy token-id sequences
  (:func:`korean_bpe.compare.metrics.token_stability`: insertions, deletions and substitutions of one
  token; two empty sequences are at distance 0, stability 1), averaged over the documents; with a
  bootstrap interval (the documents resampled as every metric, :func:`korean_bpe.compare.stats.resample_counts`)
  and a paired test against the row's reference;
* ``noise_<name>_fertility_change``: ``(T_noisy - T_clean) / W``, the tokens per clean 어절 the
  noise adds (the clean 어절 count both times: removing spaces does not shrink the denominator);
* ``noise_<name>_unk_rate_change``: the noisy text's share of unknown tokens minus the clean's;

and ``noise_stability``, the mean of the perturbations' stabilities (per document, then over the
documents), with its interval.  Every row reads the same noisy texts: the perturbations are seeded by
the run's seed (``row.seed``), and made once per process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...noise import DEFAULT_RATE, NOISE, PERTURBATIONS, check_rate, describe, perturb
from .. import metrics, stats
from ..columns import Column
from ..rows import Measured, RowInput
from .base import BaseTask, register_task

__all__ = ["NoiseTask"]


@register_task("noise")
class NoiseTask(BaseTask):
    """``perturbations``: None (every one of :data:`korean_bpe.noise.PERTURBATIONS` at ``rate``), a
    list of names (each at ``rate``) or a mapping name -> its rate; ``rate``: the default rate
    (:data:`korean_bpe.noise.DEFAULT_RATE`, 0.1).

    >>> NoiseTask({"keyboard_typo": 0.2}).metrics
    ('noise_keyboard_typo_stability', 'noise_stability')
    """

    name = "noise"
    verdict = (("noise stability", "noise_stability"),)

    def __init__(self, perturbations: Mapping[str, float] | Sequence[str] | None = None, *,
                 rate: float = DEFAULT_RATE) -> None:
        check_rate(rate)
        if perturbations is None:
            perturbations = PERTURBATIONS
        if isinstance(perturbations, str):
            raise TypeError(f"perturbations must be a list of names or a mapping name -> rate, not the string "
                            f"{perturbations!r}; write [{perturbations!r}]")
        rates = dict(perturbations) if isinstance(perturbations, Mapping) else dict.fromkeys(perturbations, rate)
        if not rates:
            raise ValueError(f"perturbations must name at least one of {', '.join(PERTURBATIONS)}")
        for name, r in rates.items():
            NOISE.get_class(name)  # ValueError naming the choices
            if not name.isidentifier():
                raise ValueError(f"perturbation {name!r} cannot name a column: register it under a name of "
                                 "letters, digits and _")
            check_rate(r)
        self.perturbations: dict[str, float] = rates
        self.metrics = tuple(f"noise_{name}_stability" for name in rates) + ("noise_stability",)
        self.columns = _columns(rates)
        self._noisy: tuple[Any, int, dict[str, list[str]]] | None = None  # (texts, seed, name -> noisy texts)

    def measure(self, row: RowInput) -> Measured:
        seg, clean = row.segmenter, row.encoded
        n_tokens, n_unk = row.n_tokens, _unknown(clean, seg.unk_ids)
        out: dict[str, Any] = {}
        per_doc = []
        for name, texts in self.noisy(row.held.texts, seed=row.seed).items():
            ids = seg.encode_batch(texts)
            stability = [metrics.token_stability(a, b) for a, b in zip(clean, ids)]
            noisy_tokens = sum(map(len, ids))
            out[f"noise_{name}_stability"] = sum(stability) / len(stability) if stability else float("nan")
            out[f"noise_{name}_fertility_change"] = (metrics.fertility(n_tokens=noisy_tokens, n_words=row.held.n_words)
                                                     - metrics.fertility(n_tokens=n_tokens, n_words=row.held.n_words))
            out[f"noise_{name}_unk_rate_change"] = (metrics.ratio(_unknown(ids, seg.unk_ids), noisy_tokens)
                                                    - metrics.ratio(n_unk, n_tokens))
            per_doc.append(stability)
        by_doc = [sum(values) / len(values) for values in zip(*per_doc)]
        out["noise_stability"] = sum(by_doc) / len(by_doc) if by_doc else float("nan")
        return Measured(out, evidence=per_doc)

    def noisy(self, texts: list[str], *, seed: int) -> dict[str, list[str]]:
        """Each perturbation's noisy ``texts`` (made once for the same list and seed, kept for the next rows)."""
        if self._noisy is None or self._noisy[0] is not texts or self._noisy[1] != seed:
            made = {name: perturb(texts, name, rate=rate, seed=seed) for name, rate in self.perturbations.items()}
            self._noisy = (texts, seed, made)
        return self._noisy[2]

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        """Each stability on each resample: the mean over its drawn documents (with their multiplicity)."""
        import numpy as np

        values = np.asarray(evidence, dtype=np.float64).T  # documents x perturbations
        counts = stats.resample_counts(values.shape[0], resamples=resamples, seed=seed)
        reps = (counts @ values) / counts.sum(1, keepdims=True)
        out = {metric: reps[:, k] for k, metric in enumerate(self.metrics[:-1])}
        out["noise_stability"] = reps.mean(1)
        return out

    def to_config(self) -> dict[str, Any]:
        return {"perturbations": dict(self.perturbations)}

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__ | {"_noisy": None}  # a worker makes its own noisy texts

    def __repr__(self) -> str:
        return f"NoiseTask({self.perturbations!r})"


def _unknown(encoded: list[list[int]], unk_ids: frozenset[int]) -> int:
    return sum(1 for ids in encoded for i in ids if i in unk_ids) if unk_ids else 0


def _columns(rates: Mapping[str, float]) -> tuple[Column, ...]:
    out = []
    for name, rate in rates.items():
        what = describe(name, rate=rate)
        out += [
            Column(f"noise_{name}_stability", "float64", f"token stability under {what}: per held-out document 1 - "
                   "Levenshtein(clean ids, noisy ids) / max(clean tokens, noisy tokens) (1 for two empty "
                   "sequences), averaged over the documents", unit="%", direction="higher", format="{:.2f}",
                   interval=True),
            Column(f"noise_{name}_fertility_change", "float64", f"tokens per clean 어절 that {name} adds: "
                   "(T_noisy - T) / W", format="{:+.3f}"),
            Column(f"noise_{name}_unk_rate_change", "float64", f"share of unknown tokens after {name} minus the "
                   "clean text's", unit="%", format="{:+.2f}"),
        ]
    out.append(Column("noise_stability", "float64", "mean token stability over the perturbations "
                      f"({', '.join(rates)}): per document, then over the documents", unit="%", direction="higher",
                      format="{:.2f}", interval=True))
    return tuple(out)
