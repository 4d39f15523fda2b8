# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Compiled BPE application for :class:`korean_bpe.tokenizer.Tokenizer` (optional).

Same algorithm and results as :func:`korean_bpe.encoding.pure.merge_ids` and
:mod:`korean_bpe.encoding.reference` (HF tokenizers' ``Word::merge_all``): a min-heap of
``(rank, position)``; pop the lowest rank, leftmost first; skip entries whose pair changed; after
a merge push the two new neighbour pairs (short words: a rescan, no heap).  Unknown symbols are
id ``-1`` and never merge.

Words become symbols here when the unit says how (:meth:`MergeTable.set_symbols`: one a
character, Hangul syllables as jamo, or UTF-8 bytes), and each distinct word is merged once and
kept in a cache of code points -> ids: :meth:`MergeTable.encode_pieces` for pre-tokenized pieces,
:meth:`MergeTable.encode_whitespace` when the text is cut as ``str.split()`` cuts it.
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
cdef int MODE_CHARS = 0
cdef int MODE_JAMO = 1
cdef int MODE_BYTES = 2
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
    cdef int mode                 # MODE_CHARS, MODE_JAMO or MODE_BYTES
    cdef int32_t byte_ids[256]

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
        self.mode = MODE_CHARS
        for i in range(256):
            self.byte_ids[i] = -1
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

    cdef _load(self, ids):
        self.syms.clear()
        for i in ids:
            self.syms.push_back(i)

    def merge_ids_heap(self, ids):
        """:meth:`merge_ids` always through the heap (for tests: both paths agree)."""
        self._load(ids)
        self._run_heap()
        return self._as_list()

    def merge_ids(self, ids):
        """Apply the merges to a sequence of symbol ids (``-1`` = unknown); return the new ids."""
        self._load(ids)
        self._run()
        return self._as_list()

    def set_symbols(self, int prefix, str mode, byte_ids=None):
        """How :meth:`encode_pieces` and :meth:`encode_whitespace` cut a word into symbols:
        ``prefix`` the id of a word-start symbol put first (``-1``: none); ``mode`` ``"chars"`` (one
        symbol a character, ids from the char table), ``"jamo"`` (Hangul syllables split into
        conjoining jamo, other characters whole) or ``"bytes"`` (the UTF-8 bytes, surrogates as
        ``surrogatepass`` writes them; ``byte_ids[b]`` the id of byte ``b``, ``-1``: unknown).
        Empties the word cache."""
        if mode not in ("chars", "jamo", "bytes"):
            raise ValueError(f"mode must be 'chars', 'jamo' or 'bytes', got {mode!r}")
        self.prefix = prefix
        self.mode = MODE_JAMO if mode == "jamo" else MODE_BYTES if mode == "bytes" else MODE_CHARS
        if mode == "bytes":
            byte_ids = list(byte_ids)
            if len(byte_ids) != 256:
                raise ValueError("byte_ids must hold 256 ids")
            for i in range(256):
                self.byte_ids[i] = byte_ids[i]
        self._reset_words(1024)

    cdef bint _load_span(self, int kind, void* data, Py_ssize_t start, Py_ssize_t n, int32_t prefix):
        """Symbols of the characters ``start..n`` of a string's data into ``syms`` (see
        :meth:`set_symbols`), after ``prefix`` when >= 0; False when a symbol is unknown."""
        cdef Py_ssize_t i
        cdef uint32_t cp, s, t
        cdef int32_t v
        cdef unordered_map[uint32_t, int32_t].iterator it
        self.syms.clear()
        if prefix >= 0:
            self.syms.push_back(prefix)
        if self.mode == MODE_BYTES:
            return self._load_bytes(kind, data, start, n)
        for i in range(start, n):
            cp = PyUnicode_READ(kind, data, i)
            if self.mode == MODE_JAMO and 0xAC00 <= cp <= 0xD7A3:
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

    cdef bint _load_bytes(self, int kind, void* data, Py_ssize_t start, Py_ssize_t n):
        """:meth:`_load_span` in bytes mode: each character's UTF-8 bytes."""
        cdef Py_ssize_t i
        cdef uint32_t cp
        cdef int k, m
        cdef uint32_t b[4]
        cdef int32_t v
        for i in range(start, n):
            cp = PyUnicode_READ(kind, data, i)
            if cp < 0x80:
                b[0] = cp
                m = 1
            elif cp < 0x800:
                b[0] = 0xC0 | (cp >> 6)
                b[1] = 0x80 | (cp & 0x3F)
                m = 2
            elif cp < 0x10000:  # surrogates too, as surrogatepass writes them
                b[0] = 0xE0 | (cp >> 12)
                b[1] = 0x80 | ((cp >> 6) & 0x3F)
                b[2] = 0x80 | (cp & 0x3F)
                m = 3
            else:
                b[0] = 0xF0 | (cp >> 18)
                b[1] = 0x80 | ((cp >> 12) & 0x3F)
                b[2] = 0x80 | ((cp >> 6) & 0x3F)
                b[3] = 0x80 | (cp & 0x3F)
                m = 4
            for k in range(m):
                v = self.byte_ids[b[k]]
                if v < 0:
                    return False
                self.syms.push_back(v)
        return True

    def encode_batch(self, cache, batch, slow, Py_ssize_t maxsize):
        """Ids of each text of ``batch`` (a list of word lists) through the word ``cache``
        (word -> tuple of ids), a word not in it segmented by ``slow(word)``: for units whose
        symbols are cut in Python.  The cache is emptied when it holds ``maxsize`` words."""
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
                    value = slow(w)
                    if PyDict_Size(cache) >= maxsize:
                        cache.clear()
                    PyDict_SetItem(cache, w, value)
                ids.extend(value)
            PyList_Append(out, ids)
        return out

    # --- the word cache (code points -> ids) and the loops that use it -------------------------

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

    cdef inline uint64_t _hash_span(self, int kind, void* data, Py_ssize_t start, Py_ssize_t end):
        cdef uint64_t hash = 0xCBF29CE484222325
        cdef Py_ssize_t i
        for i in range(start, end):
            hash = mix_cp(hash, PyUnicode_READ(kind, data, i))
        hash ^= hash >> 31
        hash *= GOLDEN
        hash ^= hash >> 29
        return hash

    cdef int _word_ids(self, object text, int kind, void* data, Py_ssize_t start, Py_ssize_t end, uint64_t hash,
                       slow, Py_ssize_t maxsize, vector[int32_t]* buf, int32_t prefix) except -1:
        """Append the ids of the word ``text[start:end]`` to ``buf``: from the cache, else its
        symbols merged here (or ``slow(word)`` when a symbol is unknown), then cached."""
        cdef uint64_t slot
        cdef Py_ssize_t k
        cdef WordEntry ent
        cdef int e = self._find_word(kind, data, start, end, hash, &slot)
        cdef object value, v
        if e >= 0:
            ent = self.wentries[e]
            for k in range(<Py_ssize_t> ent.ids_len):
                buf.push_back(self.wids[ent.ids_off + k])
            return 0
        if self._load_span(kind, data, start, end, prefix):
            self._run()
        else:
            value = slow(text if start == 0 and end == PyUnicode_GET_LENGTH(text)
                         else PyUnicode_Substring(text, start, end))
            self.syms.clear()
            for v in value:
                self.syms.push_back(<int32_t> v)
        for k in range(<Py_ssize_t> self.syms.size()):
            buf.push_back(self.syms[k])
        # probe again: slow() ran Python code, maybe this method in another thread
        if <Py_ssize_t> self.wentries.size() >= maxsize:
            self._reset_words(1024)
        elif (self.wentries.size() + 1) * 2 > self.wmask + 1:
            self._grow_words()
        if self._find_word(kind, data, start, end, hash, &slot) >= 0:
            return 0
        ent.hash = hash
        ent.key_off = self.wkeys.size()
        ent.key_len = <uint32_t> (end - start)
        ent.ids_off = self.wids.size()
        ent.ids_len = <uint32_t> self.syms.size()
        for k in range(start, end):
            self.wkeys.push_back(PyUnicode_READ(kind, data, k))
        for k in range(<Py_ssize_t> self.syms.size()):
            self.wids.push_back(self.syms[k])
        self.wslots[slot] = <int32_t> self.wentries.size()
        self.wentries.push_back(ent)
        return 0

    cdef list _id_list(self, vector[int32_t]* buf):
        """``buf`` as a list of ``int`` (the shared objects of :meth:`set_vocab_size`)."""
        cdef Py_ssize_t k, m = buf.size(), n_objs = len(self.id_objs)
        cdef list ids = PyList_New(m)
        cdef object v
        cdef int32_t x
        for k in range(m):
            x = deref(buf)[k]
            if 0 <= x < n_objs:
                v = self.id_objs[x]
            else:
                v = PyLong_FromLong(x)
            Py_INCREF(v)
            PyList_SET_ITEM(ids, k, v)
        return ids

    def encode_pieces(self, batch, slow, Py_ssize_t maxsize):
        """Ids of each text of ``batch``, a list of lists of pieces (what a pre-tokenizer gave):
        each piece cut into symbols as :meth:`set_symbols` says and merged, or ``slow(piece)`` (a
        tuple of ids) when a symbol is unknown.  Each distinct piece is segmented once and cached
        here (code points -> ids); the cache is emptied when it holds ``maxsize`` words."""
        if type(batch) is not list:
            batch = list(batch)
        cdef list out = PyList_New(len(batch))
        cdef list ids
        cdef object words, w
        cdef Py_ssize_t t, n
        cdef int kind
        cdef void* data
        cdef vector[int32_t] buf
        for t in range(len(batch)):
            words = batch[t]
            buf.clear()
            for w in words:
                if type(w) is not str:
                    raise TypeError(f"pieces must be strings; got {type(w).__name__} {w!r} in batch[{t}]")
                n = PyUnicode_GET_LENGTH(w)
                kind = PyUnicode_KIND(w)
                data = PyUnicode_DATA(w)
                self._word_ids(w, kind, data, 0, n, self._hash_span(kind, data, 0, n), slow, maxsize, &buf, self.prefix)
            ids = self._id_list(&buf)
            Py_INCREF(ids)
            PyList_SET_ITEM(out, t, ids)
        return out

    def encode_whitespace(self, list texts, slow, Py_ssize_t maxsize):
        """:meth:`encode_pieces` of each text of ``texts`` split as ``str.split()`` does, the split
        done here, in the same loop."""
        return self._encode_texts(texts, False, -1, slow, None, maxsize)

    def encode_sentencepiece(self, list texts, int space_id, slow, slow_plain, Py_ssize_t maxsize):
        """:meth:`encode_pieces` of each text of ``texts`` cut as SentencePiece cuts it
        (``korean_bpe.pre_tokenizers.simple.sentencepiece_pieces``: a piece at every space, U+0020
        or ``▁``, each opening with the ``▁`` of id ``space_id``; each line break a piece of its
        own, without it; an empty line no piece), the cut done here, in the same loop.  A piece is
        cached under its text without the ``▁`` (no piece key of :meth:`encode_pieces` lacks it);
        ``slow(segment)`` segments the piece ``'▁' + segment``, ``slow_plain`` a line break."""
        return self._encode_texts(texts, True, space_id, slow, slow_plain, maxsize)

    cdef list _encode_texts(self, list texts, bint sentencepiece, int32_t space_id, slow, slow_plain,
                            Py_ssize_t maxsize):
        cdef list out = PyList_New(len(texts))
        cdef list ids
        cdef object text
        cdef Py_ssize_t t
        cdef vector[int32_t] buf
        for t in range(len(texts)):
            text = texts[t]
            if type(text) is not str:
                raise TypeError(f"texts must hold strings; texts[{t}] is {type(text).__name__} {text!r}")
            buf.clear()
            if sentencepiece:
                self._cut_sentencepiece(text, space_id, slow, slow_plain, maxsize, &buf)
            else:
                self._cut_whitespace(text, slow, maxsize, &buf)
            ids = self._id_list(&buf)
            Py_INCREF(ids)
            PyList_SET_ITEM(out, t, ids)
        return out

    cdef int _cut_whitespace(self, object text, slow, Py_ssize_t maxsize, vector[int32_t]* buf) except -1:
        """The ids of ``text.split()``'s words into ``buf``."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0, start
        cdef int kind = PyUnicode_KIND(text)
        cdef void* data = PyUnicode_DATA(text)
        cdef uint32_t cp
        cdef uint64_t hash
        while True:
            while i < n and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
                i += 1
            if i >= n:
                return 0
            start = i
            hash = 0xCBF29CE484222325
            while i < n:
                cp = PyUnicode_READ(kind, data, i)
                if Py_UNICODE_ISSPACE(cp):
                    break
                hash = mix_cp(hash, cp)
                i += 1
            self._word_ids(text, kind, data, start, i, _finish(hash), slow, maxsize, buf, self.prefix)

    cdef int _cut_sentencepiece(self, object text, int32_t space_id, slow, slow_plain, Py_ssize_t maxsize,
                                vector[int32_t]* buf) except -1:
        """The ids of ``text``'s SentencePiece pieces (see :meth:`encode_sentencepiece`) into ``buf``."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0, start, line_start
        cdef int kind = PyUnicode_KIND(text)
        cdef void* data = PyUnicode_DATA(text)
        cdef uint32_t cp
        cdef uint64_t hash
        while i < n:
            line_start = start = i
            hash = 0xCBF29CE484222325
            while i < n:
                cp = PyUnicode_READ(kind, data, i)
                if cp == 0x20 or cp == 0x2581:
                    self._word_ids(text, kind, data, start, i, _finish(hash), slow, maxsize, buf, space_id)
                    i += 1
                    start = i
                    hash = 0xCBF29CE484222325
                    continue
                if _is_line_break(cp):
                    break
                hash = mix_cp(hash, cp)
                i += 1
            if i > line_start:  # the line's last piece
                self._word_ids(text, kind, data, start, i, _finish(hash), slow, maxsize, buf, space_id)
            if i < n:  # a line break: a piece of its own, no ▁
                self._word_ids(text, kind, data, i, i + 1, _finish(mix_cp(0xCBF29CE484222325, cp)),
                               slow_plain, maxsize, buf, -1)
                i += 1
        return 0


cdef inline uint64_t _finish(uint64_t hash) nogil:
    """The end of :meth:`MergeTable._hash_span` (the same hash for the same code points)."""
    hash ^= hash >> 31
    hash *= GOLDEN
    hash ^= hash >> 29
    return hash


cdef inline bint _is_line_break(uint32_t cp) nogil:
    """One of the characters ``str.splitlines`` breaks on (``pre_tokenizers.base.LINE_BREAKS``)."""
    return (0x0A <= cp <= 0x0D) or (0x1C <= cp <= 0x1E) or cp == 0x85 or cp == 0x2028 or cp == 0x2029
