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
kept in a cache of code points -> ids: :meth:`MergeTable.encode_chunk` cuts a chunk of texts
(``str.split()``'s cut, SentencePiece's, or pieces a pre-tokenizer gave) and merges its words
without the GIL, so that several threads can each encode a chunk at once
(:meth:`korean_bpe.encoding.encoder.Encoder.encode_texts` hands them out).

Threads: the merge table and the symbol tables are read-only once built; what a merge writes (the
symbols being merged, the heap) and the word cache live in a :class:`_Work`, one per thread at a
time, taken from the table's pool for the length of a call and given back (so a tokenizer used
from several Python threads at once gives each call its own).  A word with a symbol the
vocabulary lacks is spelled by ``slow(word)``, Python code: the thread takes the GIL for it.
"""

from libc.stdint cimport int32_t, int64_t, uint16_t, uint32_t, uint64_t
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

from korean_bpe.hangul cimport decompose


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
#: the mark of pending word p in a chunk's ids is PENDING - p (ids are never negative)
cdef int32_t PENDING = -2
#: set in a word cache record's ids length when a newer record of the word replaced it
cdef uint32_t REPLACED = 0x80000000
cdef int MODE_CHARS = 0
cdef int MODE_JAMO = 1
cdef int MODE_BYTES = 2
cdef uint64_t LOW32 = 0xFFFFFFFF
cdef uint64_t EMPTY_KEY = 0xFFFFFFFFFFFFFFFF
cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15
#: where a word's hash starts (FNV-1a's offset basis)
cdef uint64_t HASH_START = 0xCBF29CE484222325

cdef extern from "Python.h":
    object PyUnicode_Substring(object, Py_ssize_t, Py_ssize_t)
    # the same macros as cpython.unicode's, declared nogil: pure C on a string's immutable data
    Py_UCS4 uread "PyUnicode_READ"(int kind, void* data, Py_ssize_t index) nogil

cdef extern from "text_chars.hpp" namespace "kbpe" nogil:
    # str.split()'s white space; a character str.splitlines breaks on (pre_tokenizers.base.LINE_BREAKS)
    bint is_space(uint32_t ch) noexcept
    bint is_line_break(uint32_t ch) noexcept

cdef enum Cut:  # how :meth:`MergeTable.encode_chunk` cuts its texts
    CUT_WHITESPACE = 0
    CUT_SENTENCEPIECE = 1
    CUT_PIECES = 2


cdef struct Span:
    PyObject* obj   # the str (borrowed: the chunk holds a reference)
    void* data
    Py_ssize_t n
    int kind


cdef struct Word:   # a word of a chunk, cut and hashed, waiting for its ids (MergeTable._block_ids)
    uint64_t hash
    Py_ssize_t start
    Py_ssize_t end
    Py_ssize_t span    # the string it is cut from: an index into the chunk's spans
    int32_t prefix     # the symbol put first (-1: none)
    int32_t plain      # 1: spelled by slow_plain (a line break), else by slow


cdef struct Pending:  # a word holding a symbol the vocabulary lacks, spelled once the GIL is back
    PyObject* text     # the string it is cut from (the chunk holds it)
    PyObject* slow     # what spells it (Python: needs the GIL)
    Py_ssize_t start
    Py_ssize_t end
    uint64_t hash


cdef extern from *:
    # a hint to the CPU to start loading the cache line at this address; no effect on results
    void prefetch "__builtin_prefetch"(const void* p) noexcept nogil

#: words cut ahead of their lookups: a block of texts is cut into at most about this many words,
#: then looked up in the word cache with prefetches running ahead (a cache of a few hundred
#: thousand words is beyond the CPU's own caches: a lookup waits on memory twice, the slot and the
#: record, unless it was asked for earlier)
cdef Py_ssize_t BLOCK_WORDS = 512
#: how far ahead the slot of a word's hash, then its record, are prefetched
cdef Py_ssize_t AHEAD_SLOT = 16
cdef Py_ssize_t AHEAD_RECORD = 8


cdef inline uint64_t mix_cp(uint64_t h, uint32_t cp) noexcept nogil:
    return (h ^ cp) * 0x100000001B3ULL + (h >> 29)


cdef class _Work:
    """One thread's scratch: the symbols of the word being merged (a linked list and a heap for
    long words), its word cache and the ids of the chunk it encodes, text after text (``ends``:
    where each text's ids end).

    The word cache maps a word's code points to its ids: open addressing over ``wslots``, each
    slot ``hash >> 32 << 32 | offset`` (so a probe rarely reads a record that cannot match), the
    offset that of a record in ``warena``: ``hash_lo, hash_hi, key_len, ids_len``, the code
    points, the ids (one or two cache lines for a word: a hit costs two memory reads)."""

    cdef vector[int32_t] syms
    cdef vector[int32_t] nxt
    cdef vector[int32_t] prv
    cdef MinHeap heap
    cdef vector[uint64_t] wslots
    cdef vector[uint32_t] warena
    cdef Py_ssize_t wcount
    cdef uint64_t wmask
    cdef vector[int32_t] ids
    cdef vector[Py_ssize_t] ends
    cdef vector[Word] words       # the block of words being looked up (MergeTable._block_ids)
    cdef vector[Py_ssize_t] text_words  # where each text of the block ends in ``words``
    cdef vector[Pending] pending  # the chunk's words spelled by Python, after the GIL is taken back
    cdef Py_ssize_t generation
    cdef bint busy                # a worker's _Work (MergeTable.workers) in use by a call

    def __cinit__(self):
        self._reset_words(1024)
        self.generation = 0
        self.busy = False

    cdef void _reset_words(self, uint64_t cap) noexcept nogil:
        self.warena.clear()
        self.wslots.assign(cap, EMPTY_KEY)
        self.wmask = cap - 1
        self.wcount = 0

    cdef void _grow_words(self) noexcept nogil:
        cdef uint64_t cap = (self.wmask + 1) * 2
        cdef size_t off = 0, end = self.warena.size()
        cdef uint64_t hash, h
        cdef uint32_t* rec
        self.wslots.assign(cap, EMPTY_KEY)
        self.wmask = cap - 1
        while off < end:
            rec = self.warena.data() + off
            if not rec[3] & REPLACED:
                hash = (<uint64_t> rec[1]) << 32 | rec[0]
                h = hash & self.wmask
                while self.wslots[h] != EMPTY_KEY:
                    h = (h + 1) & self.wmask
                self.wslots[h] = ((hash >> 32) << 32) | <uint64_t> off
            off += 4 + rec[2] + (rec[3] & ~REPLACED)

    cdef int64_t _find_word(self, int kind, void* data, Py_ssize_t start, Py_ssize_t end, uint64_t hash,
                            uint64_t* slot) noexcept nogil:
        """Offset of the record of the cached word ``data[start:end]``, ``slot`` its slot (or -1,
        ``slot`` the free slot for it)."""
        cdef uint64_t h = hash & self.wmask
        cdef uint64_t tag = hash >> 32
        cdef uint64_t v
        cdef const uint32_t* rec
        cdef Py_ssize_t i, n = end - start
        while True:
            v = self.wslots[h]
            if v == EMPTY_KEY:
                slot[0] = h
                return -1
            if (v >> 32) == tag:
                rec = self.warena.data() + (v & LOW32)
                if rec[2] == n:
                    i = 0
                    while i < n and rec[4 + i] == uread(kind, data, start + i):
                        i += 1
                    if i == n:
                        slot[0] = h
                        return <int64_t> (v & LOW32)
            h = (h + 1) & self.wmask

    cdef void _replace_word(self, int kind, void* data, Py_ssize_t start, Py_ssize_t end, uint64_t hash,
                            uint64_t slot) noexcept nogil:
        """The cached word in ``slot`` now has the ids ``syms`` (a new record; the old one stays
        in the arena, marked ``REPLACED``: no slot points to it, and growing skips it)."""
        if self.warena.size() + 4 + (end - start) + self.syms.size() > LOW32:  # no room: the cache starts afresh
            self._reset_words(1024)
            return
        self.warena[(self.wslots[slot] & LOW32) + 3] |= REPLACED
        self._append_record(kind, data, start, end, hash, slot)

    cdef void _append_record(self, int kind, void* data, Py_ssize_t start, Py_ssize_t end, uint64_t hash,
                             uint64_t slot) noexcept nogil:
        """A record of the word ``data[start:end]`` and the ids ``syms`` at the arena's end, ``slot``
        pointing at it."""
        cdef Py_ssize_t k, m = self.syms.size()
        cdef size_t off = self.warena.size()
        self.warena.push_back(<uint32_t> (hash & LOW32))
        self.warena.push_back(<uint32_t> (hash >> 32))
        self.warena.push_back(<uint32_t> (end - start))
        self.warena.push_back(<uint32_t> m)
        for k in range(start, end):
            self.warena.push_back(uread(kind, data, k))
        for k in range(m):
            self.warena.push_back(<uint32_t> self.syms[k])
        self.wslots[slot] = ((hash >> 32) << 32) | <uint64_t> off

    cdef void _store_word(self, int kind, void* data, Py_ssize_t start, Py_ssize_t end, uint64_t hash,
                          uint64_t slot, Py_ssize_t maxsize) noexcept nogil:
        """Cache ``syms`` as the ids of the word ``data[start:end]``, not in the cache, whose free
        slot :meth:`_find_word` gave (found again when the cache is emptied, being full, or grows).
        Only the thread that holds this :class:`_Work` touches its cache, so the slot stays free."""
        if self.wcount >= maxsize or self.warena.size() + 4 + (end - start) + self.syms.size() > LOW32:
            self._reset_words(1024)
            self._find_word(kind, data, start, end, hash, &slot)
        elif <uint64_t> (self.wcount + 1) * 2 > self.wmask + 1:
            self._grow_words()
            self._find_word(kind, data, start, end, hash, &slot)
        self._append_record(kind, data, start, end, hash, slot)
        self.wcount += 1


ctypedef fused id_t:   # the two widths of a flat array of ids (korean_bpe.encoding.flat.id_dtype)
    uint16_t
    uint32_t


cdef int _copy_ids(id_t[::1] out, const int32_t* src, Py_ssize_t n) except -1:
    """``out[:] = src[:n]``, ``out`` of ``n`` ids."""
    cdef Py_ssize_t k
    if out.shape[0] != n:
        raise ValueError(f"out must hold {n} ids, got {out.shape[0]}")
    with nogil:
        for k in range(n):
            out[k] = <id_t> src[k]
    return 0


cdef class ChunkIds:
    """The ids of a chunk's texts (:meth:`MergeTable.merge_chunk`), merged without the GIL and
    held in one buffer until :meth:`lists` makes them Python lists (with the GIL: another thread
    may merge the next chunk meanwhile)."""

    cdef vector[int32_t] ids
    cdef vector[Py_ssize_t] ends
    cdef tuple id_objs

    def __len__(self):
        return self.ends.size()

    @property
    def n_ids(self):
        """How many ids the chunk's texts have together."""
        return self.ids.size()

    def write_flat(self, out, starts, Py_ssize_t base):
        """The ids into ``out``, a writable buffer of :attr:`n_ids` ``uint16`` (format ``H``) or
        ``uint32`` (``I``) items, and the end of each text's ids plus ``base`` into ``starts``, an
        ``int64`` buffer of one item a text: a NumPy array made once for many chunks
        (:mod:`korean_bpe.encoding.flat`), filled without a Python object a token (the caller picks
        a type that holds every id).  The buffer is emptied."""
        cdef int64_t[::1] st = starts
        cdef Py_ssize_t k, n = self.ids.size(), m = self.ends.size()
        cdef const int32_t* src = self.ids.data()
        fmt = memoryview(out).format
        if st.shape[0] != m:
            raise ValueError(f"starts must hold {m} items (one a text), got {st.shape[0]}")
        if fmt == "H":
            _copy_ids[uint16_t](out, src, n)
        elif fmt == "I":
            _copy_ids[uint32_t](out, src, n)
        else:
            raise TypeError(f"out must be a uint16 or uint32 buffer, got format {fmt!r}")
        with nogil:
            for k in range(m):
                st[k] = base + self.ends[k]
        self.ids.clear()
        self.ids.shrink_to_fit()
        self.ends.clear()
        self.ends.shrink_to_fit()

    def lists(self):
        """A list of ``int`` a text (the shared ``int`` objects of ``set_vocab_size``); the buffer
        is emptied."""
        cdef Py_ssize_t t, k, a = 0, b, m = self.ends.size(), n_objs = len(self.id_objs)
        cdef list out = PyList_New(m), ids
        cdef object v
        cdef int32_t x
        for t in range(m):
            b = self.ends[t]
            ids = PyList_New(b - a)
            for k in range(a, b):
                x = self.ids[k]
                if 0 <= x < n_objs:
                    v = self.id_objs[x]
                else:
                    v = PyLong_FromLong(x)
                Py_INCREF(v)
                PyList_SET_ITEM(ids, k - a, v)
            Py_INCREF(ids)
            PyList_SET_ITEM(out, t, ids)
            a = b
        self.ids.clear()
        self.ids.shrink_to_fit()
        self.ends.clear()
        self.ends.shrink_to_fit()
        return out


cdef class MergeTable:
    """Merges as ``(left_id, right_id) -> (rank, new_id)`` plus a character -> id table."""

    # open addressing, key and value side by side (one cache line a probe):
    # ptab[2h] = left << 32 | right, ptab[2h + 1] = rank << 32 | new
    cdef vector[uint64_t] ptab
    cdef uint64_t pmask
    cdef int pshift
    cdef tuple id_objs
    cdef vector[int32_t] bmp
    cdef unordered_map[uint32_t, int32_t] astral
    cdef int32_t prefix
    cdef int mode                 # MODE_CHARS, MODE_JAMO or MODE_BYTES
    cdef int32_t byte_ids[256]
    cdef list pool                # the spare _Work not in use
    cdef list workers             # worker k's own _Work (its word cache lasts from call to call)
    cdef Py_ssize_t generation    # a _Work of an older generation empties its word cache
    # how merge_chunk cuts texts and spells words (set_cut)
    cdef int cut                  # CUT_WHITESPACE or CUT_SENTENCEPIECE; -1: texts not cut here
    cdef int32_t space_id
    cdef object spell, spell_piece
    cdef Py_ssize_t maxsize

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
        self.ptab.assign(2 * cap, EMPTY_KEY)
        self.pmask = cap - 1
        self.pshift = 64 - bits
        for a, b, new in merges:
            if a < 0 or b < 0 or new < 0:
                raise ValueError("merge ids must be >= 0")
            key = ((<uint64_t> a) << 32) | (<uint64_t> b)
            h = (key * GOLDEN) >> self.pshift
            while self.ptab[2 * h] != EMPTY_KEY and self.ptab[2 * h] != key:
                h = (h + 1) & self.pmask
            if self.ptab[2 * h] == EMPTY_KEY:  # the first (lowest-rank) merge of a pair wins
                self.ptab[2 * h] = key
                self.ptab[2 * h + 1] = ((<uint64_t> rank) << 32) | (<uint64_t> new)
            rank += 1
        self.id_objs = ()
        self.pool = []
        self.workers = []
        self.generation = 0
        self.prefix = -1
        self.mode = MODE_CHARS
        self.cut = -1
        self.space_id = -1
        self.maxsize = 1
        for i in range(256):
            self.byte_ids[i] = -1
        self.bmp.assign(0x10000, -1)
        for ch, i in chars.items():
            cp = ord(ch)
            if cp < 0x10000:
                self.bmp[cp] = i
            else:
                self.astral[cp] = i

    # --- the pool of _Work ---------------------------------------------------------------------

    cdef _Work _take(self, Py_ssize_t worker=-1):
        """A :class:`_Work` for this call alone: worker ``k``'s own when ``worker=k`` and it is not
        in use (a batch handed out the same way finds its words where it left them), else a
        spare one (taken and given back under the GIL, so no two calls share one)."""
        cdef _Work w
        while worker >= len(self.workers):
            self.workers.append(_Work())
        if worker >= 0 and not (<_Work> self.workers[worker]).busy:
            w = self.workers[worker]
            w.busy = True
        else:
            try:
                w = self.pool.pop()
            except IndexError:
                w = _Work()
                w.generation = self.generation
        if w.generation != self.generation:
            w._reset_words(1024)
            w.generation = self.generation
        return w

    cdef void _give(self, _Work w):
        if w.busy:
            w.busy = False
        else:
            self.pool.append(w)

    # --- merging one word's symbols (w.syms) ---------------------------------------------------

    cdef inline bint _lookup(self, int32_t a, int32_t b, uint64_t* out) noexcept nogil:
        if a < 0 or b < 0:
            return False
        cdef uint64_t key = ((<uint64_t> a) << 32) | (<uint64_t> b)
        cdef uint64_t h = (key * GOLDEN) >> self.pshift
        cdef const uint64_t* tab = self.ptab.data()
        cdef uint64_t k
        while True:
            k = tab[2 * h]
            if k == key:
                out[0] = tab[2 * h + 1]
                return True
            if k == EMPTY_KEY:
                return False
            h = (h + 1) & self.pmask

    cdef void _run_heap(self, _Work w) noexcept nogil:
        cdef Py_ssize_t n = w.syms.size()
        cdef Py_ssize_t i, pos, j, k, p
        cdef uint64_t val, top, rank
        cdef int32_t new
        if n >= 2:
            w.nxt.resize(n)
            w.prv.resize(n)
            for i in range(n):
                w.nxt[i] = i + 1
                w.prv[i] = i - 1
            while not w.heap.empty():
                w.heap.pop()
            for i in range(n - 1):
                if self._lookup(w.syms[i], w.syms[i + 1], &val):
                    w.heap.push(((val >> 32) << 32) | <uint64_t> i)
            while not w.heap.empty():
                top = w.heap.top()
                w.heap.pop()
                rank = top >> 32
                pos = <Py_ssize_t> (top & LOW32)
                if w.syms[pos] == DEAD:
                    continue
                j = w.nxt[pos]
                if j >= n:
                    continue
                if not self._lookup(w.syms[pos], w.syms[j], &val) or (val >> 32) != rank:
                    continue
                new = <int32_t> (val & LOW32)
                w.syms[pos] = new
                w.syms[j] = DEAD
                k = w.nxt[j]
                w.nxt[pos] = k
                if k < n:
                    w.prv[k] = pos
                p = w.prv[pos]
                if p >= 0 and self._lookup(w.syms[p], new, &val):
                    w.heap.push(((val >> 32) << 32) | <uint64_t> p)
                if k < n and self._lookup(new, w.syms[k], &val):
                    w.heap.push(((val >> 32) << 32) | <uint64_t> pos)
        k = 0
        for i in range(n):
            if w.syms[i] != DEAD:
                w.syms[k] = w.syms[i]
                k += 1
        w.syms.resize(k)

    cdef void _run_small(self, _Work w) noexcept nogil:
        """The same result for short words: rescan for the lowest-rank pair (leftmost on ties),
        merge it, update the two neighbouring pair ranks; no heap."""
        cdef Py_ssize_t m = w.syms.size()
        cdef Py_ssize_t i, best_i
        cdef uint64_t best, val
        cdef uint64_t NONE = 0xFFFFFFFFFFFFFFFF
        cdef int32_t new
        cdef uint64_t rk[32]
        cdef int32_t* sy = w.syms.data()
        cdef const uint64_t* tab = self.ptab.data()
        for i in range(m - 1):  # the pairs' slots asked for at once, before they are read one by one
            prefetch(tab + 2 * ((((<uint64_t> sy[i]) << 32 | <uint32_t> sy[i + 1]) * GOLDEN) >> self.pshift))
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
        w.syms.resize(m)

    cdef void _run(self, _Work w) noexcept nogil:
        if w.syms.size() <= 32:
            self._run_small(w)
        else:
            self._run_heap(w)

    cdef list _merged(self, ids, bint heap):
        """The ids of symbol ids ``ids`` merged, through a :class:`_Work` of this call."""
        cdef _Work w = self._take()
        cdef list out
        cdef Py_ssize_t i
        try:
            w.syms.clear()
            for i in ids:
                w.syms.push_back(i)
            if heap:
                self._run_heap(w)
            else:
                self._run(w)
            out = [w.syms[i] for i in range(<Py_ssize_t> w.syms.size())]
        finally:
            self._give(w)
        return out

    def merge_ids_heap(self, ids):
        """:meth:`merge_ids` always through the heap (for tests: both paths agree)."""
        return self._merged(ids, True)

    def merge_ids(self, ids):
        """Apply the merges to a sequence of symbol ids (``-1`` = unknown); return the new ids."""
        return self._merged(ids, False)

    def set_symbols(self, int prefix, str mode, byte_ids=None):
        """How :meth:`encode_chunk` cuts a word into symbols:
        ``prefix`` the id of a word-start symbol put first (``-1``: none); ``mode`` ``"chars"`` (one
        symbol a character, ids from the char table), ``"jamo"`` (Hangul syllables split into
        conjoining jamo, other characters whole) or ``"bytes"`` (the UTF-8 bytes, surrogates as
        ``surrogatepass`` writes them; ``byte_ids[b]`` the id of byte ``b``, ``-1``: unknown).
        Empties the word caches."""
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
        self.clear_words()

    cdef bint _load_span(self, _Work w, int kind, void* data, Py_ssize_t start, Py_ssize_t n,
                         int32_t prefix) noexcept nogil:
        """Symbols of the characters ``start..n`` of a string's data into ``w.syms`` (see
        :meth:`set_symbols`), after ``prefix`` when >= 0; False when a symbol is unknown."""
        cdef Py_ssize_t i
        cdef uint32_t cp
        cdef uint32_t jamo[3]
        cdef int nj, k
        cdef int32_t v
        cdef unordered_map[uint32_t, int32_t].const_iterator it
        w.syms.clear()
        if prefix >= 0:
            w.syms.push_back(prefix)
        if self.mode == MODE_BYTES:
            return self._load_bytes(w, kind, data, start, n)
        for i in range(start, n):
            cp = uread(kind, data, i)
            nj = decompose(cp, jamo) if self.mode == MODE_JAMO else 0
            if nj:  # a Hangul syllable as its jamo
                for k in range(nj):
                    v = self.bmp[jamo[k]]
                    if v < 0:
                        return False
                    w.syms.push_back(v)
                continue
            if cp < 0x10000:
                v = self.bmp[cp]
            else:
                it = self.astral.const_find(cp)
                v = deref(it).second if it != self.astral.const_end() else -1
            if v < 0:
                return False
            w.syms.push_back(v)
        return True

    cdef bint _load_bytes(self, _Work w, int kind, void* data, Py_ssize_t start, Py_ssize_t n) noexcept nogil:
        """:meth:`_load_span` in bytes mode: each character's UTF-8 bytes."""
        cdef Py_ssize_t i
        cdef uint32_t cp
        cdef int k, m
        cdef uint32_t b[4]
        cdef int32_t v
        for i in range(start, n):
            cp = uread(kind, data, i)
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
                w.syms.push_back(v)
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

    # --- the word caches and the loops that use them --------------------------------------------

    def set_vocab_size(self, Py_ssize_t n):
        """Keep the ``int`` objects of the ids ``0..n-1`` for building the result lists."""
        self.id_objs = tuple(range(n))

    def clear_words(self):
        """Empty the word caches (a cache in use by another thread is emptied when given back
        and taken again)."""
        self.generation += 1
        for w in self.pool + [w for w in self.workers if not (<_Work> w).busy]:
            (<_Work> w)._reset_words(1024)
            (<_Work> w).generation = self.generation

    def cached_words(self):
        """How many words the largest word cache not in use holds (each holds at most the
        ``maxsize`` of the calls that filled it)."""
        return max([(<_Work> w).wcount for w in self.pool + self.workers
                    if not (<_Work> w).busy and (<_Work> w).generation == self.generation], default=0)

    cdef inline uint64_t _hash_span(self, int kind, void* data, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        cdef uint64_t hash = HASH_START
        cdef Py_ssize_t i
        for i in range(start, end):
            hash = mix_cp(hash, uread(kind, data, i))
        return _finish(hash)

    cdef int _word_ids(self, _Work w, PyObject* text, int kind, void* data, Py_ssize_t start, Py_ssize_t end,
                       uint64_t hash, PyObject* slow, Py_ssize_t maxsize, int32_t prefix) except -1 nogil:
        """Append the ids of the word ``text[start:end]`` to ``w.ids``: from the cache, else its
        symbols merged here (or ``slow(word)``, with the GIL, when a symbol is unknown), then
        cached."""
        cdef uint64_t slot
        cdef const int32_t* hit
        cdef int64_t off = w._find_word(kind, data, start, end, hash, &slot)
        if off >= 0:
            hit = <const int32_t*> (w.warena.data() + off)
            w.ids.insert(w.ids.end(), hit + 4 + hit[2], hit + 4 + hit[2] + hit[3])
            return 0
        cdef Pending pd
        if self._load_span(w, kind, data, start, end, prefix):
            self._run(w)
        else:  # spelled by slow(word) once the chunk is merged (MergeTable._spell_pending): a mark for now
            pd.text, pd.slow, pd.start, pd.end, pd.hash = text, slow, start, end, hash
            w.syms.clear()
            w.syms.push_back(PENDING - <int32_t> w.pending.size())
            w.pending.push_back(pd)
        w.ids.insert(w.ids.end(), w.syms.begin(), w.syms.end())
        w._store_word(kind, data, start, end, hash, slot, maxsize)
        return 0

    cdef int _spell_pending(self, _Work w, Py_ssize_t maxsize) except -1:
        """With the GIL: each pending word's ids from ``slow(word)``, put in place of its mark in
        ``w.ids`` (the texts' ``w.ends`` moved to match) and in the word cache in place of the
        mark (a cache emptied meanwhile gets the word afresh)."""
        cdef Py_ssize_t p, k, t, a, n = w.pending.size()
        cdef vector[int32_t] spelled, ids
        cdef vector[Py_ssize_t] starts, ends
        cdef Pending pd
        cdef uint64_t slot
        cdef int64_t off
        cdef int32_t x
        cdef object text
        if n == 0:
            return 0
        for p in range(n):
            pd = w.pending[p]
            _slow_word(w, pd.text, pd.start, pd.end, pd.slow)
            starts.push_back(spelled.size())
            spelled.insert(spelled.end(), w.syms.begin(), w.syms.end())
            text = <object> pd.text
            off = w._find_word(PyUnicode_KIND(text), PyUnicode_DATA(text), pd.start, pd.end, pd.hash, &slot)
            if off >= 0:  # the mark's record: the slot points at a new one
                w._replace_word(PyUnicode_KIND(text), PyUnicode_DATA(text), pd.start, pd.end, pd.hash, slot)
            else:
                w._store_word(PyUnicode_KIND(text), PyUnicode_DATA(text), pd.start, pd.end, pd.hash, slot, maxsize)
        starts.push_back(spelled.size())
        a = 0
        for t in range(<Py_ssize_t> w.ends.size()):
            for k in range(a, w.ends[t]):
                x = w.ids[k]
                if x > PENDING:
                    ids.push_back(x)
                else:
                    p = PENDING - x
                    if p >= n:  # an invariant: a mark in the ids is one of this chunk's pending words
                        raise AssertionError(f"word cache mark {x} is not one of this chunk's {n} pending words")
                    ids.insert(ids.end(), spelled.begin() + starts[p], spelled.begin() + starts[p + 1])
            a = w.ends[t]
            ends.push_back(ids.size())
        w.ids.swap(ids)
        w.ends.swap(ends)
        w.pending.clear()
        return 0

    cdef void _words_whitespace(self, _Work w, const Span* s, Py_ssize_t span) noexcept nogil:
        """The words of ``text.split()`` onto ``w.words``."""
        cdef Py_ssize_t n = s.n, i = 0
        cdef int kind = s.kind
        cdef void* data = s.data
        cdef uint32_t cp
        cdef uint64_t hash
        cdef Word wd
        wd.span = span
        wd.prefix = self.prefix
        wd.plain = 0
        while True:
            while i < n and is_space(uread(kind, data, i)):
                i += 1
            if i >= n:
                return
            wd.start = i
            hash = HASH_START
            while i < n:
                cp = uread(kind, data, i)
                if is_space(cp):
                    break
                hash = mix_cp(hash, cp)
                i += 1
            wd.end = i
            wd.hash = _finish(hash)
            w.words.push_back(wd)

    cdef void _words_sentencepiece(self, _Work w, const Span* s, Py_ssize_t span, int32_t space_id) noexcept nogil:
        """``text``'s SentencePiece pieces (see :meth:`set_cut`) onto ``w.words``."""
        cdef Word wd
        cdef uint64_t hash
        cdef uint32_t cp
        cdef Py_ssize_t n = s.n, i = 0, line_start
        cdef void* data = s.data
        cdef int kind = s.kind
        wd.span = span
        while i < n:
            line_start = wd.start = i
            wd.prefix = space_id
            wd.plain = 0
            hash = HASH_START
            while i < n:
                cp = uread(kind, data, i)
                if cp == 0x20 or cp == 0x2581:
                    wd.end = i
                    wd.hash = _finish(hash)
                    w.words.push_back(wd)
                    i += 1
                    wd.start = i
                    hash = HASH_START
                    continue
                if is_line_break(cp):
                    break
                hash = mix_cp(hash, cp)
                i += 1
            if i > line_start:  # the line's last piece
                wd.end = i
                wd.hash = _finish(hash)
                w.words.push_back(wd)
            if i < n:  # a line break: a piece of its own, no ▁
                wd.start = i
                wd.end = i + 1
                wd.hash = _finish(mix_cp(HASH_START, cp))
                wd.prefix = -1
                wd.plain = 1
                w.words.push_back(wd)
                i += 1

    cdef int _block_ids(self, _Work w, const Span* spans, PyObject* slow, PyObject* slow_plain,
                        Py_ssize_t maxsize) except -1 nogil:
        """The ids of the block of words ``w.words`` into ``w.ids``, each text's end into
        ``w.ends``; the slot, then the record, of a word a few words ahead prefetched."""
        cdef Py_ssize_t i, n = w.words.size(), t = 0, nt = w.text_words.size()
        cdef const Word* ws = w.words.data()
        cdef const Word* wd
        cdef const Span* s
        cdef uint64_t v, h
        while t < nt and w.text_words[t] == 0:
            w.ends.push_back(w.ids.size())
            t += 1
        for i in range(n):
            if i + AHEAD_SLOT < n:
                prefetch(w.wslots.data() + (ws[i + AHEAD_SLOT].hash & w.wmask))
            if i + AHEAD_RECORD < n:
                h = ws[i + AHEAD_RECORD].hash
                v = w.wslots[h & w.wmask]
                if v != EMPTY_KEY and (v >> 32) == (h >> 32):
                    prefetch(w.warena.data() + (v & LOW32))
            wd = ws + i
            s = spans + wd.span
            self._word_ids(w, s.obj, s.kind, s.data, wd.start, wd.end, wd.hash,
                           slow_plain if wd.plain else slow, maxsize, wd.prefix)
            while t < nt and w.text_words[t] == i + 1:
                w.ends.push_back(w.ids.size())
                t += 1
        return 0

    def set_cut(self, cut, *, spell, spell_piece=None, int space_id=-1, Py_ssize_t maxsize):
        """How :meth:`merge_chunk` cuts a text into words and spells the words the merges cannot,
        set once (by :class:`korean_bpe.encoding.encoder.Encoder`).

        ``cut``: ``"whitespace"`` (as ``str.split()`` cuts), ``"sentencepiece"`` (as
        ``korean_bpe.pre_tokenizers.simple.sentencepiece_pieces`` cuts: a piece at every space,
        U+0020 or ``▁``, each opening with the ``▁`` of id ``space_id``; each line break a piece of
        its own, without it; an empty line no piece), or ``None`` (texts are not cut here: only
        :meth:`merge_pieces`).  ``spell(word)`` gives the ids (a sequence of ints) of a word or
        piece holding a symbol the vocabulary lacks; with ``"sentencepiece"``, a piece is cached
        under its text without the ``▁`` and ``spell_piece(segment)`` spells the piece
        ``'▁' + segment``.  Each thread's word cache is emptied when it holds ``maxsize`` words,
        and here (what it holds was cut the former way)."""
        if cut not in ("whitespace", "sentencepiece", None):
            raise ValueError(f"cut must be 'whitespace', 'sentencepiece' or None, got {cut!r}")
        if cut == "sentencepiece" and (spell_piece is None or space_id < 0):
            raise ValueError("cut='sentencepiece' needs spell_piece and the id of '▁' (space_id >= 0)")
        if maxsize < 1:
            raise ValueError(f"maxsize must be >= 1, got {maxsize}")
        self.cut = CUT_WHITESPACE if cut == "whitespace" else CUT_SENTENCEPIECE if cut == "sentencepiece" else -1
        self.space_id = space_id
        self.spell, self.spell_piece, self.maxsize = spell, spell_piece, maxsize
        self.clear_words()

    def merge_chunk(self, list chunk, Py_ssize_t worker=0):
        """The ids of each text of ``chunk`` (a :class:`ChunkIds`), cut as :meth:`set_cut` says,
        the words merged and cached without the GIL.  Threads may call this at once: each call
        takes worker ``worker``'s :class:`_Work` (its word cache), or a spare one while that is in
        use."""
        if self.cut < 0:
            raise ValueError("this MergeTable cuts no text (set_cut(None, ...)): use merge_pieces")
        if self.cut == CUT_SENTENCEPIECE:
            return self._merge(chunk, CUT_SENTENCEPIECE, self.spell_piece, self.spell, worker)
        return self._merge(chunk, CUT_WHITESPACE, self.spell, None, worker)

    def merge_pieces(self, list chunk, Py_ssize_t worker=0):
        """:meth:`merge_chunk` for pre-tokenized texts: each item a list of pieces (what a
        pre-tokenizer gave), each piece cut into symbols as :meth:`set_symbols` says and spelled
        by ``spell`` (:meth:`set_cut`) when the merges cannot."""
        if self.spell is None:
            raise ValueError("call set_cut(...) first: it says how words the merges cannot are spelled")
        return self._merge(chunk, CUT_PIECES, self.spell, None, worker)

    def encode_chunk(self, list chunk, Py_ssize_t worker=0):
        """The ids of each text of ``chunk`` as lists: ``merge_chunk(chunk, worker).lists()``."""
        return self.merge_chunk(chunk, worker).lists()

    cdef ChunkIds _merge(self, list chunk, int cut, slow, slow_plain, Py_ssize_t worker):
        """:meth:`merge_chunk` and :meth:`merge_pieces`: ``slow`` spells a word (with
        ``CUT_SENTENCEPIECE``, the piece ``'▁' + segment``), ``slow_plain`` a line break."""
        cdef Py_ssize_t maxsize = self.maxsize
        cdef int space_id = self.space_id
        cdef Py_ssize_t t, k, m = len(chunk), a, b
        cdef vector[Span] spans
        cdef vector[Py_ssize_t] counts   # CUT_PIECES: the pieces of each item
        cdef Span s
        cdef Word wd
        cdef list keep = chunk, pieces
        cdef ChunkIds done
        cdef object item, p
        cdef _Work w
        cdef PyObject* slow_p = <PyObject*> slow
        cdef PyObject* plain_p = <PyObject*> slow_plain
        wd.prefix = self.prefix
        wd.plain = 0
        if cut == CUT_PIECES:
            keep = []  # every piece, held while the GIL is released (an item list may change meanwhile)
            for t in range(m):
                item = chunk[t]
                pieces = item if type(item) is list else list(item)
                counts.push_back(len(pieces))
                for p in pieces:
                    if type(p) is not str:
                        raise TypeError(f"pieces must be strings; got {type(p).__name__} {p!r} in batch[{t}]")
                    keep.append(p)
            items = keep
        else:
            chunk = list(chunk)  # held while the GIL is released
            keep = chunk
        for t in range(len(keep)):
            p = keep[t]
            if type(p) is not str:
                raise TypeError(f"texts must hold strings; texts[{t}] is {type(p).__name__} {p!r}")
            s.obj = <PyObject*> p
            s.data = PyUnicode_DATA(p)
            s.kind = PyUnicode_KIND(p)
            s.n = PyUnicode_GET_LENGTH(p)
            spans.push_back(s)
        w = self._take(worker)
        try:
            w.ids.clear()
            w.ends.clear()
            with nogil:
                t = 0
                k = 0  # CUT_PIECES: the span of item t's first piece
                while t < m:  # a block of texts: cut into words, then the words looked up
                    w.words.clear()
                    w.text_words.clear()
                    while t < m and <Py_ssize_t> w.words.size() < BLOCK_WORDS:
                        if cut == CUT_PIECES:
                            for a in range(counts[t]):
                                s = spans[k]
                                wd.hash = self._hash_span(s.kind, s.data, 0, s.n)
                                wd.start = 0
                                wd.end = s.n
                                wd.span = k
                                w.words.push_back(wd)
                                k += 1
                        elif cut == CUT_WHITESPACE:
                            self._words_whitespace(w, &spans[t], t)
                        else:
                            self._words_sentencepiece(w, &spans[t], t, space_id)
                        w.text_words.push_back(w.words.size())
                        t += 1
                    self._block_ids(w, spans.data(), slow_p, plain_p, maxsize)
            self._spell_pending(w, maxsize)
            done = ChunkIds()
            done.id_objs = self.id_objs
            done.ids.swap(w.ids)  # the ids move to the result; w keeps the result's empty vectors
            done.ends.swap(w.ends)
        finally:
            w.ids.clear()
            if w.pending.size():  # an error: no mark may stay in the word cache
                w.pending.clear()
                w._reset_words(1024)
            self._give(w)
        return done




cdef int _slow_word(_Work w, PyObject* text, Py_ssize_t start, Py_ssize_t end, PyObject* slow) except -1 with gil:
    """``w.syms`` = the ids ``slow(word)`` gives for the word ``text[start:end]`` (Python code:
    the GIL is taken for it)."""
    cdef object t = <object> text
    value = (<object> slow)(t if start == 0 and end == PyUnicode_GET_LENGTH(t) else PyUnicode_Substring(t, start, end))
    w.syms.clear()
    for v in value:
        w.syms.push_back(<int32_t> v)
    return 0


cdef inline uint64_t _finish(uint64_t hash) noexcept nogil:
    """The end of :meth:`MergeTable._hash_span` (the same hash for the same code points)."""
    hash ^= hash >> 31
    hash *= GOLDEN
    hash ^= hash >> 29
    return hash


def only_str(list items):
    """Whether every item is a ``str`` itself (not a subclass): what the core reads.

    >>> only_str(["영화", "재밌다"]), only_str(["영화", None])
    (True, False)
    """
    cdef Py_ssize_t k
    for k in range(len(items)):
        if type(items[k]) is not str:
            return False
    return True
