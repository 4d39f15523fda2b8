# cython: boundscheck=False, wraparound=False
# distutils: language = c++
"""Compiled :func:`korean_bpe.jamo.compose` (decode of a jamo model composes every word).

The same rule as the pure-Python ``compose`` in :mod:`korean_bpe.jamo`, which stays the
definition (``tests/test_jamo.py`` checks the two agree on random text): left to right, a leading
consonant L followed by a vowel V (and an optional trailing consonant T) becomes one syllable, and
an LV syllable followed by a T becomes the LVT syllable; everything else is copied.
"""

from libc.stdint cimport uint32_t
from libcpp.vector cimport vector

from korean_bpe.hangul cimport compose_prefix
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND



def compose(str text):
    r"""Join modern L+V(+T) conjoining jamo (and an LV syllable + T) into syllables; text without
    any is returned as is (the same object).

    ``compose("\u1112\u1161\u11ab\u1100\u1173\u11af") == "한글"``; ``compose("가\u11a8") == "각"``;
    old Hangul (arae-a U+119E) is left untouched.
    """
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0
    cdef int kind = PyUnicode_KIND(text), took
    cdef void *data = PyUnicode_DATA(text)
    cdef uint32_t syllable
    cdef bint changed = False
    cdef vector[Py_UCS4] out
    out.reserve(n)
    while i < n:
        took = compose_prefix(PyUnicode_READ(kind, data, i),
                              PyUnicode_READ(kind, data, i + 1) if i + 1 < n else 0, i + 1 < n,
                              PyUnicode_READ(kind, data, i + 2) if i + 2 < n else 0, i + 2 < n, &syllable)
        if took:
            out.push_back(syllable)
            i += took
            changed = True
        else:
            out.push_back(PyUnicode_READ(kind, data, i))
            i += 1
    if not changed:
        return text
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out.data(), out.size())
