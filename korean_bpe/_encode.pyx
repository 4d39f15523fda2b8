# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Compiled BPE application for :class:`korean_bpe.tokenizer.Tokenizer` (optional).

Same algorithm and results as the pure-Python ``_merge_python`` in ``korean_bpe/tokenizer.py``
(HF tokenizers' ``Word::merge_all``): a min-heap of ``(rank, position)``; pop the lowest rank,
leftmost first; skip entries whose pair changed; after a merge push the two new neighbour pairs.
Unknown symbols are id ``-1`` and never merge.
"""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector
from cython.operator cimport dereference as deref
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH, Py_UNICODE_ISSPACE
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.long cimport PyLong_FromLong
from cpython.dict cimport PyDict_GetItem, PyDict_SetItem, PyDict_Size
from cpython.list cimport PyList_Append
from cpython.ref cimport PyObject, Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM


cdef extern from "<queue>" nogil:
    cdef cppclass MinHeap "std::priority_queue<unsigned long long, std::vector<unsigned long long>, std::greater<unsigned long long>>":
        MinHeap() except +
        bint empty()
        void push(unsigned long long)
        void pop()
        unsigned long long top()

cdef extern from "<functional>":
    pass

cdef int32_t DEAD = -2
cdef uint64_t LOW32 = 0xFFFFFFFF
cdef uint64_t EMPTY_KEY = 0xFFFFFFFFFFFFFFFF
cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15

cdef extern from "Python.h":
    object PyUnicode_Substring(object, Py_ssize_t, Py_ssize_t)


cdef struct WordEntry:
    uint64_t hash
    size_t key_off
    size_t ids_off
    uint32_t key_len
    uint32_t ids_len


cdef inline uint64_t mix_cp(uint64_t h, uint32_t cp) nogil:
    return (h ^ cp) * 0x100000001B3ULL + (h >> 29)


cdef class MergeTable:
    """Merges as ``(left_id, right_id) -> (rank, new_id)`` plus a character -> id table."""

    cdef vector[uint64_t] pkeys   # open addressing: (left << 32 | right) -> (rank << 32 | new)
    cdef vector[uint64_t] pvals
    cdef uint64_t pmask
    cdef int pshift
    # word cache of encode_whitespace: code points of each word -> its ids, in arenas
    cdef vector[uint32_t] wkeys
    cdef vector[int32_t] wids
    cdef vector[WordEntry] wentries
    cdef vector[int32_t] wslots
    cdef uint64_t wmask
    cdef tuple id_objs
    cdef vector[int32_t] bmp
    cdef unordered_map[uint32_t, int32_t] astral
    cdef vector[int32_t] syms
    cdef vector[int32_t] nxt
    cdef vector[int32_t] prv
    cdef MinHeap heap
    cdef int32_t prefix
    cdef bint jamo

    def __cinit__(self, merges, chars):
        """``merges``: ``(left_id, right_id, new_id)`` in rank order; ``chars``: 1-char token -> id."""
        cdef uint64_t key, h
        cdef int64_t rank = 0
        cdef uint64_t cap = 16
        cdef int bits = 4
        merges = list(merges)
        while cap < 2 * <uint64_t> len(merges) + 2:
            cap <<= 1
            bits += 1
        self.pkeys.assign(cap, EMPTY_KEY)
        self.pvals.assign(cap, 0)
        self.pmask = cap - 1
        self.pshift = 64 - bits
        for a, b, new in merges:
            if a < 0 or b < 0 or new < 0:
                raise ValueError("merge ids must be >= 0")
            key = ((<uint64_t> a) << 32) | (<uint64_t> b)
            h = (key * GOLDEN) >> self.pshift
            while self.pkeys[h] != EMPTY_KEY and self.pkeys[h] != key:
                h = (h + 1) & self.pmask
            if self.pkeys[h] == EMPTY_KEY:  # the first (lowest-rank) merge of a pair wins
                self.pkeys[h] = key
                self.pvals[h] = ((<uint64_t> rank) << 32) | (<uint64_t> new)
            rank += 1
        self.id_objs = ()
        self._reset_words(1024)
        self.prefix = -1
        self.jamo = False
        self.bmp.assign(0x10000, -1)
        for ch, i in chars.items():
            cp = ord(ch)
            if cp < 0x10000:
                self.bmp[cp] = i
            else:
                self.astral[cp] = i

    cdef inline bint _lookup(self, int32_t a, int32_t b, uint64_t* out):
        if a < 0 or b < 0:
            return False
        cdef uint64_t key = ((<uint64_t> a) << 32) | (<uint64_t> b)
        cdef uint64_t h = (key * GOLDEN) >> self.pshift
        cdef uint64_t* keys = self.pkeys.data()
        cdef uint64_t k
        while True:
            k = keys[h]
            if k == key:
                out[0] = self.pvals[h]
                return True
            if k == EMPTY_KEY:
                return False
            h = (h + 1) & self.pmask

    cdef void _run_heap(self):
        cdef Py_ssize_t n = self.syms.size()
        cdef Py_ssize_t i, pos, j, k, p
        cdef uint64_t val, top, rank
        cdef int32_t new
        if n >= 2:
            self.nxt.resize(n)
            self.prv.resize(n)
            for i in range(n):
                self.nxt[i] = i + 1
                self.prv[i] = i - 1
            while not self.heap.empty():
                self.heap.pop()
            for i in range(n - 1):
                if self._lookup(self.syms[i], self.syms[i + 1], &val):
                    self.heap.push(((val >> 32) << 32) | <uint64_t> i)
            while not self.heap.empty():
                top = self.heap.top()
                self.heap.pop()
                rank = top >> 32
                pos = <Py_ssize_t> (top & LOW32)
                if self.syms[pos] == DEAD:
                    continue
                j = self.nxt[pos]
                if j >= n:
                    continue
                if not self._lookup(self.syms[pos], self.syms[j], &val) or (val >> 32) != rank:
                    continue
                new = <int32_t> (val & LOW32)
                self.syms[pos] = new
                self.syms[j] = DEAD
                k = self.nxt[j]
                self.nxt[pos] = k
                if k < n:
                    self.prv[k] = pos
                p = self.prv[pos]
                if p >= 0 and self._lookup(self.syms[p], new, &val):
                    self.heap.push(((val >> 32) << 32) | <uint64_t> p)
                if k < n and self._lookup(new, self.syms[k], &val):
                    self.heap.push(((val >> 32) << 32) | <uint64_t> pos)
        k = 0
        for i in range(n):
            if self.syms[i] != DEAD:
                self.syms[k] = self.syms[i]
                k += 1
        self.syms.resize(k)

    cdef void _run_small(self):
        """The same result for short words: rescan for the lowest-rank pair (leftmost on ties),
        merge it, update the two neighbouring pair ranks; no heap."""
        cdef Py_ssize_t m = self.syms.size()
        cdef Py_ssize_t i, best_i
        cdef uint64_t best, val
        cdef uint64_t NONE = 0xFFFFFFFFFFFFFFFF
        cdef int32_t new
        cdef uint64_t rk[32]
        cdef int32_t* sy = self.syms.data()
        for i in range(m - 1):
            rk[i] = val if self._lookup(sy[i], sy[i + 1], &val) else NONE
        while m > 1:
            best = NONE
            best_i = -1
            for i in range(m - 1):
                if rk[i] < best:
                    best = rk[i]
                    best_i = i
            if best_i < 0:
                break
            new = <int32_t> (best & LOW32)
            sy[best_i] = new
            for i in range(best_i + 1, m - 1):
                sy[i] = sy[i + 1]
            for i in range(best_i, m - 2):
                rk[i] = rk[i + 1]
            m -= 1
            if best_i > 0:
                rk[best_i - 1] = val if self._lookup(sy[best_i - 1], new, &val) else NONE
            if best_i < m - 1:
                rk[best_i] = val if self._lookup(new, sy[best_i + 1], &val) else NONE
        self.syms.resize(m)

    cdef void _run(self):
        if self.syms.size() <= 32:
            self._run_small()
        else:
            self._run_heap()

    cdef list _as_list(self):
        cdef list out = []
        cdef Py_ssize_t i
        for i in range(<Py_ssize_t> self.syms.size()):
            out.append(self.syms[i])
        return out

    cdef tuple _as_tuple(self):
        cdef Py_ssize_t n = self.syms.size()
        cdef tuple out = PyTuple_New(n)
        cdef Py_ssize_t i
        cdef object v
        for i in range(n):
            v = self.syms[i]
            Py_INCREF(v)
            PyTuple_SET_ITEM(out, i, v)
        return out

    def merge_ids_heap(self, ids):
        """:meth:`merge_ids` always through the heap (for tests: both paths agree)."""
        self.syms.clear()
        for i in ids:
            self.syms.push_back(i)
        self._run_heap()
        return self._as_list()

    def merge_ids(self, ids):
        """Apply the merges to a sequence of symbol ids (``-1`` = unknown); return the new ids."""
        self.syms.clear()
        for i in ids:
            self.syms.push_back(i)
        self._run()
        return self._as_list()

    def encode_chars(self, str text, int prefix):
        """One symbol per character (ids from the char table, ``-1`` if unknown), after ``prefix``
        when it is ``>= 0``; then the merges."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
        cdef int kind = PyUnicode_KIND(text)
        cdef void* data = PyUnicode_DATA(text)
        cdef Py_ssize_t i
        cdef uint32_t cp
        cdef unordered_map[uint32_t, int32_t].iterator it
        self.syms.clear()
        if prefix >= 0:
            self.syms.push_back(prefix)
        for i in range(n):
            cp = PyUnicode_READ(kind, data, i)
            if cp < 0x10000:
                self.syms.push_back(self.bmp[cp])
            else:
                it = self.astral.find(cp)
                if it != self.astral.end():
                    self.syms.push_back(deref(it).second)
                else:
                    self.syms.push_back(-1)
        self._run()
        return self._as_list()

    def set_char_mode(self, int prefix, bint jamo):
        """For :meth:`encode_batch`: the word-start symbol id (``-1``: none) and whether Hangul
        syllables are split into conjoining jamo (the jamo unit) instead of kept whole."""
        self.prefix = prefix
        self.jamo = jamo

    cdef bint _load_word(self, str word):
        """Symbols of ``word`` into ``syms`` (char mode); False when a symbol is unknown."""
        return self._load_span(PyUnicode_KIND(word), PyUnicode_DATA(word), 0, PyUnicode_GET_LENGTH(word))

    cdef bint _load_span(self, int kind, void* data, Py_ssize_t start, Py_ssize_t n):
        """:meth:`_load_word` for the characters ``start..n`` of a string's data."""
        cdef Py_ssize_t i
        cdef uint32_t cp, s, t
        cdef int32_t v
        cdef unordered_map[uint32_t, int32_t].iterator it
        self.syms.clear()
        if self.prefix >= 0:
            self.syms.push_back(self.prefix)
        for i in range(start, n):
            cp = PyUnicode_READ(kind, data, i)
            if self.jamo and 0xAC00 <= cp <= 0xD7A3:
                s = cp - 0xAC00
                t = s % 28
                v = self.bmp[0x1100 + s // 588]
                if v < 0:
                    return False
                self.syms.push_back(v)
                v = self.bmp[0x1161 + (s % 588) // 28]
                if v < 0:
                    return False
                self.syms.push_back(v)
                if t:
                    v = self.bmp[0x11A7 + t]
                    if v < 0:
                        return False
                    self.syms.push_back(v)
                continue
            if cp < 0x10000:
                v = self.bmp[cp]
            else:
                it = self.astral.find(cp)
                v = deref(it).second if it != self.astral.end() else -1
            if v < 0:
                return False
            self.syms.push_back(v)
        return True

    def encode_batch(self, cache, batch, slow, Py_ssize_t maxsize, bint char_mode):
        """Ids of each text of ``batch`` (a list of word lists) through the word ``cache``
        (word -> tuple of ids).  A word not in the cache is segmented here (``char_mode``: one
        symbol a character, see :meth:`set_char_mode`), or by ``slow(word)`` when char mode is off
        or a symbol is unknown; the cache is emptied when it holds ``maxsize`` words."""
        cdef list out = []
        cdef list ids
        cdef object w, value, words
        cdef PyObject* hit
        if not isinstance(cache, dict):
            raise TypeError("cache must be a dict")
        for words in batch:
            ids = []
            for w in words:
                hit = PyDict_GetItem(cache, w)
                if hit is not NULL:
                    value = <object> hit
                else:
                    if char_mode and type(w) is str and self._load_word(<str> w):
                        self._run()
                        value = self._as_tuple()
                    else:
                        value = slow(w)
                    if PyDict_Size(cache) >= maxsize:
                        cache.clear()
                    PyDict_SetItem(cache, w, value)
                ids.extend(value)
            PyList_Append(out, ids)
        return out

    # --- the fused whitespace path: str.split(), the word cache and the merges in one loop ------

    def set_vocab_size(self, Py_ssize_t n):
        """Keep the ``int`` objects of the ids ``0..n-1`` for building the result lists."""
        self.id_objs = tuple(range(n))

    cdef void _reset_words(self, uint64_t cap):
        self.wkeys.clear()
        self.wids.clear()
        self.wentries.clear()
        self.wslots.assign(cap, -1)
        self.wmask = cap - 1

    def clear_words(self):
        """Empty the word cache of :meth:`encode_whitespace`."""
        self._reset_words(1024)

    def cached_words(self):
        """How many words the cache of :meth:`encode_whitespace` holds."""
        return self.wentries.size()

    cdef void _grow_words(self):
        cdef uint64_t cap = (self.wmask + 1) * 2
        cdef Py_ssize_t e
        cdef uint64_t h
        self.wslots.assign(cap, -1)
        self.wmask = cap - 1
        for e in range(<Py_ssize_t> self.wentries.size()):
            h = self.wentries[e].hash & self.wmask
            while self.wslots[h] >= 0:
                h = (h + 1) & self.wmask
            self.wslots[h] = <int32_t> e

    cdef int _find_word(self, int kind, void* data, Py_ssize_t start, Py_ssize_t end, uint64_t hash, uint64_t* slot):
        """Index of the cached word ``data[start:end]`` (or -1, with ``slot`` its free slot)."""
        cdef uint64_t h = hash & self.wmask
        cdef int32_t e
        cdef WordEntry* ent
        cdef uint32_t* key
        cdef Py_ssize_t i, n = end - start
        while True:
            e = self.wslots[h]
            if e < 0:
                slot[0] = h
                return -1
            ent = &self.wentries[e]
            if ent.hash == hash and ent.key_len == n:
                key = self.wkeys.data() + ent.key_off
                i = 0
                while i < n and key[i] == PyUnicode_READ(kind, data, start + i):
                    i += 1
                if i == n:
                    return e
            h = (h + 1) & self.wmask

    def encode_whitespace(self, list texts, slow, Py_ssize_t maxsize):
        """Ids of each text of ``texts`` split as ``str.split()`` does, each word in char mode (see
        :meth:`set_char_mode`), or by ``slow(word)`` (a tuple of ids) when a symbol is unknown.
        Each distinct word is segmented once and cached here (code points -> ids); the cache is
        emptied when it holds ``maxsize`` words."""
        cdef list out = PyList_New(len(texts))
        cdef list ids
        cdef object text, value, v
        cdef Py_ssize_t t, n, i, start, k, m, n_objs = len(self.id_objs)
        cdef int kind
        cdef void* data
        cdef uint32_t cp
        cdef uint64_t hash, slot
        cdef int e
        cdef WordEntry ent
        cdef vector[int32_t] buf
        cdef int32_t x
        for t in range(len(texts)):
            text = texts[t]
            if type(text) is not str:
                raise TypeError(f"texts must hold strings; texts[{t}] is {type(text).__name__} {text!r}")
            n = PyUnicode_GET_LENGTH(text)
            kind = PyUnicode_KIND(text)
            data = PyUnicode_DATA(text)
            buf.clear()
            i = 0
            while True:
                while i < n and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
                    i += 1
                if i >= n:
                    break
                start = i
                hash = 0xCBF29CE484222325
                while i < n:
                    cp = PyUnicode_READ(kind, data, i)
                    if Py_UNICODE_ISSPACE(cp):
                        break
                    hash = mix_cp(hash, cp)
                    i += 1
                hash ^= hash >> 31
                hash *= GOLDEN
                hash ^= hash >> 29
                e = self._find_word(kind, data, start, i, hash, &slot)
                if e < 0:
                    if self._load_span(kind, data, start, i):
                        self._run()
                    else:
                        value = slow(PyUnicode_Substring(text, start, i))
                        self.syms.clear()
                        for v in value:
                            self.syms.push_back(<int32_t> v)
                    # probe again: slow() ran Python code, maybe this method in another thread
                    if <Py_ssize_t> self.wentries.size() >= maxsize:
                        self._reset_words(1024)
                    elif (self.wentries.size() + 1) * 2 > self.wmask + 1:
                        self._grow_words()
                    if self._find_word(kind, data, start, i, hash, &slot) >= 0:
                        for k in range(<Py_ssize_t> self.syms.size()):
                            buf.push_back(self.syms[k])
                        continue
                    ent.hash = hash
                    ent.key_off = self.wkeys.size()
                    ent.key_len = <uint32_t> (i - start)
                    ent.ids_off = self.wids.size()
                    ent.ids_len = <uint32_t> self.syms.size()
                    for k in range(start, i):
                        self.wkeys.push_back(PyUnicode_READ(kind, data, k))
                    for k in range(<Py_ssize_t> self.syms.size()):
                        self.wids.push_back(self.syms[k])
                    e = <int> self.wentries.size()
                    self.wentries.push_back(ent)
                    self.wslots[slot] = e
                    for k in range(<Py_ssize_t> self.syms.size()):
                        buf.push_back(self.syms[k])
                else:
                    ent = self.wentries[e]
                    for k in range(<Py_ssize_t> ent.ids_len):
                        buf.push_back(self.wids[ent.ids_off + k])
            m = buf.size()
            ids = PyList_New(m)
            for k in range(m):
                x = buf[k]
                if 0 <= x < n_objs:
                    v = self.id_objs[x]
                else:
                    v = PyLong_FromLong(x)
                Py_INCREF(v)
                PyList_SET_ITEM(ids, k, v)
            Py_INCREF(ids)
            PyList_SET_ITEM(out, t, ids)
        return out
