"""write_report: the files, a self-contained HTML page, the Markdown (the two saying the same), the
definitions; bad output directories refused before any work."""

from __future__ import annotations

import base64
import re
from collections import Counter
from pathlib import Path

import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

from korean_bpe.compare import columns, report  # noqa: E402
from test_plot import SPEC_COLUMNS, sample_frame, sample_segmentations  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    sentences, cuts = sample_segmentations()
    out = tmp_path_factory.mktemp("r") / "results" / "nsmc"  # two levels created
    return report.write_report(
        sample_frame(), out, corpus={"corpus": "NSMC 영화 리뷰", "training file": "ratings_train.txt"},
        sentences=sentences, examples=cuts,
        token_lengths={"okt/jamo": Counter({1: 5, 2: 3}), "raw/byte": [1, 1, 2, 3]},
        command=["korean-bpe", "compare", "ratings_train.txt", "-o", "results dir"],
        notes=["skipped mecab: python-mecab-ko is not installed"],
    )


def test_definitions_cover_every_column_in_order() -> None:
    assert tuple(report.DEFINITIONS) == columns.COLUMNS and set(SPEC_COLUMNS) < set(columns.COLUMNS)
    assert all(len(d) > 15 for d in report.DEFINITIONS.values())
    assert set(report.FORMATS) <= set(report.DEFINITIONS)
    # one unit for rates: every rate says it is a percentage in the reports
    rates = [c.name for c in columns.ALL if c.unit == "%"]
    assert {"morph_f1", "morph_precision", "unk_rate", "probe_accuracy", "morph_f1_ci_low"} <= set(rates)
    assert all("a percentage in the reports" in report.DEFINITIONS[r] for r in rates)


def test_files_written(written: dict[str, Path]) -> None:
    names = list(written)
    assert names == ["table.csv", "tokens_per_word.png", "tradeoff.png", "renyi.png", "token_lengths.png",
                     "probe.png", "segmentation.png", "report.md", "report.html"]
    for name, path in written.items():
        assert path.is_file() and path.parent.name == "nsmc"
        if name.endswith(".png"):
            assert path.read_bytes()[:8] == PNG_MAGIC
    assert not [p for p in written["report.html"].parent.iterdir() if p.name.startswith(".")]  # no temp left


def test_files_get_the_umask_permissions(written: dict[str, Path]) -> None:
    from korean_bpe.files import new_file_mode

    assert {p.stat().st_mode & 0o777 for p in written.values()} == {new_file_mode()}


def test_csv_round_trips_the_frame(written: dict[str, Path]) -> None:
    df = sample_frame()
    back = pd.read_csv(written["table.csv"])
    for text in ("pre_tokenizer", "same_as"):  # "" and NaN are one empty CSV field
        back[text] = back[text].fillna("")
    assert list(back.columns) == list(columns.COLUMNS)
    assert {"probe_accuracy_ci_low", "probe_accuracy_ci_high", "probe_accuracy_p"} <= set(back.columns)
    pd.testing.assert_frame_equal(back, df, check_dtype=False)


def test_html_is_self_contained(written: dict[str, Path]) -> None:
    page = written["report.html"].read_text(encoding="utf-8")
    # every PNG embedded, byte for byte, as a data URI
    uris = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    pngs = [p for n, p in written.items() if n.endswith(".png")]
    assert len(uris) == len(pngs) == 6
    assert sorted(base64.b64decode(u) for u in uris) == sorted(p.read_bytes() for p in pngs)
    # nothing fetched from the network, no external file referenced
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:|//)', page, re.I)
    assert not re.search(r"url\((?!data:)", page) and "<link" not in page and "@import" not in page
    assert not re.search(r'<script[^>]+src=', page)
    # the Korean font embedded for the page's own text
    assert "@font-face" in page and "data:font/ttf;base64," in page


