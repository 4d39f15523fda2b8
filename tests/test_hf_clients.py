"""Every Hugging Face client, the same ids and the exact text (issue 22), on all 55,106 NSMC test
reviews and the shared edge strings: our ``Tokenizer``, HF ``tokenizers`` (Rust) on the exported
``tokenizer.json``, and transformers' ``AutoTokenizer`` on the exported folder, for the ``whitespace``
and ``raw`` pre-tokenizers x the ``syllable``, ``jamo`` and ``byte`` units, with and without byte
fallback (the byte unit never needs it).

Decoding a jamo model through HF costs one ``Replace`` pass per syllable (korean_bpe.io.hf_jamo),
some hundred times the other units' time, so the jamo rows decode the first 3,000 reviews and the
edge strings through HF (every syllable is composed back in tests/test_hf.py); the other rows decode
them all.  Marked ``nsmc`` and ``slow`` (about ten minutes on a shared two-core machine).
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from korean_bpe import Tokenizer
from korean_bpe.corpus import load_nsmc
from korean_bpe.counting import WordCounts

from _strings import hard

tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")

pytestmark = [pytest.mark.nsmc, pytest.mark.slow]

HARD = [t for t in hard(no_surrogates=True) if "<unk>" not in t]  # HF reads "<unk>" as the token: documented
CONFIGS = [(pre, unit, fallback) for pre in ("whitespace", "raw") for unit in ("syllable", "jamo", "byte")
           for fallback in ((False, True) if unit != "byte" else (False,))]
JAMO_DECODED = 3000


@lru_cache(maxsize=None)
def _counts(pre: str) -> WordCounts:
    return WordCounts.from_texts(load_nsmc("train", limit=30_000).texts, pre_tokenizer=pre, show_progress=False)


@lru_cache(maxsize=1)
def _test_texts() -> list[str]:
    return load_nsmc("test").texts + HARD


@pytest.mark.parametrize("pre,unit,byte_fallback", CONFIGS, ids=lambda v: str(v))
def test_every_client_gives_our_ids_and_text(nsmc, tmp_path, pre, unit, byte_fallback):
    texts = _test_texts()
    assert len(texts) == 55_106 + len(HARD)
    size = {"syllable": 8000, "jamo": 4000, "byte": 8000}[unit] + 256 * byte_fallback
    ours = Tokenizer.train_from_counts(_counts(pre), vocab_size=size, unit=unit, byte_fallback=byte_fallback,
                                       show_progress=False)
    folder = ours.to_huggingface(f"{tmp_path / 'hf'}/")
    rust = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    auto = transformers.AutoTokenizer.from_pretrained(folder)

    ids = ours.encode_batch(texts)
    assert [e.ids for e in rust.encode_batch(texts, add_special_tokens=False)] == ids
    assert auto(texts, add_special_tokens=False)["input_ids"] == ids

    decoded = ours.decode_batch(ids)
    some = slice(None) if unit != "jamo" else slice(0, JAMO_DECODED)
    picked = ids[some] + (ids[-len(HARD):] if unit == "jamo" else [])
    want = decoded[some] + (decoded[-len(HARD):] if unit == "jamo" else [])
    assert rust.decode_batch(picked, skip_special_tokens=False) == want
    assert auto.batch_decode(picked) == want
