# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Compiled BPE merge engine (Cython -> C++); same merges as ``fast.merge_engine``.

Words live in one flat array of symbols linked by ``prev``/``next`` indices (a merged-away symbol is
marked ``-1``).  Each pair gets a dense index from an open-addressing hash table; per pair we keep
its count and the positions (left symbol) where it was created, appended as it appears and checked
when used.  A merge visits only those positions and updates the pairs around each site by
difference.  The best pair comes from a lazy max-heap ordered by (count, then smaller pair).
"""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libcpp.vector cimport vector
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF, PyObject
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH

from korean_bpe.hangul cimport decompose

cdef extern from "Python.h":
    object PyUnicode_Substring(object s, Py_ssize_t start, Py_ssize_t end)

cdef extern from "engine_fill.hpp":
    cdef cppclass Engine "kbpe::Engine":
        void reserve(size_t n)
        void set_limit(int64_t limit, int32_t next_id)
        void set_symbol_length(int32_t id, int64_t n)
        void add(int32_t s, int64_t cnt, bint first, bint last)
        int32_t best_a, best_b
        int64_t best_count
        int64_t n_visit, n_site, n_push, n_pop
        int64_t min_count
        void build() except + nogil
        void resize_nodes(size_t n) except +
        void par_begin(int n) except +
        void par_layout() except + nogil
        void par_finish() except + nogil
        size_t n_pairs()
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


import os

from ._gc import paused
from time import perf_counter, thread_time
_PROFILE = bool(os.environ.get("KOREAN_BPE_PROFILE"))
_STEPS = []   # profiling: each parallel step's CPU seconds on this thread and on the busiest one
#: the least work worth a thread of its own (code points counted or cut, symbols filled): a
#: thread costs more than a smaller share (tests set 1 to run tiny inputs on threads)
PARALLEL_MIN = 32768


cdef int _parts(int threads, size_t work, size_t items):
    """How many threads share ``work`` (code points, symbols) over ``items`` (texts, words)."""
    cdef size_t least = max(<size_t>1, <size_t>PARALLEL_MIN)
    return <int>max(<size_t>1, min(<size_t>threads, work // least, items, <size_t>1024))
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
        from .trainer.fast import merge_engine as py_engine  # its pure-Python twin, a room up (lazy)
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
        if _PROFILE:
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


cdef extern from "tasks.hpp":
    ctypedef void (*task_fn "kbpe::task_fn")(void* job, int i) noexcept nogil
    int run_task "kbpe::run_task"(task_fn fn, void* job, int i) noexcept nogil


cdef extern from "word_table.hpp":
    cdef cppclass WordEntry "kbpe::WordEntry":
        uint64_t hash
        int64_t count
        int64_t off
        int32_t len, prefixed
    cdef cppclass WordTable "kbpe::WordTable":
        vector[uint32_t] chars
        vector[WordEntry] entries
    cdef cppclass CountJob "kbpe::CountJob":
        PyObject** texts
        Py_ssize_t n
        int parts, mode
        WordTable** tables
    cdef cppclass DedupJob "kbpe::DedupJob":
        void init(WordTable** t, int n) except +
    void count_task "kbpe::count_task"(void* job, int i) noexcept nogil
    void dedup_task "kbpe::dedup_task"(void* job, int i) noexcept nogil
    void dedup_gather "kbpe::dedup_gather"(DedupJob* job) except + nogil


cdef extern from "symbol_split.hpp":
    cdef cppclass SplitPart "kbpe::SplitPart":
        vector[uint32_t] codes, firsts
        vector[int64_t] lens, counts
        int64_t weight, total, longest
        bint overflow
        size_t sym_off, word_off
    cdef cppclass SplitJob "kbpe::SplitJob":
        const WordTable* tb
        bint jamo
        int mk, split_pass "pass"
        vector[size_t] elo
        vector[SplitPart] out
        vector[int32_t] bmp
        int32_t* syms
        int64_t* starts
        int64_t* counts
        void set_astral "astral.emplace"(uint32_t code, int32_t sid) except +
    void split_task "kbpe::split_task"(void* job, int i) noexcept nogil


cdef class _Tasks:
    """Runs task ``i`` of a C++ job without the GIL (:meth:`run`, called from one thread each by
    :func:`korean_bpe._threads.run_parallel`); remembers the first failure (and, profiling, each
    task's thread CPU seconds)."""
    cdef task_fn fn
    cdef void* job
    cdef int failed
    cdef public list cpu

    def run(self, int i):
        cdef int err
        t = thread_time() if _PROFILE else 0.0
        with nogil:
            err = run_task(self.fn, self.job, i)
        if _PROFILE:
            self.cpu.append((i, thread_time() - t))
        if err and not self.failed:
            self.failed = err


cdef _parallel(task_fn fn, void* job, int n, int threads):
    """Tasks ``0 .. n - 1`` of ``job`` on up to ``threads`` threads (this one included)."""
    from ._threads import run_parallel

    cdef _Tasks tasks = _Tasks.__new__(_Tasks)
    tasks.fn = fn
    tasks.job = job
    tasks.cpu = []
    run_parallel(tasks.run, n, threads)
    if _PROFILE:   # (this thread's CPU seconds in the step's tasks, the busiest thread's)
        threads = max(1, min(threads, n))
        per = [sum(c for i, c in tasks.cpu if i % threads == k) for k in range(threads)]
        _STEPS.append((per[0], max(per)))
    if tasks.failed == 1:
        raise MemoryError("korean_bpe: out of memory in a compiled training step")
    if tasks.failed:
        raise RuntimeError("korean_bpe: a compiled training step failed")


cdef class WordCounter:
    """Counts the words of texts in C++: each distinct word's code points are copied once into one
    arena (the texts can go as soon as they are read), with an int64 count.  ``mode=0``: the
    whitespace-separated words (``str.split()``); ``mode=1``: SentencePiece pieces (see
    :func:`count_words`).  :meth:`to_dict` gives the Python dict; :meth:`split_ids` the words as
    unit-symbol ids straight from the arena (no Python string per word)."""
    cdef WordTable tb
    cdef readonly int mode
    cdef bint busy   # counting or splitting without the GIL: another Python thread must keep off

    cdef _claim(self, bint keep):
        if self.busy:
            raise RuntimeError("this WordCounter is counting or splitting in another thread; use one counter per "
                               "thread (count_words makes its own), or wait for that call to end")
        self.busy = keep

    def __cinit__(self, int mode=0):
        if mode != 0 and mode != 1:
            raise ValueError(f"mode must be 0 (whitespace) or 1 (SentencePiece pieces), got {mode}")
        self.mode = mode

    def __len__(self):
        return <Py_ssize_t>self.tb.entries.size()

    def update(self, texts, int num_threads=1):
        """Add the words of ``texts`` (an iterable of str), counted in ``num_threads`` slices at
        once (each its own table, added up in slice order: the same counts, in the same
        first-seen order, whatever ``num_threads``)."""
        if num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        self._claim(False)
        cdef list hold = list(texts)    # our references: the texts live while read without the GIL
        cdef Py_ssize_t n = len(hold), k
        cdef vector[PyObject*] ptrs
        cdef size_t nchars = 0
        ptrs.reserve(<size_t>n)
        for k in range(n):
            t = hold[k]
            if type(t) is not str:
                if not isinstance(t, str):
                    raise TypeError(f"texts must hold str, got {type(t).__name__} {t!r}")
                t = hold[k] = str(t)
            ptrs.push_back(<PyObject*>t)
            nchars += <size_t>PyUnicode_GET_LENGTH(t)
        cdef int parts = _parts(num_threads, nchars, <size_t>n)
        cdef vector[WordTable*] tables
        cdef CountJob job
        cdef DedupJob dedup
        cdef int i
        tables.push_back(&self.tb)     # slice 0 counts into this counter's own table
        self._claim(True)
        try:
            for i in range(1, parts):
                tables.push_back(new WordTable())
            job.texts = ptrs.data()
            job.n = n
            job.parts = parts
            job.mode = self.mode
            job.tables = tables.data()
            _parallel(count_task, &job, parts, parts)
            if parts > 1:   # the tables added up by partition of the words, on the same threads
                dedup.init(tables.data(), parts)
                _parallel(dedup_task, &dedup, parts, parts)
                with nogil:
                    dedup_gather(&dedup)
        finally:
            self.busy = False
            for i in range(1, <int>tables.size()):
                del tables[i]

    cdef inline void _word(self, size_t e, vector[Py_UCS4]& out):
        out.clear()
        if self.tb.entries[e].prefixed:
            out.push_back(0x2581)
        cdef int64_t j, off = self.tb.entries[e].off
        for j in range(off, off + self.tb.entries[e].len):
            out.push_back(self.tb.chars[j])

    def to_dict(self, out=None):
        """``{word: count}`` in first-seen order, added into ``out`` (a dict) when given."""
        self._claim(False)
        cdef dict d = {} if out is None else out
        cdef vector[Py_UCS4] w
        cdef size_t e
        cdef object word, prev
        for e in range(self.tb.entries.size()):
            self._word(e, w)
            word = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, w.data(), <Py_ssize_t>w.size())
            prev = d.get(word)
            d[word] = self.tb.entries[e].count if prev is None else prev + self.tb.entries[e].count
        return d

    def holds(self, str chars):
        """Whether some word holds one of ``chars``."""
        self._claim(False)
        cdef vector[char] bmp = vector[char](0x10000, 0)   # wanted code points below U+10000
        cdef vector[uint32_t] astral                         # and above
        cdef size_t e, k
        cdef int64_t j
        cdef uint32_t ch
        for c in chars:
            ch = ord(c)
            if ch < 0x10000:
                bmp[ch] = 1
            else:
                astral.push_back(ch)
        if bmp[0x2581]:
            for e in range(self.tb.entries.size()):
                if self.tb.entries[e].prefixed:
                    return True
        for j in range(<int64_t>self.tb.chars.size()):
            ch = self.tb.chars[j]
            if ch < 0x10000:
                if bmp[ch]:
                    return True
            else:
                for k in range(astral.size()):
                    if astral[k] == ch:
                        return True
        return False

    def _split_ids_parallel(self, str unit, marker, int num_threads):
        """:meth:`split_ids` in ranges of words on threads (kbpe::split_task): the same ids, in
        the same first-seen order, as one thread."""
        cdef _IdSplitter sp = _IdSplitter(unit, marker)   # checks unit and marker; its table is ours
        cdef WordSymbols ws = sp.ws
        cdef SplitJob* job = new SplitJob()
        cdef size_t n = self.tb.entries.size(), e, nsyms = 0, nwords = 0
        cdef int parts = _parts(num_threads, self.tb.chars.size(), n), i
        cdef uint32_t code, u, variant
        cdef int32_t sid
        cdef int64_t longest = 0
        try:
            job.tb = &self.tb
            job.jamo = sp.jamo
            job.mk = sp.mk
            job.out.resize(parts)
            job.elo.push_back(0)
            e = 0
            for i in range(1, parts):   # ranges of about as many characters
                while e < n and <size_t>self.tb.entries[e].off < self.tb.chars.size() * i // parts:
                    e += 1
                job.elo.push_back(e)
            job.elo.push_back(n)
            job.split_pass = 1
            _parallel(split_task, job, parts, parts)
            weight = 0
            for i in range(parts):
                if job.out[i].overflow:
                    return None
                weight += job.out[i].weight
                job.out[i].sym_off = nsyms
                job.out[i].word_off = nwords
                nsyms += job.out[i].codes.size()
                nwords += job.out[i].lens.size()
                ws.total += job.out[i].total
                longest = max(longest, job.out[i].longest)
            if weight > _INT64_MAX or nsyms >= <size_t>_ID_MAX:
                return None
            ws.longest = longest
            job.bmp.assign(3 * 0x10000, -1)
            for i in range(parts):   # ids in first-seen order, range after range
                for code in job.out[i].firsts:
                    u = code & 0x1FFFFF
                    variant = code >> 21
                    if u < 0x10000:
                        if job.bmp[variant * 0x10000 + u] >= 0:
                            continue
                        job.bmp[variant * 0x10000 + u] = <int32_t>len(ws.symbols)
                    elif (<long>u * 4 + variant) in sp.astral:
                        continue
                    else:
                        sp.astral[<long>u * 4 + variant] = len(ws.symbols)
                        job.set_astral(code, <int32_t>len(ws.symbols))
                    ws.symbols.append(_make_symbol(u, variant))
            ws.syms.resize(nsyms)
            ws.starts.resize(nwords + 1)
            ws.counts.resize(nwords)
            job.syms = ws.syms.data()
            job.starts = ws.starts.data()
            job.counts = ws.counts.data()
            job.split_pass = 2
            _parallel(split_task, job, parts, parts)
        finally:
            del job
        return ws

    def split_ids(self, str unit, marker, int num_threads=1):
        """:func:`split_ids` of the counted words, read from the arena; on ``num_threads`` threads
        (:meth:`_split_ids_parallel`) the same table."""
        if num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        self._claim(False)
        if _parts(num_threads, self.tb.chars.size(), self.tb.entries.size()) > 1:
            self._claim(True)
            try:
                return self._split_ids_parallel(unit, marker, num_threads)
            finally:
                self.busy = False
        cdef _IdSplitter sp = _IdSplitter(unit, marker)
        cdef vector[Py_UCS4] w
        cdef size_t e, n = self.tb.entries.size()
        # room for every symbol at once (a jamo syllable gives at most 3; the marker 1 a word)
        sp.ws.syms.reserve(self.tb.chars.size() * (3 if sp.jamo else 1) + (n if sp.mk == 1 else 0))
        sp.ws.starts.reserve(n + 1)
        sp.ws.counts.reserve(n)
        for e in range(n):
            self._word(e, w)
            if not sp.add(w, self.tb.entries[e].count):
                return None
        return sp.done()


