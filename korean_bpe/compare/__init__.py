"""Compare tokenization strategies on held-out text: :func:`compare` (one call, a
:class:`~korean_bpe.compare.result.Comparison` holding one pandas table), a typed client of the
package's public API.

One module a stage, from the bottom: :mod:`.strategies` (the names, families and grid),
:mod:`.metrics` (pure metric functions), :mod:`.columns` (the one description of the columns),
:mod:`.stats` (bootstrap intervals, paired tests), :mod:`.heldout` (the held-out documents every row
shares), :mod:`.segmenters` (the :class:`~korean_bpe.compare.segmenters.Segmenter` protocol every
row is measured through, our BPE and the baselines) and :mod:`.peers`, :mod:`.rows` (what a task
reads of a row and gives back; a row's columns and evidence), :mod:`.measure` (the held-out
metrics of one row), :mod:`.tasks` (the :class:`~korean_bpe.compare.tasks.Task` protocol and the
built-in tasks: held-out measurements, probe, downstream classifier (:mod:`.downstream`); a new
task is one module and a registration line), :mod:`.pretok` (each pre-tokenization once),
:mod:`.gold` (the gold morpheme boundaries), :mod:`.model_cache`, :mod:`.plan` (what the
processes share), :mod:`.training` (one class per kind of strategy: how it trains, what it reads,
what it is compared with), :mod:`.execute` (the strategies' rows in this process or in workers),
:mod:`.assemble` (rows to the table), :mod:`.verdict`, :mod:`.result` (:class:`Comparison`,
:class:`Statistics`), :mod:`.config` (:class:`CompareConfig`, the settings), :mod:`.run`
(:func:`compare`), :mod:`.table` (:func:`~korean_bpe.compare.table.format_table`), :mod:`.plot`
and :mod:`.report`.

``korean-bpe compare`` runs it from the command line.  Importing this package imports neither
pandas nor matplotlib.
"""

from __future__ import annotations

__all__ = ["compare", "CompareConfig", "held_out_split", "format_table", "DEFAULT_STRATEGIES", "COLUMNS", "Comparison",
           "Statistics", "Downstream"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from . import run

        return getattr(run, name)
    raise AttributeError(f"module 'korean_bpe.compare' has no attribute {name!r}")