def test_html_holds_table_definitions_examples_notes_command_versions(written: dict[str, Path]) -> None:
    page = written["report.html"].read_text(encoding="utf-8")
    start = page.index('id="all-columns"')
    table = page[start:page.index("</table>", start)]
    assert table.count("<tr") == 1 + len(sample_frame())
    for column in columns.COLUMNS:
        assert f"<th>{column}</th>" in table
        assert f"<dt>{column}</dt><dd>" in page
    assert "<td>okt-analysis/syllable</td>" in table and '<td class="num">48.00%</td>' in table  # morph_f1 0.48
    assert "<td>no</td>" in table  # the lossy row; NaN-free frame
    assert page.index('id="comparison"') < page.index("<details><summary>All columns") < start
    assert "NSMC 영화 리뷰" in page and "skipped mecab: python-mecab-ko is not installed" in page
    assert "korean-bpe compare ratings_train.txt -o &#39;results dir&#39;" in page
    assert "▁너무너무 | 재밌게 | 보아 | ㅆ습니다" in page  # jamo composed, stray ㅆ as compatibility jamo
    assert "<th>python</th>" in page and "<th>pandas</th>" in page and "<th>korean_bpe</th>" in page
    assert re.search(r'<table[^>]+class="[^"]*sortable', page) and "addEventListener" in page


def test_markdown_links_pngs_and_holds_everything(written: dict[str, Path]) -> None:
    md = written["report.md"].read_text(encoding="utf-8")
    for name in written:
        if name.endswith(".png"):
            assert re.search(rf"!\[[^\]]+\]\({re.escape(name)}\)", md)
    header = "| " + " | ".join(columns.COLUMNS) + " |"
    assert header in md
    assert md.count("\n| whitespace/syllable | bpe |") == 2
    for column, definition in report.DEFINITIONS.items():
        assert f"- `{column}`: {report._md(definition)}" in md
    assert "- `skipped mecab: python-mecab-ko is not installed`" in md
    assert "korean-bpe compare ratings_train.txt -o 'results dir'" in md


def test_cells_format_nan_bool_and_percent() -> None:
    assert report._cell("morph_f1", float("nan")) == "–"
    assert report._cell("lossless", True) == "yes"
    assert report._cell("unk_rate", 0.00125) == "0.12%"
    assert report._cell("vocab_size", 32000) == "32,000"
    assert report._cell("strategy", "okt/jamo") == "okt/jamo"


def test_main_view_short_headers_percent_marks_and_intervals(written: dict[str, Path]) -> None:
    """The table people read: short headers that carry the unit, every rate in percent (morpheme
    scores too), ~ where the Holm-adjusted p-value is not below 0.05 (the okt rows of the sample), †
    after a row that drops text, (ref) after a reference row, ‡ after mF1 graded by its own analyzer,
    (≡ X) after a row identical to X, and the intervals."""
    view = report.main_view(sample_frame())
    assert view["headers"] == ["strategy", "vocab", "tok/doc", "tok/w", "cont%", "unk%", "renyi", "mP%", "mR%",
                               "mF1%", "rt%", "probe%", "train s", "kdoc/s"]
    rows = {r[0]: r for r in view["rows"][:7]}  # vocab 4,000
    ws, okt, lossy = rows["whitespace/syllable(ref)"], rows["okt/syllable"], rows["okt-analysis/syllable†"]
    assert view["row_classes"][:2] == ["ref", "ref"] and view["row_classes"][2] == ""
    assert rows["kiwi/jamo"][9] == "83.00‡" and "*" not in "".join(rows["kiwi/jamo"])  # self-graded, significant
    assert ws[9] == "48.00" and ws[7] == "50.00" and ws[11] == "80.10"  # mF1 0.48, mP 0.50, probe 0.801: percent
    assert ws[13] == "120.0"  # 120,000 documents a second, in thousands as the header says
    assert okt[9] == "74.00~" and okt[2].endswith("~") and not rows["raw/byte (≡ whitespace/jamo)"][9].endswith("~")
    assert lossy[0] == "okt-analysis/syllable†"
    assert view["interval_headers"][:4] == ["strategy", "vocab", "tok/doc", "tok/w"]
    assert view["intervals"][0][view["interval_headers"].index("mF1%")] == "47.04–48.96"  # 0.48 -+ 2%
    md = written["report.md"].read_text(encoding="utf-8")
    assert "| okt/syllable | 4,000 |" in md and "Intervals, in the same units:" in md
    assert "95% bootstrap percentile intervals" in md and "† after a name" in md
    page = written["report.html"].read_text(encoding="utf-8")
    main = page[page.index('id="comparison"'):page.index("</table>", page.index('id="comparison"'))]
    assert '<td class="num">48.00<br><small>47.04–48.96</small></td>' in main  # each value over its interval
    assert "position:sticky;left:0" in page  # the strategy column stays when scrolling sideways


