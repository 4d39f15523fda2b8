"""A task added the way a user adds one: this module and its registration line (``@register_task``).

``token_count``: the held-out tokens of a row; ``long_doc_rate``: the share of held-out documents
longer than :data:`LONG` tokens, with a bootstrap interval and a paired test like every metric."""

from __future__ import annotations

from korean_bpe.compare import stats
from korean_bpe.compare.columns import Column
from korean_bpe.compare.tasks import BaseTask, Measured, register_task

LONG = 20


@register_task("token-count")
class TokenCount(BaseTask):
    name = "token-count"
    metrics = ("long_doc_rate",)
    verdict = (("long documents", "long_doc_rate"),)
    columns = (Column("token_count", "int64", "held-out tokens of the row"),
               Column("long_doc_rate", "float64", f"share of held-out documents of more than {LONG} tokens",
                      unit="%", direction="lower", format="{:.2f}", interval=True))

    def measure(self, row):  # noqa: ANN001, ANN201
        long = [len(ids) > LONG for ids in row.encoded]
        notes = ("token-count: every held-out document is long",) if all(long) else ()
        return Measured({"token_count": row.n_tokens, "long_doc_rate": sum(long) / len(long)}, evidence=long,
                        notes=notes)

    def replicates(self, evidence, *, point, resamples, seed):  # noqa: ANN001, ANN201
        import numpy as np

        counts = stats.resample_counts(len(evidence), resamples=resamples, seed=seed)
        long = np.asarray(evidence, dtype=np.float64)
        return {"long_doc_rate": counts @ long / counts.sum(1)}
