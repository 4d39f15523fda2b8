# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""The compiled counting core (Cython -> C++), private to the counting room: :mod:`korean_bpe.words`
and :mod:`korean_bpe.counting` read it, and fall back to plain Python (the same results) without it.

* :class:`WordCounter`: the distinct words of texts and their counts, their code points in one
  arena (``word_table.hpp``), counted in slices on threads; :func:`count_texts` its dict;
* :func:`split_counts`: ``{word: count}`` -> ``{symbols: count}`` for the syllable and jamo units;
* :class:`WordSymbols` (``split_ids``, ``WordCounter.split_ids``; ``symbol_split.hpp``): the same
  words as symbol ids in flat arrays, which the merge engine (``korean_bpe/trainer/_merge.pyx``)
  reads through ``_counting.pxd``.
"""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libcpp.vector cimport vector
from cpython.ref cimport Py_INCREF, PyObject
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH

from korean_bpe.hangul cimport decompose
from korean_bpe._tasks cimport share, run_tasks, task_fn

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

from ._gc import paused

cdef int64_t _INT64_MAX = 9223372036854775807
cdef int32_t _ID_MAX = 2147483647

#: WordCounter's modes: how a text is cut into words
MODE_WHITESPACE = 0     # str.split()
MODE_SENTENCEPIECE = 1  # korean_bpe.pre_tokenizers.simple.sentencepiece_pieces


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
        cdef int parts = share(num_threads, nchars, <size_t>n)
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
            run_tasks(count_task, &job, parts, parts)
            if parts > 1:   # the tables added up by partition of the words, on the same threads
                dedup.init(tables.data(), parts)
                run_tasks(dedup_task, &dedup, parts, parts)
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

    def _split_idsrun_tasks(self, str unit, marker, int num_threads):
        """:meth:`split_ids` in ranges of words on threads (kbpe::split_task): the same ids, in
        the same first-seen order, as one thread."""
        cdef _IdSplitter sp = _IdSplitter(unit, marker)   # checks unit and marker; its table is ours
        cdef WordSymbols ws = sp.ws
        cdef SplitJob* job = new SplitJob()
        cdef size_t n = self.tb.entries.size(), e, nsyms = 0, nwords = 0
        cdef int parts = share(num_threads, self.tb.chars.size(), n), i
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
            run_tasks(split_task, job, parts, parts)
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
            run_tasks(split_task, job, parts, parts)
        finally:
            del job
        return ws

    def split_ids(self, str unit, marker, int num_threads=1):
        """:func:`split_ids` of the counted words, read from the arena; on ``num_threads`` threads
        (:meth:`_split_ids_parallel`) the same table."""
        if num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        self._claim(False)
        if share(num_threads, self.tb.chars.size(), self.tb.entries.size()) > 1:
            self._claim(True)
            try:
                return self._split_idsrun_tasks(unit, marker, num_threads)
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


def count_texts(texts, out=None, int mode=0, int num_threads=1):
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


def split_counts(word_counts, str unit, marker):
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


cdef class WordSymbols:
    """Distinct words as unit-symbol ids in flat arrays, one Python object per distinct symbol and
    none per word: word ``k`` is ``syms[starts[k]:starts[k + 1]]`` with ``counts[k]``, and
    ``symbols[i]`` is the text of symbol id ``i`` (ids in first-seen order).  Made by
    :func:`split_ids`; :meth:`to_dict` gives ``split_words``'s ``{symbols: count}``."""

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