def test_a_frame_of_an_older_run_gets_no_marks(tmp_path: Path) -> None:
    view = report.main_view(sample_frame(stats=False))
    assert view["intervals"] == [] and not any(c.endswith(("~", "†")) for r in view["rows"] for c in r)
    md = report.write_report(sample_frame(stats=False), tmp_path)["report.md"].read_text(encoding="utf-8")
    assert "Intervals, in the same units" not in md and "bootstrap percentile" not in md


HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "[x](javascript:alert(1))",
           "<!-- a --> &amp; *b* `c`", "[x]: javascript:alert(1)"]


def _outside_code(md: str) -> str:
    """The Markdown outside fenced code blocks and code spans (inside them nothing is HTML)."""
    out, fence = [], None
    for line in md.splitlines():
        m = re.match(r"^(`{3,})", line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None:
            out.append(re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", line))
    return "\n".join(out)


def test_corpus_text_and_file_names_are_escaped_in_both_reports(tmp_path: Path) -> None:
    """A review or a corpus file named like HTML is text in report.md (in any CommonMark viewer that
    renders HTML) as in report.html."""
    sentences = [f"영화 {h} 최고" for h in HOSTILE]
    cuts = {"whitespace/syllable": [s.split() for s in sentences], "raw/byte": [[s] for s in sentences]}
    corpus = {"corpus": f"reviews {HOSTILE[0]}.txt", "held-out documents from": f"{HOSTILE[1]}.tsv"}
    paths = report.write_report(sample_frame(), tmp_path, corpus=corpus, sentences=sentences, examples=cuts,
                                notes=[f"skipped x: {h}" for h in HOSTILE],
                                command=["korean-bpe", "compare", f"{HOSTILE[0]}.txt", "```", "-o", "r"])
    md = paths["report.md"].read_text(encoding="utf-8")
    text = _outside_code(md)
    assert "<script>alert(1)</script>" in md and text.count("|") > 100  # the hostile text is there, tables too
    assert not re.search(r"<[A-Za-z!/]", text)  # no tag, comment or closing tag outside code
    links = set(re.findall(r"\]\([^)]*\)", text))
    assert links == {f"]({name})" for name in paths if name.endswith(".png")}  # our images, no other link
    assert "- **corpus**: `reviews <script>alert(1)</script>.txt`" in md  # the name as given, literally
    assert "- `` skipped x: <!-- a --> &amp; *b* `c` ``" in md  # a backtick inside: a longer code span
    assert f"korean-bpe compare '{HOSTILE[0]}.txt' '```' -o r" in md  # the command in a longer fence, as run
    assert "\n````sh\n" in md
    page = paths["report.html"].read_text(encoding="utf-8")
    assert "<script>alert" not in page and "<img src=x" not in page and "<!-- a -->" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_markdown_table_escapes_pipes() -> None:
    assert report._markdown_table(["a", "b"], [["x|y", "1"]], right=[False, True]) == \
        "| a | b |\n|:---|---:|\n| x\\|y | 1 |"


def test_plots_without_data_are_named_not_drawn(tmp_path: Path) -> None:
    df = sample_frame(probe=False)
    df["morph_f1"] = float("nan")
    paths = report.write_report(df, tmp_path)
    assert "probe.png" not in paths and "tradeoff.png" not in paths and "segmentation.png" not in paths
    md = paths["report.md"].read_text(encoding="utf-8")
    assert "- probe.png: no probe_accuracy (no labels were given)" in md
    assert "- tradeoff.png: morph_f1 is NaN in every row" in md
    assert "–" in md  # NaN shown as a dash
    assert not list(tmp_path.glob(".*"))


def test_bad_frames_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="empty"):
        report.write_report(sample_frame().iloc[:0], tmp_path / "a")
    with pytest.raises(TypeError, match="DataFrame"):
        report.write_report([1, 2], tmp_path / "b")  # type: ignore[arg-type]
    sentences, cuts = sample_segmentations()
    with pytest.raises(ValueError, match="without sentences"):
        report.write_report(sample_frame(), tmp_path / "c", examples=cuts)
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists()


def test_lone_surrogates_shown_in_the_report_refused_in_the_table(tmp_path: Path) -> None:
    """UTF-8 cannot hold a lone surrogate: report.md/html show it as \\udXXX; table.csv (data)
    refuses it before any file is written."""
    sentences, cuts = sample_segmentations()
    name = next(iter(cuts))
    paths = report.write_report(sample_frame(), tmp_path / "a", sentences=[*sentences[:-1], "영화\ud800좋다"],
                                examples={name: [*cuts[name][:-1], ["▁영화", "\ud800", "좋다"]]},
                                notes=["a note \udc80"])
    for page in ("report.md", "report.html"):
        text = paths[page].read_bytes().decode("utf-8")  # strict
        assert "\\ud800" in text and "a note \\udc80" in text
    df = sample_frame()
    df.loc[1, "strategy"] = "raw/jamo\udfff"
    with pytest.raises(ValueError, match=r"row 1, column 'strategy': 'raw/jamo\\udfff' holds a lone surrogate"):
        report.write_report(df, tmp_path / "b")
    assert not (tmp_path / "b").exists()


def test_output_dir_accepted_when_missing_or_a_directory(tmp_path: Path) -> None:
    assert report.check_output_dir(tmp_path) == tmp_path.resolve()
    missing = tmp_path / "new" / "deeper"
    assert report.check_output_dir(missing) == missing.resolve()
    assert not (tmp_path / "new").exists()  # checking creates nothing
    assert list(tmp_path.iterdir()) == []  # and leaves no probe file


def test_output_dir_refused_with_the_fix(tmp_path: Path) -> None:
    f = tmp_path / "table.csv"
    f.write_text("x")
    with pytest.raises(ValueError, match=r"is a file: give a directory"):
        report.check_output_dir(f)
    with pytest.raises(ValueError, match=r"table.csv is a file; choose another place"):
        report.check_output_dir(f / "sub")
    with pytest.raises(ValueError, match="empty"):
        report.check_output_dir("  ")
    with pytest.raises(TypeError):
        report.check_output_dir(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is a file"):  # refused before any plot is drawn
        report.write_report(sample_frame(), f)
    assert f.read_text() == "x"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc (unwritable even for root)")
def test_output_dir_refused_when_not_writable() -> None:
    with pytest.raises(ValueError, match=r"cannot create /proc/korean_bpe_results in /proc .*choose a writable"):
        report.check_output_dir("/proc/korean_bpe_results")


def test_package_versions_lists_installed_only() -> None:
    versions = report.package_versions()
    assert versions["korean_bpe"] == __import__("korean_bpe").__version__
    assert versions["pandas"] == pd.__version__
    assert "not-a-package" not in versions and set(versions) <= {"python", *report.VERSIONED}


def test_examples_and_token_lengths_read_recorded_pieces_like_segmenters() -> None:
    # compare(pieces=...) records {text: pieces} at the largest size: the same examples and histograms
    from korean_bpe.compare.segmenters import BaselineSegmenter

    small = BaselineSegmenter.train(["영화 정말 재밌다"], unit="word", vocab_size=3)
    seg = BaselineSegmenter.train(["영화 정말 재밌다"], unit="word", vocab_size=4)
    texts = ["영화 정말 좋다", "정말 재밌다 ㅋㅋ"]
    segmenters = {("baseline/word", 3): small, ("baseline/word", 4): seg}
    recorded = {("baseline/word", 4): {t: seg.pieces(t) for t in texts}}
    assert report.segmentation_examples(recorded, texts) == report.segmentation_examples(segmenters, texts) == {
        "baseline/word": [["영화", "정말", "<unk>"], ["정말", "재밌다", "<unk>"]]}
    assert report.token_lengths(recorded, texts) == report.token_lengths(segmenters, texts) == {
        "baseline/word": Counter({2: 5, 3: 1})}


def test_the_cli_report_shows_paths_as_given_intervals_and_marks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """korean-bpe compare with relative paths: report.md and report.html name the corpus as typed (no
    absolute path of this machine); the printed table has its interval table and legend."""
    from korean_bpe.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "data").mkdir()
    reviews = ["영화 정말 재밌다 최고", "배우 연기가 좋아요", "지루하고 별로였다 ㅠㅠ", "다시 보고 싶은 영화"]
    (tmp_path / "data" / "train.txt").write_text("\n".join(r + f" {i}" for i in range(60) for r in reviews),
                                                 encoding="utf-8")
    (tmp_path / "data" / "test.txt").write_text("\n".join(reviews * 5), encoding="utf-8")
    assert main(["compare", "data/train.txt", "--eval", "data/test.txt", "--strategies",
                 "whitespace/syllable,raw/syllable,baseline/word", "--vocab-sizes", "60", "--gold", "none",
                 "--resamples", "200", "--no-progress", "--jobs", "1", "-o", "out", "--full"]) == 0
    out = capsys.readouterr()
    assert "95% bootstrap intervals (200 resamples of the held-out documents, seed 0):" in out.out
    assert "  ~      after a value: not significantly different" in out.out and "wrote out/:" in out.err
    for page in ("report.md", "report.html"):
        text = (tmp_path / "out" / page).read_text(encoding="utf-8")
        assert "data/train.txt" in text and "data/test.txt" in text and str(tmp_path) not in text, page
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "| raw/syllable (≡ whitespace/syllable) |" in md  # the same ids on these single-spaced reviews
    assert "| resamples | 200 |" in md  # the configuration, as run


def test_not_tested_is_told_apart_from_not_significant_and_no_probe_sample_without_labels(tmp_path: Path) -> None:
    """A row whose reference was not measured shows ? (not tested), not a bare value that reads as
    significant; the legend of a run without resamples says there are no intervals (not "over 0
    resamples"); "How this was made" leaves out the probe's sample size when there were no labels."""
    df = sample_frame()
    okt = df["strategy"] == "okt/syllable"
    for metric in columns.INTERVAL_METRICS:
        df.loc[okt, [f"{metric}_p", columns.adjusted_column(metric)]] = float("nan")
    view = report.main_view(df)
    row = next(r for r in view["rows"] if r[0] == "okt/syllable")
    assert row[3].endswith("?") and row[9].endswith("?")  # tok/w, mF1%
    ref = next(r for r in view["rows"] if r[0] == "whitespace/syllable(ref)")
    assert not any(c.endswith(("?", "~")) for c in ref)  # the reference itself: marked on its name
    bare = sample_frame(stats=False)
    assert "over 0 resamples" not in report._legend(bare, 0.95, 0) and "No intervals" in report._legend(bare, 0.95, 0)
    config = {"labels": False, "probe_train_docs": 20000, "resamples": 0, "confidence": 0.95}
    md = report.write_report(sample_frame(probe=False), tmp_path, config=config)["report.md"].read_text(encoding="utf-8")
    assert "| resamples | 0 |" in md and "probe_train_docs" not in md.split("## How this was made")[1]


def test_every_table_and_plot_of_the_page_scrolls_in_its_own_box(written: dict[str, Path]) -> None:
    """The page was 3,145 px wide at any screen width (the segmentation tables sat outside a scroll
    box): every table is now inside a ``div.wide`` (its own horizontal scroll), every plot inside a
    ``div.plot`` that a click switches to full size, so the page itself never scrolls sideways
    (checked in headless Chromium at 1400 and 390 px while writing this)."""
    page = written["report.html"].read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"<table\b", page)]
    assert len(starts) >= 5
    for k in starts:
        opener = page.rfind("<div", 0, k)
        assert re.match(r'<div class="wide[" ]', page[opener:]) and "</div>" not in page[opener:k], page[k:k + 60]
    assert page.count('<div class="plot"><img') == sum(name.endswith(".png") for name in written)
    assert 'classList.toggle("zoomed")' in page and ".plot.zoomed img{max-width:none" in page


