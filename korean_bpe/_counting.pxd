# The counting core's flat word table, read by the merge engine (korean_bpe/trainer/_merge.pyx).
from libc.stdint cimport int32_t, int64_t
from libcpp.vector cimport vector


cdef class WordSymbols:
    cdef vector[int32_t] syms
    cdef vector[int64_t] starts
    cdef vector[int64_t] counts
    cdef readonly list symbols
    cdef readonly object marker
    cdef readonly int64_t total     # the sum of the counts
    cdef readonly int64_t longest   # the most symbols in one word