def count_words(texts, out=None, int mode=0, int num_threads=1):
    """``{word: count}`` over the words of ``texts``, in first-seen order, added into ``out`` (a
    dict, updated in place and returned) when given; counted on ``num_threads`` threads
    (:meth:`WordCounter.update`: the same dict whatever the number).

    ``mode=0``: the whitespace-separated words (``str.split()``), the same dict as
    ``Counter(w for t in texts for w in t.split())``.  ``mode=1``: SentencePiece pieces
    (``korean_bpe.pre_tokenizers.simple.sentencepiece_pieces`` with its defaults): in each line
    (text between line breaks, U+2581 read as a space) that is not empty, ``"\u2581" + part`` for
    each ``part`` of ``line.split(" ")``; each line break a piece of its own.

    Each count is an int64 while counting (at most the number of words of the texts) and a
    Python int in ``out``, so sums over many batches stay exact however large."""
    if mode != 0 and mode != 1:
        raise ValueError(f"mode must be 0 (whitespace) or 1 (SentencePiece pieces), got {mode}")
    if out is not None and type(out) is not dict:
        raise TypeError(f"out must be a dict, got {type(out).__name__}")
    cdef WordCounter wc = WordCounter(mode)
    wc.update(texts, num_threads)
    return wc.to_dict(out)


