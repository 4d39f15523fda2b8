"""Every significance statement in the benchmark records is checked against the recorded tables.

``benchmarks/README.md`` and ``benchmarks/compare_results.md`` describe runs in prose ("significant after
Holm", "level with the best", "p = 0.004").  Such a sentence is only as good as the table it reads, so
each paragraph that makes one carries machine-readable checks, in HTML comments a reader of the rendered
page does not see:

* ``<!-- table: ID -->`` just before a markdown table (or a fenced printed table) names it; ``csv:NAME``
  names a CSV file of ``benchmarks/`` (rows keyed by ``strategy``, and by ``strategy size`` where the
  file has a ``vocab_size`` column: ``whitespace/syllable 32000``);
* ``<!-- check: ID | ROWS | COLUMNS | OP VALUE -->`` asserts ``OP VALUE`` of every cell of the
  ``;``-separated ROWS and COLUMNS (a column by its header or a unique prefix of it).  OP is a
  comparison of the cell's first number (``<``, ``<=``, ``>``, ``>=``), of the p-value written in the
  cell as ``p=0.021`` / ``p<0.001`` (``p<``, ``p>=``), or of its text (``is``: equal once ``*`` and
  backticks are dropped; ``has`` / ``lacks``: contains a mark such as ``~``);
* ``<!-- check: none: WHY -->`` says why a paragraph that reads like a claim makes none (a legend, a
  description of the test, a figure from another record).

The test fails when a paragraph with a significance word has no check, when a check names a table,
row or column that is not there, and when a recorded value contradicts a check.
"""

from __future__ import annotations

import csv
import math
import operator
import re
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
FILES = ("README.md", "compare_results.md")
TABLE = re.compile(r"<!-- table: (\S+) -->")
CHECK = re.compile(r"<!-- check: (.*?) -->", re.S)
#: what reads like a statement of significance or of being level
CLAIM = re.compile(r"\bsignificant(?:ly)?\b|\blevel with\b|\bHolm p\b|\bp ?[=<] ?0?\.\d|\bp at the floor\b"
                   r"|\bnot different\b", re.I)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")
P_CELL = re.compile(r"\bp ?([=<]) ?(\d*\.?\d+)")
COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _key(cell: str) -> str:
    """A row's name: the first cell without emphasis, backticks, marks and what follows `` (`` or `` =``."""
    text = re.sub(r"[*`†‡]", "", cell).strip()
    return re.split(r" \(| =|\(ref", text)[0].strip()


def _markdown_table(lines: list[str], start: int) -> dict[str, dict[str, str]]:
    header = [c.strip() for c in lines[start].strip().strip("|").split("|")]
    rows: dict[str, dict[str, str]] = {}
    for line in lines[start + 2:]:
        if not line.lstrip().startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[_key(cells[0])] = dict(zip(header, cells))
    return rows


def _printed_table(lines: list[str], start: int) -> dict[str, dict[str, str]]:
    """A fenced table as the CLI prints it: rows keyed ``strategy vocab``, columns by the header's words
    (one word a column, as far as the row's fields go)."""
    header = lines[start + 1].split()
    rows: dict[str, dict[str, str]] = {}
    for line in lines[start + 2:]:
        if line.startswith("```"):
            break
        fields = line.split()
        if len(fields) > 2:
            rows[f"{fields[0]} {fields[1]}"] = dict(zip(header, fields))
    return rows


def _tables() -> dict[str, dict[str, dict[str, str]]]:
    tables: dict[str, dict[str, dict[str, str]]] = {}
    for name in FILES:
        lines = (BENCH / name).read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            found = TABLE.search(line)
            if not found:
                continue
            j = i + 1
            while not lines[j].strip():
                j += 1
            assert found.group(1) not in tables, f"{name}:{i + 1}: table id {found.group(1)} used twice"
            if lines[j].startswith("```"):
                tables[found.group(1)] = _printed_table(lines, j)
            else:
                assert lines[j].lstrip().startswith("|"), f"{name}:{i + 1}: no table follows {line.strip()}"
                tables[found.group(1)] = _markdown_table(lines, j)
    for path in BENCH.glob("*.csv"):
        with path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        keyed = {row["strategy"]: row for row in rows}
        keyed.update({f"{row['strategy']} {row['vocab_size']}": row for row in rows if row.get("vocab_size")})
        tables[f"csv:{path.name}"] = keyed
    return tables


