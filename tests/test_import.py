import subprocess
import sys

HEAVY = ["konlpy", "jpype", "kiwipiepy", "mecab", "pandas", "matplotlib", "tokenizers", "transformers", "sklearn", "sentencepiece"]


def test_import_korean_bpe_loads_no_heavy_module():
    code = (
        "import sys, korean_bpe, korean_bpe.units, korean_bpe.pre_tokenizers, korean_bpe.trainer\n"
        f"heavy = {HEAVY!r}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_io_never_imports_the_tokenizer():
    """The import graph flows one way: tokenizer -> io.  A fresh interpreter importing the io
    modules (and running a model-file round trip through them alone) never loads korean_bpe.tokenizer."""
    code = (
        "import sys, korean_bpe.io, korean_bpe.io.serialization, korean_bpe.io.hf, korean_bpe.files\n"
        "from korean_bpe.io.format import parse_merges, render_merges_txt\n"
        "text = render_merges_txt([('영', '화'), ('▁', '영화')])\n"
        "assert parse_merges(text, 'm', known={'▁', '영', '화'}, merged=lambda a, b: a + b) == [('영', '화'), ('▁', '영화')]\n"
        "print('korean_bpe.tokenizer' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_no_module_of_io_imports_the_tokenizer_even_inside_a_function():
    """Imports inside functions (and under TYPE_CHECKING) hid the cycle before: scan every import
    statement of korean_bpe/io/, wherever it stands."""
    import ast
    from pathlib import Path

    import korean_bpe.io

    io_dir = Path(korean_bpe.io.__file__).parent
    found = []
    for path in sorted(io_dir.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else [
                    ".".join(["korean_bpe.io".rsplit(".", node.level - 1)[0], *filter(None, [node.module])])]
                names += [f"{names[0]}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if any(n == "korean_bpe.tokenizer" or n.startswith("korean_bpe.tokenizer.") for n in names):
                found.append(f"{path.name}:{node.lineno}")
    assert len(list(io_dir.glob("*.py"))) >= 4 and found == []