cdef object _make_symbol(Py_UCS4 ch, int variant):
    s = chr(ch)
    if variant == 1:
        return s + "</w>"
    if variant == 2:
        return "##" + s
    return s


def split_words(word_counts, str unit, marker):
    """``{symbols: count}`` from ``{word: count}`` for the syllable or jamo unit with a marker
    (``None``, ``"▁"``, ``"</w>"``, ``"##"``): ``apply_marker(get_unit(unit).split(w), marker)``;
    words giving the same symbols add up."""
    cdef bint jamo
    if unit == "jamo":
        jamo = True
    elif unit == "syllable":
        jamo = False
    else:
        raise ValueError(f"unit={unit!r}: the compiled split knows 'syllable' and 'jamo'")
    cdef int mk
    if marker is None:
        mk = 0
    elif marker == "\u2581":
        mk = 1
    elif marker == "</w>":
        mk = 2
    elif marker == "##":
        mk = 3
    else:
        raise ValueError(f"marker={marker!r} is not supported; use None, '\u2581', '</w>' or '##'")
    # one shared str per symbol (hashes computed once): BMP code points in a table, others in a dict
    cdef vector[PyObject*] table
    table.assign(3 * 0x10000, NULL)
    cdef list owned = []
    cdef dict astral = {}
    cdef int variant
    cdef dict out = {}
    cdef vector[Py_UCS4] cps
    cdef Py_ssize_t n, i, m, k, off
    cdef int kind, nj
    cdef uint32_t parts[3]
    cdef uint32_t u
    cdef Py_ssize_t slot
    cdef void* data
    cdef Py_UCS4 ch
    cdef object sym, space = "\u2581", prev
    cdef tuple key
    items = word_counts.items() if hasattr(word_counts, "items") else word_counts
    with paused():
        for w, c in items:
            if type(w) is not str:
                raise TypeError(f"word_counts keys must be str words, got {type(w).__name__} {w!r}")
            kind = PyUnicode_KIND(w)
            data = PyUnicode_DATA(w)
            n = PyUnicode_GET_LENGTH(w)
            cps.clear()
            for i in range(n):
                ch = PyUnicode_READ(kind, data, i)
                nj = decompose(ch, parts) if jamo else 0
                if nj:
                    cps.insert(cps.end(), parts, parts + nj)
                else:
                    cps.push_back(ch)
            m = <Py_ssize_t>cps.size()
            off = 1 if (mk == 1 and m > 0) else 0
            key = PyTuple_New(m + off)
            if off:
                Py_INCREF(space)
                PyTuple_SET_ITEM(key, 0, space)
            for k in range(m):
                variant = 1 if (mk == 2 and k == m - 1) else (2 if (mk == 3 and k > 0) else 0)
                u = <uint32_t>cps[k]
                if u < 0x10000:
                    slot = variant * 0x10000 + <Py_ssize_t>u
                    if table[slot] == NULL:
                        sym = _make_symbol(cps[k], variant)
                        owned.append(sym)
                        table[slot] = <PyObject*>sym
                    else:
                        sym = <object>table[slot]
                else:
                    sym = astral.get(<long>u * 4 + variant)
                    if sym is None:
                        sym = astral[<long>u * 4 + variant] = _make_symbol(cps[k], variant)
                Py_INCREF(sym)
                PyTuple_SET_ITEM(key, k + off, sym)
            prev = out.get(key)
            out[key] = c if prev is None else prev + c
    return out


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

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

