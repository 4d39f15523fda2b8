# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Compiled BPE merge engine (Cython -> C++); same merges as ``korean_bpe.trainer.fast.merge_engine``.

Words live in one flat array of symbols linked by ``prev``/``next`` indices (a merged-away symbol is
marked ``-1``).  Each pair gets a dense index from an open-addressing hash table; per pair we keep
its count and the positions (left symbol) where it was created, appended as it appears and checked
when used.  A merge visits only those positions and updates the pairs around each site by
difference.  The best pair comes from a lazy max-heap ordered by (count, then smaller pair) of the
pairs counted at least a floor's number of times; those below wait in a list per count until the
heap runs dry and the floor halves (the same choices as one heap of every pair).  The
C++ is in ``merge_engine.hpp`` (the engine), ``engine_fill.hpp`` (its set-up on threads) and
``merge_namer.hpp`` (the merges named without Python objects, for :func:`train_ids`).
"""

from korean_bpe._counting cimport WordSymbols   # the counted words as symbol ids, in flat arrays
from korean_bpe._tasks cimport share, run_tasks  # the set-up's tasks on threads

from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF, PyObject
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libcpp.vector cimport vector

cdef extern from "engine_fill.hpp":
    cdef cppclass Engine "kbpe::Engine":
        void reserve(size_t n)
        void set_limit(int64_t limit, int32_t next_id)
        void set_symbol_length(int32_t id, int64_t n)
        void add(int32_t s, int64_t cnt, bint first, bint last)
        int32_t best_a, best_b
        int64_t best_count
        int64_t n_visit, n_site, n_push, n_pop, n_remade, n_indexed
        int64_t min_count
        void build() except + nogil
        void resize_nodes(size_t n) except +
        void par_begin(int n) except +
        void par_layout() except + nogil
        void par_finish() except + nogil
        size_t n_pairs()
        size_t n_pool()
        size_t n_slots()
        bint pop_best() nogil
        void apply(int32_t nw) except + nogil
    cdef cppclass FillJob "kbpe::FillJob":
        Engine* eng
        const int32_t* syms
        const int64_t* starts
        const int64_t* counts
        const int32_t* m
        vector[int64_t] cut_word, cut_off
        vector[int32_t] cut_pos
        vector[size_t] wlo, nlo, wrote
        bint write
    cdef cppclass BuildJob "kbpe::BuildJob":
        Engine* eng
        int step
    void fill_task "kbpe::fill_task"(void* job, int i) noexcept nogil
    void build_task "kbpe::build_task"(void* job, int i) noexcept nogil


cdef extern from "merge_namer.hpp":
    ctypedef uint32_t char32_t
    cdef cppclass u32string "std::u32string":
        u32string()
        void push_back(char32_t c)
        size_t size()
        char32_t& operator[](size_t i)
    cdef cppclass Namer "kbpe::Namer":
        vector[u32string] text
        u32string prefix
        int64_t min_count, max_merges, vocab_limit
        vector[int32_t] left, right
        bint special_hit
        void add_token(const u32string& t)
        void add_special(const u32string& t)
        int32_t name(int32_t a, int32_t b, int64_t count) nogil


from time import perf_counter, thread_time

from .._gc import paused
from .._tasks import PROFILE

cdef int64_t _INT64_MAX = 9223372036854775807
cdef int32_t _ID_MAX = 2147483647


def merge_engine(words, counts, *, int next_id, on_merge, max_token_length=None, symbol_lengths=None):
    """Compiled twin of ``korean_bpe.trainer.fast.merge_engine`` (same arguments, same merges)."""
    cdef Py_ssize_t nw = len(words), i, j, n, total = 0
    if nw != len(counts):
        raise ValueError(
            f"words and counts must have the same length, got {nw} words and {len(counts)} counts; "
            "pass one count per distinct word"
        )
    if next_id < 0:
        raise ValueError(f"next_id must be an int >= 0 (the first free token id), got {next_id!r}")
    if max_token_length is not None and (type(max_token_length) is not int or max_token_length < 1):
        raise ValueError(f"max_token_length must be None or an int >= 1, got {max_token_length!r}")
    # pair counts are sums of count * occurrences: make sure they fit in int64, else stay exact in Python
    bound = 0
    for i in range(nw):
        c = counts[i]
        if c <= 0:
            raise ValueError(f"counts must be positive, got {c} for word {i}; drop words that never occur")
        n = len(words[i])
        total += n
        if n > 1:
            bound += c * (n - 1)
    if bound >= _INT64_MAX or total >= _ID_MAX:
        from .fast import merge_engine as py_engine  # its pure-Python twin (lazy)
        py_engine(words, counts, next_id=next_id, on_merge=on_merge, max_token_length=max_token_length,
                  symbol_lengths=symbol_lengths)
        return
    cdef Engine* eng = new Engine()
    with paused():  # the callback allocates; full collections over the caller's big word lists cost
        _run_engine(eng, words, counts, nw, total, next_id, on_merge, max_token_length, symbol_lengths)


cdef _run_engine(Engine* eng, words, counts, Py_ssize_t nw, Py_ssize_t total, int next_id, on_merge,
                 max_token_length, symbol_lengths=None):
    """:func:`merge_engine`'s loop (the cyclic collector paused by the caller); frees ``eng``."""
    cdef Py_ssize_t i, j, n
    cdef int64_t cnt
    cdef int32_t pos = 0, start, v
    cdef list w
    try:
        eng.reserve(total)
        eng.set_limit(_INT64_MAX if max_token_length is None else min(max_token_length, _INT64_MAX - 1), next_id)
        if symbol_lengths:
            for i, cnt in symbol_lengths.items():
                if 0 <= i < next_id:
                    eng.set_symbol_length(<int32_t>i, cnt)
        for i in range(nw):
            w = list(words[i]) if type(words[i]) is not list else words[i]
            n = len(w)
            if n == 0:
                continue
            cnt = counts[i]
            start = pos
            for j in range(n):
                v = w[j]
                if v < 0:
                    raise ValueError(f"symbol ids must be >= 0, got {v} in word {i}")
                eng.add(v, cnt, j == 0, j + 1 == n)
        t_b = perf_counter()
        with nogil:
            eng.build()
        t_build = perf_counter() - t_b
        t_pop = t_apply = t_cb = 0.0
        while True:
            t0 = perf_counter()
            with nogil:
                found = eng.pop_best()
            t1 = perf_counter()
            t_pop += t1 - t0
            if not found:
                break
            new = on_merge(eng.best_a, eng.best_b, eng.best_count)
            t2 = perf_counter()
            t_cb += t2 - t1
            if new is None or new < 0:
                break
            if new > _ID_MAX - 1:
                raise ValueError(f"on_merge must return an id below 2**31 - 1, got {new}")
            v = new
            with nogil:
                eng.apply(v)
            t_apply += perf_counter() - t2
        if PROFILE:
            print(f"engine: build {t_build:.3f} pop {t_pop:.3f} callback {t_cb:.3f} apply {t_apply:.3f}; "
                  f"positions {total} visited {eng.n_visit} sites {eng.n_site} pushes {eng.n_push} pops {eng.n_pop}")
    finally:
        del eng


