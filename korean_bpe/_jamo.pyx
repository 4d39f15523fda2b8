# cython: boundscheck=False, wraparound=False
"""Compiled :func:`korean_bpe.jamo.compose` (decode of a jamo model composes every word).

The same rule as the pure-Python ``compose`` in :mod:`korean_bpe.jamo`, which stays the
definition (``tests/test_jamo.py`` checks the two agree on random text): left to right, a leading
consonant L followed by a vowel V (and an optional trailing consonant T) becomes one syllable, and
an LV syllable followed by a T becomes the LVT syllable; everything else is copied.
"""

from libcpp.vector cimport vector
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

cdef long S_BASE = 0xAC00, L_BASE = 0x1100, V_BASE = 0x1161, T_BASE = 0x11A7
cdef long L_COUNT = 19, V_COUNT = 21, T_COUNT = 28, S_COUNT = 11172


def compose(str text):
    r"""Join modern L+V(+T) conjoining jamo (and an LV syllable + T) into syllables; text without
    any is returned as is (the same object).

    ``compose("\u1112\u1161\u11ab\u1100\u1173\u11af") == "한글"``; ``compose("가\u11a8") == "각"``;
    old Hangul (arae-a U+119E) is left untouched.
    """
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef long l, v, t, s
    cdef bint changed = False
    cdef vector[Py_UCS4] out
    out.reserve(n)
    while i < n:
        if i + 1 < n:
            l = <long>PyUnicode_READ(kind, data, i) - L_BASE
            if 0 <= l < L_COUNT:
                v = <long>PyUnicode_READ(kind, data, i + 1) - V_BASE
                if 0 <= v < V_COUNT:
                    t = 0
                    if i + 2 < n:
                        t = <long>PyUnicode_READ(kind, data, i + 2) - T_BASE
                        if not 0 < t < T_COUNT:
                            t = 0
                    out.push_back(<Py_UCS4>(S_BASE + (l * V_COUNT + v) * T_COUNT + t))
                    i += 3 if t else 2
                    changed = True
                    continue
            else:
                s = <long>PyUnicode_READ(kind, data, i) - S_BASE
                if 0 <= s < S_COUNT and s % T_COUNT == 0:  # an LV syllable followed by a T jamo
                    t = <long>PyUnicode_READ(kind, data, i + 1) - T_BASE
                    if 0 < t < T_COUNT:
                        out.push_back(<Py_UCS4>(S_BASE + s + t))
                        i += 2
                        changed = True
                        continue
        out.push_back(PyUnicode_READ(kind, data, i))
        i += 1
    if not changed:
        return text
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out.data(), out.size())