cdef extern from "merge_namer.hpp":
    const void* _u32_data "kbpe::u32_data"(const u32string& s)


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


cdef class WordSymbols:
    """Distinct words as unit-symbol ids in flat arrays, one Python object per distinct symbol and
    none per word: word ``k`` is ``syms[starts[k]:starts[k + 1]]`` with ``counts[k]``, and
    ``symbols[i]`` is the text of symbol id ``i`` (ids in first-seen order).  Made by
    :func:`split_ids`; :meth:`to_dict` gives ``split_words``'s ``{symbols: count}``."""
    cdef vector[int32_t] syms
    cdef vector[int64_t] starts
    cdef vector[int64_t] counts
    cdef readonly list symbols
    cdef readonly object marker
    cdef readonly int64_t total     # the sum of the counts
    cdef readonly int64_t longest   # the most symbols in one word

    def __len__(self):
        return <Py_ssize_t>self.counts.size()

    def frequencies(self):
        """How often each symbol id occurs, each word weighted by its count (fits int64: checked
        by :func:`split_ids`)."""
        cdef vector[int64_t] f = vector[int64_t](len(self.symbols), 0)
        cdef size_t k
        cdef int64_t p
        for k in range(self.counts.size()):
            for p in range(self.starts[k], self.starts[k + 1]):
                f[self.syms[p]] += self.counts[k]
        return [f[k] for k in range(f.size())]

    def to_dict(self):
        """``{symbols: count}``, words giving the same symbols added up, in first-seen order."""
        cdef dict out = {}
        cdef size_t k
        cdef int64_t p, n
        cdef tuple key
        cdef object sym, prev
        for k in range(self.counts.size()):
            n = self.starts[k + 1] - self.starts[k]
            key = PyTuple_New(n)
            for p in range(n):
                sym = self.symbols[self.syms[self.starts[k] + p]]
                Py_INCREF(sym)
                PyTuple_SET_ITEM(key, p, sym)
            prev = out.get(key)
            out[key] = self.counts[k] if prev is None else prev + self.counts[k]
        return out

    def words_holding(self, list new_ids, flags):
        """``[(k, ids)]``: the words holding a symbol whose new id (``new_ids[symbol]``, ``-1``:
        dropped) is flagged (``flags[new id]`` true), as their lists of new ids."""
        cdef vector[int32_t] m = new_ids
        cdef vector[char] fl = [1 if f else 0 for f in flags]
        cdef list out = []
        cdef size_t k
        cdef int64_t p
        cdef int32_t v
        for k in range(self.counts.size()):
            for p in range(self.starts[k], self.starts[k + 1]):
                v = m[self.syms[p]]
                if v >= 0 and fl[v]:
                    out.append((k, [m[self.syms[q]] for q in range(self.starts[k], self.starts[k + 1])
                                    if m[self.syms[q]] >= 0]))
                    break
        return out