cdef enum:
    _CACHE = 4096  # direct-mapped cache: symbol object -> value, for words sharing symbol objects


cdef inline Py_ssize_t _cache_slot(PyObject* o) noexcept:
    cdef uint64_t h = (<uint64_t>o) >> 4
    return <Py_ssize_t>((h * 0x9E3779B97F4A7C15ULL) >> 52)


def words_to_ids(word_counts, dict symbol_to_id, *, Py_ssize_t min_length=1):
    """``(words, counts)``: each ``(symbols, count)`` item (or mapping entry) with symbols as ids;
    words with fewer than ``min_length`` symbols are left out."""
    items = word_counts.items() if hasattr(word_counts, "items") else word_counts
    cdef list words = []
    cdef list counts = []
    cdef list ids
    cdef list hold = [None] * _CACHE   # keeps cached keys alive so their addresses stay theirs
    cdef PyObject* ckey[_CACHE]
    cdef PyObject* cval[_CACHE]
    cdef Py_ssize_t k, n, slot
    cdef object s, sid
    for k in range(_CACHE):
        ckey[k] = NULL
    with paused():
        for symbols, count in items:
            n = len(symbols)
            if n < min_length:
                continue
            ids = PyList_New(n)
            k = 0
            for s in symbols:
                if k >= n:
                    raise ValueError(f"word {symbols!r} changed length while read")
                slot = _cache_slot(<PyObject*>s)
                if ckey[slot] == <PyObject*>s:
                    sid = <object>cval[slot]
                else:
                    sid = symbol_to_id[s]
                    hold[slot] = (s, sid)
                    ckey[slot] = <PyObject*>s
                    cval[slot] = <PyObject*>sid
                Py_INCREF(sid)
                PyList_SET_ITEM(ids, k, sid)
                k += 1
            words.append(ids)
            counts.append(count)
    return words, counts