def _paragraphs(name: str) -> list[tuple[int, str]]:
    """The prose paragraphs of a file (fenced blocks and tables left out), with their first line."""
    out, current, first, fenced = [], [], 0, False
    for number, line in enumerate((BENCH / name).read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.lstrip().startswith("|") or not line.strip():
            if current:
                out.append((first, "\n".join(current)))
            current = []
            continue
        if not current:
            first = number
        current.append(line)
    if current:
        out.append((first, "\n".join(current)))
    return out


def _column(row: dict[str, str], wanted: str, where: str) -> str:
    if wanted in row:
        return row[wanted]
    matches = [c for c in row if c.startswith(wanted)]
    assert len(matches) == 1, f"{where}: column {wanted!r} matches {matches or 'nothing'} of {list(row)}"
    return row[matches[0]]


def _holds(cell: str, op: str, value: str) -> bool:
    if op in ("is", "has", "lacks"):
        text = re.sub(r"[*`]", "", cell).strip()
        return text == value if op == "is" else (value in text) == (op == "has")
    if op in ("p<", "p>="):
        found = P_CELL.search(cell)
        assert found, f"no p-value written in the cell {cell!r}"
        sign, p = found.group(1), float(found.group(2))
        if op == "p>=":
            return sign == "=" and p >= float(value)
        return p <= float(value) if sign == "<" else p < float(value)
    found = NUMBER.search(cell.replace("**", ""))
    assert found, f"no number in the cell {cell!r}"
    number = float(found.group(0))
    return not math.isnan(number) and COMPARE[op](number, float(value))


def _checks() -> list[tuple[str, str]]:
    out = []
    for name in FILES:
        text = (BENCH / name).read_text(encoding="utf-8")
        for found in CHECK.finditer(text):
            line = text[:found.start()].count("\n") + 1
            out.append((f"{name}:{line}", " ".join(found.group(1).split())))
    return out


@pytest.mark.parametrize("name", FILES)
def test_every_significance_statement_carries_a_check(name: str) -> None:
    missing = [f"{name}:{line}: {text.splitlines()[0][:90]}" for line, text in _paragraphs(name)
               if CLAIM.search(CHECK.sub("", text)) and not CHECK.search(text)]
    assert not missing, "paragraphs that state significance with no <!-- check: ... --> (see this test's module):\n" + \
        "\n".join(missing)


def test_every_check_holds_in_the_recorded_table() -> None:
    tables = _tables()
    failed, count = [], 0
    for where, check in _checks():
        if check.startswith("none:"):
            assert len(check) > len("none:") + 10, f"{where}: say why the paragraph makes no claim"
            continue
        parts = [p.strip() for p in check.split("|")]
        assert len(parts) == 4, f"{where}: a check is 'TABLE | ROWS | COLUMNS | OP VALUE', got {check!r}"
        table_id, rows, columns, test = parts
        assert table_id in tables, f"{where}: no table {table_id!r} (known: {sorted(tables)})"
        op, _, value = test.partition(" ")
        assert op in (*COMPARE, "is", "has", "lacks", "p<", "p>="), f"{where}: unknown operator {op!r}"
        table = tables[table_id]
        for row_name in (r.strip() for r in rows.split(";")):
            assert row_name in table, f"{where}: table {table_id} has no row {row_name!r} (rows: {list(table)})"
            for column in (c.strip() for c in columns.split(";")):
                cell = _column(table[row_name], column, where)
                count += 1
                if not _holds(cell, op, value):
                    failed.append(f"{where}: {table_id} {row_name} {column}: {cell!r} is not {op} {value}")
    assert not failed, "statements the recorded tables contradict:\n" + "\n".join(failed)
    assert count >= 60, f"only {count} cells checked: the annotations were lost"


def test_the_checker_catches_a_contradiction() -> None:
    """The checker itself: a claim the cell contradicts fails, the one it supports holds."""
    assert _holds("0.0436", "<", "0.05") and not _holds("0.0545", "<", "0.05")
    assert _holds("80.35 [80.02, 80.70] p=0.258", "p>=", "0.05")
    assert not _holds("80.35 [80.02, 80.70] p=0.258", "p<", "0.05")
    assert _holds("82.32 [81.99, 82.65] p<0.001", "p<", "0.05")
    assert not _holds("82.32 [81.99, 82.65] p<0.001", "p>=", "0.05")
    assert _holds("p<0.001", "p<", "0.001") and not _holds("p<0.001", "p<", "0.0004")
    assert _holds("81.29~ [80.1, 82.3]", "has", "~") and _holds("80.97? [79.9, 81.9]", "lacks", "~")
    assert _holds("level with the best", "is", "level with the best")
    assert _key("`whitespace/syllable` (ref)") == "whitespace/syllable"
    assert _key("whitespace/syllable (reference) = raw/syllable") == "whitespace/syllable"