cdef class _IdSplitter:
    """Words (code points) -> a :class:`WordSymbols` for the syllable or jamo unit with a marker:
    Hangul syllables decomposed for jamo, the marker applied, one id per distinct symbol."""
    cdef WordSymbols ws
    cdef vector[int32_t] table   # (variant, BMP code point) -> symbol id
    cdef dict astral             # (astral code point, variant) -> symbol id
    cdef vector[Py_UCS4] cps
    cdef bint jamo
    cdef int mk
    cdef int64_t weight

    def __cinit__(self, str unit, marker):
        if unit == "jamo":
            self.jamo = True
        elif unit == "syllable":
            self.jamo = False
        else:
            raise ValueError(f"unit={unit!r}: the compiled split knows 'syllable' and 'jamo'")
        if marker is None:
            self.mk = 0
        elif marker == "\u2581":
            self.mk = 1
        elif marker == "</w>":
            self.mk = 2
        elif marker == "##":
            self.mk = 3
        else:
            raise ValueError(f"marker={marker!r} is not supported; use None, '\u2581', '</w>' or '##'")
        self.ws = WordSymbols.__new__(WordSymbols)
        self.ws.symbols = []
        self.ws.marker = marker
        self.ws.starts.push_back(0)
        self.table.assign(3 * 0x10000, -1)
        self.astral = {}

    cdef bint add(self, const vector[Py_UCS4]& word, int64_t c) except -1:
        """Add ``word`` (its characters) with count ``c`` >= 1; False when a sum would leave int64."""
        cdef WordSymbols ws = self.ws
        cdef vector[Py_UCS4]* cps = &self.cps
        cdef size_t i
        cdef Py_ssize_t m, k
        cdef int nj, variant, mk = self.mk
        cdef uint32_t parts[3]
        cdef uint32_t u
        cdef Py_UCS4 ch
        cdef int32_t sid
        cdef object got
        cps.clear()
        if mk == 1:
            cps.push_back(0x2581)   # "▁" is one symbol of its own
        for i in range(word.size()):
            ch = word[i]
            nj = decompose(ch, parts) if self.jamo else 0
            if nj:
                cps.insert(cps.end(), parts, parts + nj)
            else:
                cps.push_back(ch)
        m = <Py_ssize_t>cps.size()
        if m == (1 if mk == 1 else 0):
            return True   # a word giving no symbol is left out
        # sums of count * symbols (the symbol counts, the pair counts) must fit in int64
        if c > (_INT64_MAX - self.weight) // m or ws.syms.size() + m >= <size_t>_ID_MAX:
            return False
        self.weight += c * m
        ws.total += c
        for k in range(m):
            variant = 1 if (mk == 2 and k == m - 1) else (2 if (mk == 3 and k > 0) else 0)
            u = <uint32_t>cps[0][k]
            if u < 0x10000:
                sid = self.table[variant * 0x10000 + u]
                if sid < 0:
                    sid = self.table[variant * 0x10000 + u] = <int32_t>len(ws.symbols)
                    ws.symbols.append(_make_symbol(cps[0][k], variant))
            else:
                got = self.astral.get(<long>u * 4 + variant)
                if got is None:
                    sid = <int32_t>len(ws.symbols)
                    self.astral[<long>u * 4 + variant] = sid
                    ws.symbols.append(_make_symbol(cps[0][k], variant))
                else:
                    sid = got
            ws.syms.push_back(sid)
        ws.starts.push_back(<int64_t>ws.syms.size())
        ws.counts.push_back(c)
        if m > ws.longest:
            ws.longest = m
        return True

    cdef WordSymbols done(self):
        return self.ws