def symbol_counts(word_counts):
    """``{symbol: count}``: how often each symbol occurs, each word weighted by its count."""
    items = word_counts.items() if hasattr(word_counts, "items") else word_counts
    cdef dict index = {}        # symbol -> position in `symbols` / `totals`
    cdef list symbols = []
    cdef vector[int64_t] totals
    cdef list hold = [None] * _CACHE
    cdef PyObject* ckey[_CACHE]
    cdef Py_ssize_t cidx[_CACHE]
    cdef Py_ssize_t k, slot, j
    cdef int64_t c64
    cdef object s, pos
    for k in range(_CACHE):
        ckey[k] = NULL
    pairs = list(items)
    bound = 0
    for symbols_, c in pairs:
        if type(c) is not int or c < 0:
            return _symbol_counts_py(pairs)
        bound += c * len(symbols_)
    if bound >= 2 ** 63:  # totals might not fit in int64: stay in Python ints
        return _symbol_counts_py(pairs)
    for symbols_, c in pairs:
        c64 = c
        for s in symbols_:
            slot = _cache_slot(<PyObject*>s)
            if ckey[slot] == <PyObject*>s:
                j = cidx[slot]
            else:
                pos = index.get(s)
                if pos is None:
                    j = len(symbols)
                    index[s] = j
                    symbols.append(s)
                    totals.push_back(0)
                else:
                    j = pos
                hold[slot] = s
                ckey[slot] = <PyObject*>s
                cidx[slot] = j
            totals[j] += c64
    return {symbols[j]: totals[j] for j in range(len(symbols))}


def _symbol_counts_py(pairs):
    out = {}
    for symbols, c in pairs:
        for s in symbols:
            out[s] = out.get(s, 0) + c
    return out


# --- training from flat arrays: words straight to symbol ids, merges named in C++ ------------------

cdef extern from "merge_namer.hpp":
    const void* _u32_data "kbpe::u32_data"(const u32string& s)

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND


cdef inline u32string _u32(str s):
    cdef u32string out
    cdef int kind = PyUnicode_KIND(s)
    cdef void* data = PyUnicode_DATA(s)
    cdef Py_ssize_t i
    for i in range(PyUnicode_GET_LENGTH(s)):
        out.push_back(<char32_t>PyUnicode_READ(kind, data, i))
    return out


cdef inline str _py(const u32string& s):
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, _u32_data(s), <Py_ssize_t>s.size())


