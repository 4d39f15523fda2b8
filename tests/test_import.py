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