def split_ids(word_counts, str unit, marker):
    """``split_words`` straight to ids: a :class:`WordSymbols` for the syllable or jamo unit with
    a marker (``None``, ``"▁"``, ``"</w>"``, ``"##"``), one entry per word (words giving the same
    symbols are not added up: the merges are the same either way); words giving no symbol are
    left out.  ``None`` when a count is not an int >= 1 or the sums would not fit in int64 (then
    the dict path, exact in Python ints, is the one to take)."""
    cdef _IdSplitter sp = _IdSplitter(unit, marker)
    cdef vector[Py_UCS4] word
    cdef Py_ssize_t i
    cdef int kind
    cdef void* data
    items = word_counts.items() if hasattr(word_counts, "items") else word_counts
    for w, count in items:
        if type(w) is not str:
            raise TypeError(f"word_counts keys must be str words, got {type(w).__name__} {w!r}")
        if type(count) is not int or count <= 0 or count >= _INT64_MAX:
            return None
        kind = PyUnicode_KIND(w)
        data = PyUnicode_DATA(w)
        word.clear()
        for i in range(PyUnicode_GET_LENGTH(w)):
            word.push_back(PyUnicode_READ(kind, data, i))
        if not sp.add(word, count):
            return None
    return sp.done()


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
        parts = _parts(num_threads, nsyms, nwords)
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
            _parallel(fill_task, fill, parts, num_threads)
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
        _parallel(fill_task, fill, parts, num_threads)   # pass 2: the nodes
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
            _parallel(build_task, &build, parts, parts)
            with nogil:
                eng.par_layout()
            build.step = 2
            _parallel(build_task, &build, parts, parts)
            with nogil:
                eng.par_finish()
        t_2 = perf_counter(); c_2 = thread_time()
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
        if _PROFILE:
            t_3 = perf_counter(); c_3 = thread_time()
            print(f"train_ids: fill {t_1 - t_0:.3f} build {t_2 - t_1:.3f} merges {t_3 - t_2:.3f} s wall; this "
                  f"thread's CPU {c_1 - c_0:.3f} {c_2 - c_1:.3f} {c_3 - c_2:.3f} s; positions {total} pairs {eng.n_pairs()}")
    finally:
        del eng
        del nm
        del fill
    return merges