def train_ids(WordSymbols ws, list new_ids, cuts, list id_to_token, *, int64_t min_count, max_merges,
              vocab_size, prefix, specials, max_token_length=None, on_merge=None, int num_threads=1):
    """Train on ``ws`` with the engine of :func:`merge_engine`, naming the merges in C++.

    ``new_ids[i]``: the token id of symbol ``i`` (``-1``: dropped from the words); ``cuts``:
    ``[(k, positions)]``, word ``k`` (in new ids) is cut before each position (special-token runs);
    ``id_to_token``: the tokens so far (special tokens, alphabet), extended with the merged ones.
    Stops as ``train_bpe``'s loop does: best count below ``min_count``, ``max_merges`` merges
    (``None``: no limit), ``vocab_size`` tokens (``None``: no limit).  ``on_merge(rank, (left,
    right), count)``, when given, is called after each merge is decided.  Returns the merges as
    ``[(left, right)]`` token pairs.  ``num_threads``: the engine's words and its initial pair
    index are built on that many threads (the merge loop is one thread): the same merges."""
    if num_threads < 1:
        raise ValueError(f"num_threads must be >= 1, got {num_threads}")
    cdef Engine* eng = new Engine()
    cdef Namer* nm = new Namer()
    cdef FillJob* fill = new FillJob()
    cdef BuildJob build
    cdef vector[int32_t] m = new_ids
    cdef size_t k, nwords = ws.counts.size(), nsyms = ws.syms.size(), j
    cdef int64_t total = 0
    cdef int32_t nw
    cdef int parts, i
    cdef Py_ssize_t rank = 0, first_new = len(id_to_token)
    cdef list merges
    cdef bint found
    t_0 = perf_counter(); c_0 = thread_time()
    try:
        if m.size() < len(ws.symbols):
            raise ValueError(f"new_ids must give an id to each of the {len(ws.symbols)} symbols, got {m.size()}")
        eng.set_limit(_INT64_MAX if max_token_length is None else min(max_token_length, _INT64_MAX - 1),
                      <int32_t>first_new)
        eng.min_count = min_count if min_count > 1 else 1
        for word, positions in sorted(cuts):
            fill.cut_word.push_back(word)
            fill.cut_off.push_back(<int64_t>fill.cut_pos.size())
            for j in positions:
                fill.cut_pos.push_back(<int32_t>j)
        fill.cut_off.push_back(<int64_t>fill.cut_pos.size())
        # the words in `parts` ranges of about as many symbols each
        parts = share(num_threads, nsyms, nwords)
        fill.eng = eng
        fill.syms = ws.syms.data()
        fill.starts = ws.starts.data()
        fill.counts = ws.counts.data()
        fill.m = m.data()
        fill.wlo.push_back(0)
        k = 0
        for i in range(1, parts):
            while k < nwords and <size_t>ws.starts[k] < nsyms * i // parts:
                k += 1
            fill.wlo.push_back(k)
        fill.wlo.push_back(nwords)
        fill.nlo.assign(parts + 1, 0)
        fill.wrote.assign(parts, 0)
        if parts > 1:   # pass 1: each range's node count, so that each knows where its nodes go
            fill.write = False
            run_tasks(fill_task, fill, parts, num_threads)
            for i in range(parts):
                fill.nlo[i + 1] += fill.nlo[i]
            total = <int64_t>fill.nlo[parts]
        else:   # one range: room for every symbol, cut to the nodes written
            total = <int64_t>nsyms
        if total >= _ID_MAX:
            raise ValueError("the words hold 2**31 symbols or more: too many for the compiled engine")
        eng.resize_nodes(<size_t>total)
        if parts > 1:
            eng.par_begin(parts)   # pass 2 also files the pair sites for the parallel build
        fill.write = True
        run_tasks(fill_task, fill, parts, num_threads)   # pass 2: the nodes
        if parts == 1:
            total = <int64_t>fill.wrote[0]
            eng.resize_nodes(<size_t>total)
        for tok in id_to_token:
            nm.add_token(_u32(tok))
        for tok in specials:
            nm.add_special(_u32(tok))
        if prefix:
            nm.prefix = _u32(prefix)
        nm.min_count = min_count
        nm.max_merges = _INT64_MAX if max_merges is None else max_merges
        nm.vocab_limit = _INT64_MAX if vocab_size is None else vocab_size
        t_1 = perf_counter(); c_1 = thread_time()
        if parts == 1:
            with nogil:
                eng.build()
        else:   # the initial pair index on `parts` threads: see Engine::par_begin
            build.eng = eng
            build.step = 1
            run_tasks(build_task, &build, parts, parts)
            with nogil:
                eng.par_layout()
            build.step = 2
            run_tasks(build_task, &build, parts, parts)
            with nogil:
                eng.par_finish()
        t_2 = perf_counter(); c_2 = thread_time()
        if PROFILE:
            print(f"train_ids: built pairs {eng.n_pairs()} pool {eng.n_pool()} slots {eng.n_slots()}")
        if on_merge is None:
            with nogil:
                while eng.pop_best():
                    nw = nm.name(eng.best_a, eng.best_b, eng.best_count)
                    if nw < 0:
                        break
                    eng.apply(nw)
        else:
            while True:
                with nogil:
                    found = eng.pop_best()
                    nw = nm.name(eng.best_a, eng.best_b, eng.best_count) if found else -1
                if nw < 0:
                    break
                while <size_t>len(id_to_token) < nm.text.size():
                    id_to_token.append(_py(nm.text[len(id_to_token)]))
                on_merge(rank, (id_to_token[eng.best_a], id_to_token[eng.best_b]), eng.best_count)
                rank += 1
                with nogil:
                    eng.apply(nw)
        if nm.special_hit:
            raise AssertionError(f"a merge of {id_to_token[eng.best_a]!r} and {id_to_token[eng.best_b]!r} made a "
                                 "special token; cut_special_runs should have made that impossible")
        while <size_t>len(id_to_token) < nm.text.size():
            id_to_token.append(_py(nm.text[len(id_to_token)]))
        merges = [(id_to_token[nm.left[j]], id_to_token[nm.right[j]]) for j in range(nm.left.size())]
        if PROFILE:
            t_3 = perf_counter(); c_3 = thread_time()
            print(f"train_ids: fill {t_1 - t_0:.3f} build {t_2 - t_1:.3f} merges {t_3 - t_2:.3f} s wall; this "
                  f"thread's CPU {c_1 - c_0:.3f} {c_2 - c_1:.3f} {c_3 - c_2:.3f} s; positions {total} "
                  f"pairs {eng.n_pairs()}; pool {eng.n_pool()} slots {eng.n_slots()}; merge sites {eng.n_site} "
                  f"({(c_3 - c_2) * 1e9 / max(1, eng.n_site):.0f} ns of CPU each); tokens made again {eng.n_remade}, "
                  f"gained pairs indexed then {eng.n_indexed}")
    finally:
        del eng
        del nm
        del fill
    return merges