def _context(**overrides):
    """A context of report.md and report.html as write_report builds it, without plots."""
    from korean_bpe.compare.verdict import Verdict

    sentences, cuts = sample_segmentations()
    arguments = dict(
        corpus={"corpus": "NSMC 영화 리뷰"}, title="t", command=["korean-bpe", "compare"], config={},
        versions={"korean_bpe": "0.t", "pandas": "2", "python": "3.x"}, pngs=[], skipped=[],
        sentences=sentences, examples=cuts, notes=["skipped mecab: <b>not</b> *installed* `x`", "a | b"],
        verdicts=[Verdict("downstream", "downstream_accuracy", 4000, "okt/jamo", 0.81,
                          ("okt/jamo", "raw/byte", "a, b <i>"), {}, 4),
                  Verdict("sequence length", "tokens_per_word", 4000, "raw/byte", 1.2, ("raw/byte",), {}, 5)])
    return report._context(sample_frame(), **{**arguments, **overrides})


def _md_text(line: str) -> str:
    """A line of report.md as a reader sees it: code spans, bold and escapes taken off."""
    import html

    line = re.sub(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)",
                  lambda m: m.group(2)[1:-1] if re.fullmatch(r" .* ", m.group(2)) else m.group(2), line)
    return html.unescape(re.sub(r"\\(.)", r"\1", line.replace("**", "")))


