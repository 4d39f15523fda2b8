# Cython's view of korean_bpe/hangul.hpp: the one copy of the Hangul arithmetic in the compiled
# modules (korean_bpe/jamo.py is its definition).
from libc.stdint cimport uint32_t

cdef extern from "hangul.hpp" namespace "kbpe::hangul" nogil:
    int decompose(uint32_t cp, uint32_t* out) noexcept
    int compose_prefix(uint32_t a, uint32_t b, bint has_b, uint32_t c, bint has_c, uint32_t* out) noexcept