def _html_text(fragment: str) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def _section(text: str, start: str, end: str) -> str:
    return text[text.index(start) + len(start):text.index(end)]


def test_a_kind_measured_several_ways_is_one_verdict_entry_a_line_a_way(tmp_path: Path) -> None:
    """The noise task's family per perturbation at a size is one entry with a line each in both
    reports, as the terminal prints it (format_verdicts), not an entry each."""
    from korean_bpe.compare.verdict import Verdict

    def drop(way: str, best: str, tied: tuple[str, ...]) -> Verdict:
        return Verdict(f"noise accuracy drop ({way})", "downstream_accuracy", 4000, best, 0.012, (best, *tied), {}, 3)

    found = [Verdict("downstream", "downstream_accuracy", 4000, "okt/jamo", 0.81, ("okt/jamo",), {}, 3),
             drop("nfd", "raw/byte", ("okt/jamo",)), drop("keyboard_typo", "okt/jamo", ())]
    c = _context(verdicts=found)
    md, page = report._render_markdown(c), report._render_html(c, tmp_path)
    verdict_md = [line for line in _section(md, "## Verdict\n", "## Table").splitlines() if line][1:]
    assert [_md_text(line) for line in verdict_md[1:]] == [
        "- noise accuracy drop at 4,000, one line a way:",
        "  - (nfd): best raw/byte (1.20%); not significantly different: okt/jamo (2 comparisons)",
        "  - (keyboard_typo): best okt/jamo (1.20%); not significantly different: none (2 comparisons)"]
    verdict_html = _section(page, "<h2>Verdict</h2>", "<h2>Table</h2>")
    inner = re.search(r"<b>noise accuracy drop</b> at 4,000, one line a way:<ul>(.*?)</ul></li>", verdict_html).group(1)
    assert [_html_text(li) for li in re.findall(r"<li>(.*?)</li>", inner)] == [line[4:] for line in
                                                                          map(_md_text, verdict_md[2:])]


def test_markdown_and_html_of_one_context_say_the_same(tmp_path: Path) -> None:
    """The verdict (its introduction and every line), the notes, the segmentation examples and the
    package versions read the same in report.md and report.html of one context."""
    c = _context()
    md, page = report._render_markdown(c), report._render_html(c, tmp_path)

    verdict_md = [line for line in _section(md, "## Verdict\n", "## Table").splitlines() if line]
    verdict_html = _section(page, "<h2>Verdict</h2>", "<h2>Table</h2>")
    intro_html = " ".join(_html_text(re.search(r"<p>(.*?)</p>", verdict_html, re.S).group(1)).split())
    assert _md_text(verdict_md[0]) == intro_html.replace("≥", ">=")
    assert "downstream first: a model trained on each strategy's tokens" in intro_html
    lines_md = [_md_text(line[2:]) for line in verdict_md[1:]]
    assert lines_md == [_html_text(li) for li in re.findall(r"<li>(.*?)</li>", verdict_html)]
    assert lines_md[0] == ("downstream at 4,000 (downstream_accuracy): best okt/jamo (81.00%); not significantly "
                           "different: raw/byte, a, b <i> (3 comparisons)")
    assert "different: `raw/byte`, `a, b <i>` (3 comparisons)" in verdict_md[1]  # one code span a name

    notes_md = [_md_text(line[2:]) for line in _section(md, "## Notes\n", "## How").splitlines() if line]
    notes_html = [_html_text(li) for li in re.findall(r"<li>(.*?)</li>", _section(page, "<h2>Notes</h2>", "<h2>How"))]
    assert notes_md == notes_html == ["skipped mecab: <b>not</b> *installed* `x`", "a | b"]

    cuts_md = [tuple(re.fullmatch(r"(\S+) +(\d+)  (.*)", line).groups())
               for line in _section(md, "## Segmentation examples", "## All columns").splitlines()
               if re.match(r"\S+ +\d+  ", line)]
    cuts_html = re.findall(r"<tr><th>([^<]*)</th><td>(\d+)</td><td>([^<]*)</td></tr>",
                           _section(page, "<h2>Segmentation examples</h2>", "<h2>Columns</h2>"))
    assert [(n, k, _html_text(t)) for n, k, t in cuts_html] == cuts_md and len(cuts_md) == 6
    assert ("okt/jamo", "5", "▁너무너무 | 재밌게 | 보아 | ㅆ습니다 | ▁🥲") in cuts_md

    versions_md = re.findall(r"^\| (\S+) \| (\S+) \|$", md.split("| package | version |")[1], re.M)
    assert versions_md == re.findall(r"<tr><th>([^<]*)</th><td>([^<]*)</td></tr>", page.split("<table><tbody>")[-1])
    assert versions_md == [("python", "3.x"), ("korean_bpe", "0.t"), ("pandas", "2")]


def test_the_page_inlines_the_css_and_js_files(tmp_path: Path) -> None:
    """report.css and report.js beside the templates are what the page holds: its style (after the
    embedded font) and its script, nothing else and nothing linked."""
    from importlib.resources import files

    templates = files("korean_bpe.compare") / "templates"
    css, js = ((templates / name).read_text(encoding="utf-8") for name in ("report.css", "report.js"))
    assert "table.sortable" in css and "addEventListener" in js  # the real files, not empty ones
    page = report._render_html(_context(), tmp_path)
    style, script = re.findall(r"<style>(.*?)</style>", page, re.S), re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(style) == len(script) == 1
    assert style[0].startswith("@font-face{") and style[0].endswith("\n" + css)
    assert script[0] == "\n" + js
    assert "<link" not in page and "src=" not in script[0]
