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
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH, Py_UNICODE_ISSPACE
from libc.string cimport memcmp

cdef extern from "Python.h":
    object PyUnicode_Substring(object s, Py_ssize_t start, Py_ssize_t end)

cdef extern from *:
    """
    #include <vector>
    #include <algorithm>
    #include <cstdint>
    #include <cstring>
    #include <stdexcept>

    namespace kbpe {

    static inline uint64_t pair_key(int32_t a, int32_t b) {
        return ((uint64_t)(uint32_t)a << 32) | (uint64_t)(uint32_t)b;
    }

    struct HeapItem {
        int64_t count;
        uint64_t key;
        int32_t idx;   // the pair's index (no hash lookup on pop)
    };
    // max-heap on count, then on the smaller (left, right) pair
    struct HeapLess {
        bool operator()(const HeapItem& x, const HeapItem& y) const {
            if (x.count != y.count) return x.count < y.count;
            return x.key > y.key;
        }
    };

    class Engine {
    public:
        // symbols
        // one node per symbol position: word count, symbol id (-1 once merged away), neighbours,
        // index of the pair starting here (-1 if none); one struct so a merge site is one cache line
        struct Node { int64_t cnt; int32_t sym, prv, nxt, pidx; };
        std::vector<Node> nodes;

        void reserve(size_t n) { nodes.reserve(n); }
        // append a word's symbol; `first`/`last` mark the word's ends
        void add(int32_t s, int64_t cnt, bool first, bool last) {
            int32_t p = (int32_t)nodes.size();
            nodes.push_back(Node{cnt, s, first ? -1 : p - 1, last ? -1 : p + 1, -1});
        }
        // pairs
        std::vector<uint64_t> tkeys;   // hash table: key + 1 (0 = empty)
        std::vector<int32_t> tvals;
        uint64_t tmask = 0;
        int shift = 0;
        // one record per pair (what a merge site touches of a pair is one cache line); its
        // positions live in `pool`, a block [head, head + cap) per pair, len of them used
        struct Pair { int64_t count; uint64_t key; uint32_t head; int32_t len, cap, stamp; };
        std::vector<Pair> pairs;
        // position blocks: one int32 arena; a block given up (outgrown, or its pair merged) goes
        // to the free list of its size class (largest power of two it holds) for reuse
        std::vector<int32_t> pool;
        int32_t free_head[32];
        size_t n_pool_max = 0;

        int32_t alloc_block(int32_t cap) {   // cap: a power of two
            int k = __builtin_ctz((unsigned)cap);
            int32_t b = free_head[k];
            if (b >= 0) { free_head[k] = pool[b]; return b; }
            size_t at = pool.size();
            if (at + (size_t)cap > (size_t)INT32_MAX) throw std::length_error("korean_bpe engine: position pool over 2**31");
            pool.resize(at + cap);
            return (int32_t)at;
        }
        void free_block(uint32_t b, int32_t cap) {
            if (cap <= 0) return;
            int k = 31 - __builtin_clz((unsigned)cap);
            pool[b] = free_head[k];
            free_head[k] = (int32_t)b;
        }
        inline void push_pos(int32_t idx, int32_t p) {
            Pair* P = &pairs[idx];
            if (P->len == P->cap) {
                int32_t ncap = P->cap ? 2 << (31 - __builtin_clz((unsigned)P->cap)) : 1;
                int32_t nb = alloc_block(ncap);
                if (P->len) std::memcpy(&pool[nb], &pool[P->head], (size_t)P->len * sizeof(int32_t));
                free_block(P->head, P->cap);
                P->head = (uint32_t)nb;
                P->cap = ncap;
            }
            pool[P->head + P->len++] = p;
        }
        std::vector<int32_t> gained;
        std::vector<HeapItem> heap;
        int32_t stamp = 0;
        int64_t n_visit = 0, n_site = 0, n_push = 0, n_pop = 0;   // statistics (profiling)
        // max_token_length: a pair competes only when its token spans <= max_len symbols; ids
        // below first_new are symbols (length 1), tlen[id - first_new] the merged tokens' lengths
        int64_t max_len = INT64_MAX;
        int32_t first_new = 0;
        // pairs counted fewer times can never be chosen (training stops below min_frequency):
        // they are counted and located as all pairs, but kept out of the heap
        int64_t min_count = 1;
        std::vector<int64_t> tlen;
        std::vector<int64_t> slen;  // the starting tokens' lengths (symbol_lengths; empty: 1 each)
        void set_limit(int64_t limit, int32_t next_id) { max_len = limit; first_new = next_id; }
        void set_symbol_length(int32_t id, int64_t n) {
            if ((size_t)id >= slen.size()) slen.resize((size_t)id + 1, 1);
            slen[(size_t)id] = n;
        }
        inline int64_t len_of(int32_t id) const {
            if (id < first_new) return (size_t)id < slen.size() ? slen[(size_t)id] : 1;
            size_t k = (size_t)(id - first_new);
            return k < tlen.size() && tlen[k] > 0 ? tlen[k] : 1;
        }
        inline bool fits_key(uint64_t key) const {
            if (max_len == INT64_MAX) return true;
            return len_of((int32_t)(key >> 32)) + len_of((int32_t)(key & 0xffffffffULL)) <= max_len;
        }
        // result of pop_best
        int32_t best_a = -1, best_b = -1;
        int64_t best_count = 0;
        int32_t best_idx = -1;

        void init_table(size_t expected) {
            size_t cap = 1024;
            while (cap < expected * 2) cap <<= 1;
            tkeys.assign(cap, 0);
            tvals.assign(cap, -1);
            tmask = cap - 1;
            shift = 64 - __builtin_ctzll(cap);
            size_t reserve = expected;
            pairs.reserve(reserve);
            for (int k = 0; k < 32; ++k) free_head[k] = -1;
        }

        inline uint64_t slot_of(uint64_t key) const {
            return (key * 0x9E3779B97F4A7C15ULL) >> shift;
        }

        void grow() {
            size_t cap = tkeys.size() * 2;
            std::vector<uint64_t> ok; ok.swap(tkeys);
            std::vector<int32_t> ov; ov.swap(tvals);
            tkeys.assign(cap, 0);
            tvals.assign(cap, -1);
            tmask = cap - 1;
            shift = 64 - __builtin_ctzll(cap);
            for (size_t i = 0; i < ok.size(); ++i) {
                if (ok[i]) {
                    uint64_t s = slot_of(ok[i] - 1);
                    while (tkeys[s]) s = (s + 1) & tmask;
                    tkeys[s] = ok[i];
                    tvals[s] = ov[i];
                }
            }
        }

        inline int32_t find(uint64_t key) const {
            uint64_t s = slot_of(key), k1 = key + 1;
            while (true) {
                uint64_t k = tkeys[s];
                if (k == k1) return tvals[s];
                if (!k) return -1;
                s = (s + 1) & tmask;
            }
        }

        inline int32_t get_or_insert(uint64_t key) {
            uint64_t s = slot_of(key), k1 = key + 1;
            while (true) {
                uint64_t k = tkeys[s];
                if (k == k1) return tvals[s];
                if (!k) break;
                s = (s + 1) & tmask;
            }
            int32_t idx = (int32_t)pairs.size();
            tkeys[s] = k1;
            tvals[s] = idx;
            pairs.push_back(Pair{0, key, 0, 0, 0, 0});
            if (pairs.size() * 2 > tkeys.size()) grow();
            return idx;
        }

        // after the words are added
        void build() {
            size_t n = nodes.size();
            init_table(n / 4 + 16);
            int32_t mx = 0;
            for (size_t p = 0; p < n; ++p) mx = std::max(mx, nodes[p].sym);
            ensure_dense(mx);
            for (size_t p = 0; p + 1 < n; ++p) {
                if (nodes[p].nxt < 0) continue;
                int32_t idx = get_or_insert(pair_key(nodes[p].sym, nodes[p + 1].sym));
                nodes[p].pidx = idx;
                pairs[idx].count += nodes[p].cnt;
                ++pairs[idx].cap;   // for now: how many positions
            }
            size_t total = 0;
            for (Pair& P : pairs) { P.head = (uint32_t)total; total += (size_t)P.cap; }   // exact blocks
            if (total > (size_t)INT32_MAX) throw std::length_error("korean_bpe engine: position pool over 2**31");
            pool.resize(total);
            for (size_t p = 0; p + 1 < n; ++p)
                if (nodes[p].pidx >= 0) { Pair& P = pairs[nodes[p].pidx]; pool[P.head + P.len++] = (int32_t)p; }
            heap.reserve(pairs.size() + 1024);
            for (size_t i = 0; i < pairs.size(); ++i)
                if (pairs[i].count >= min_count && fits_key(pairs[i].key))
                    heap.push_back(HeapItem{pairs[i].count, pairs[i].key, (int32_t)i});
            std::make_heap(heap.begin(), heap.end(), HeapLess());
        }

        // the best pair into best_*; false when none is left
        bool pop_best() {
            while (!heap.empty()) {
                HeapItem top = heap.front();
                ++n_pop;
                std::pop_heap(heap.begin(), heap.end(), HeapLess());
                heap.pop_back();
                int32_t idx = top.idx;
                int64_t cur = pairs[idx].count;
                if (cur != top.count) {  // stale: requeue with the current count
                    if (cur >= min_count) {
                        heap.push_back(HeapItem{cur, top.key, idx});
                        std::push_heap(heap.begin(), heap.end(), HeapLess());
                    }
                    continue;
                }
                if (cur <= 0) break;
                best_a = (int32_t)(top.key >> 32);
                best_b = (int32_t)(top.key & 0xffffffffULL);
                best_count = cur;
                best_idx = idx;
                return true;
            }
            best_count = 0;
            best_idx = -1;
            return false;
        }

        // per-merge caches: pair index of (x, nw) and (nw, y), dense over ids below kDense
        static const int32_t kDense = 1 << 24;
        std::vector<int32_t> lstamp, lidx, rstamp, ridx;

        inline void ensure_dense(int32_t id) {
            if (id >= kDense || id < (int32_t)lstamp.size()) return;
            size_t n = std::max((size_t)id + 1, lstamp.size() * 2);
            if (n > (size_t)kDense) n = kDense;
            lstamp.resize(n, 0); lidx.resize(n, -1); rstamp.resize(n, 0); ridx.resize(n, -1);
        }

        inline int32_t fresh(int32_t x, int32_t y) {
            int32_t idx = get_or_insert(pair_key(x, y));
            if (pairs[idx].stamp != stamp) {
                pairs[idx].stamp = stamp;
                gained.push_back(idx);
            }
            return idx;
        }

        inline int32_t left_pair(int32_t x, int32_t nw) {   // (x, nw)
            if (x < (int32_t)lstamp.size()) {
                if (lstamp[x] != stamp) { lstamp[x] = stamp; lidx[x] = fresh(x, nw); }
                return lidx[x];
            }
            return fresh(x, nw);
        }

        inline int32_t right_pair(int32_t nw, int32_t y) {  // (nw, y)
            if (y < (int32_t)rstamp.size()) {
                if (rstamp[y] != stamp) { rstamp[y] = stamp; ridx[y] = fresh(nw, y); }
                return ridx[y];
            }
            return fresh(nw, y);
        }

        // merge the last popped pair into token id `nw` everywhere
        void apply(int32_t nw) {
            int32_t a = best_a, b = best_b, idx = best_idx;
            if (max_len != INT64_MAX && nw >= first_new) {  // the new token's length, first time seen
                size_t k = (size_t)(nw - first_new);
                if (k >= tlen.size()) tlen.resize(k + 1, 0);
                if (tlen[k] == 0) tlen[k] = len_of(a) + len_of(b);
            }
            ++stamp;
            gained.clear();
            ensure_dense(nw);
            // this pair's positions: its block stays put while the loop pushes to other pairs (the
            // pool may move: read it by index), and goes to the free list at the end
            const uint32_t head = pairs[idx].head;
            const int32_t cap = pairs[idx].cap;
            const size_t npos = (size_t)pairs[idx].len;
            pairs[idx].head = 0; pairs[idx].len = 0; pairs[idx].cap = 0;
            if (a == b) std::sort(pool.begin() + head, pool.begin() + head + npos);
            n_visit += npos;
            for (size_t i = 0; i < npos; ++i) {
                int32_t p = pool[head + i];
                if (i + 12 < npos) __builtin_prefetch(&nodes[pool[head + i + 12]], 1);  // sites are scattered
                Node& P = nodes[p];
                if (P.pidx != idx) continue;  // no longer this pair here (merged or changed)
                ++n_site;
                int32_t q = P.nxt;
                Node& Q = nodes[q];
                int64_t c = P.cnt;
                int32_t pp = P.prv, r = Q.nxt;
                pairs[idx].count -= c;  // this occurrence goes (the count stays exact, even for ids reused)
                if (pp >= 0) {  // A B C: (A, B) loses, (A, BC) gains
                    Node& PP = nodes[pp];
                    pairs[PP.pidx].count -= c;
                    int32_t g = left_pair(PP.sym, nw);
                    pairs[g].count += c;
                    push_pos(g, pp);
                    PP.pidx = g;
                }
                if (r >= 0) {   // B C D: (C, D) loses, (BC, D) gains
                    Node& R = nodes[r];
                    pairs[Q.pidx].count -= c;
                    int32_t g = right_pair(nw, R.sym);
                    pairs[g].count += c;
                    push_pos(g, p);
                    P.pidx = g;
                    R.prv = p;
                } else {
                    P.pidx = -1;
                }
                P.sym = nw;
                P.nxt = r;
                Q.sym = -1;
                Q.pidx = -1;
            }
            free_block(head, cap);
            for (size_t i = 0; i < gained.size(); ++i) {
                int32_t g = gained[i];
                if (pairs[g].count >= min_count && fits_key(pairs[g].key)) {
                    ++n_push;
                    heap.push_back(HeapItem{pairs[g].count, pairs[g].key, g});
                    std::push_heap(heap.begin(), heap.end(), HeapLess());
                }
            }
        }
    };

    }  // namespace kbpe
    """
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
        bint pop_best() nogil
        void apply(int32_t nw) except + nogil


cdef extern from *:
    """
    #include <string>
    #include <unordered_map>
    #include <unordered_set>
    namespace kbpe {
    // Names the merges of a training run without Python objects: each token's text (code points),
    // the merged token's id (an existing one when the text is already a token, as HF does), the
    // stop rules of train_bpe's loop, and the merges as id pairs.
    struct Namer {
        std::vector<std::u32string> text;
        std::unordered_map<std::u32string, int32_t> index;
        std::unordered_set<std::u32string> specials;
        std::u32string prefix;
        int64_t min_count = 1, max_merges = INT64_MAX, vocab_limit = INT64_MAX;
        std::vector<int32_t> left, right;
        bool special_hit = false;

        void add_special(const std::u32string& t) { specials.insert(t); }
        void add_token(const std::u32string& t) {
            index.emplace(t, (int32_t)text.size());
            text.push_back(t);
        }
        // the id of the token merging a and b, or -1 to stop
        int32_t name(int32_t a, int32_t b, int64_t count) {
            if (count < min_count || (int64_t)left.size() >= max_merges || (int64_t)text.size() >= vocab_limit)
                return -1;
            std::u32string t = text[a];
            const std::u32string& rb = text[b];
            if (!prefix.empty() && rb.size() >= prefix.size() && rb.compare(0, prefix.size(), prefix) == 0)
                t.append(rb, prefix.size(), std::u32string::npos);
            else
                t += rb;
            if (specials.count(t)) { special_hit = true; return -1; }
            int32_t id;
            auto it = index.find(t);
            if (it == index.end()) {
                id = (int32_t)text.size();
                index.emplace(t, id);
                text.push_back(std::move(t));
            } else {
                id = it->second;
            }
            left.push_back(a);
            right.push_back(b);
            return id;
        }
    };
    }  // namespace kbpe
    """
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

from .._gc import paused
from time import perf_counter
_PROFILE = bool(os.environ.get("KOREAN_BPE_PROFILE"))
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
        from .fast import merge_engine as py_engine
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


cdef extern from *:
    """
    #include <vector>
    #include <cstdint>
    namespace kbpe {
    // a distinct word: its code points are chars[off, off + len), after U+2581 when prefixed
    struct WordEntry { uint64_t hash; int64_t count; int64_t off; int32_t len, prefixed; };
    }
    """
    cdef cppclass WordEntry "kbpe::WordEntry":
        uint64_t hash
        int64_t count
        int64_t off
        int32_t len, prefixed


cdef inline bint _same_chars(const uint32_t* a, int kind, void* data, Py_ssize_t start, Py_ssize_t n) noexcept:
    cdef Py_ssize_t j
    if kind == 4:
        return memcmp(a, <char*>data + start * 4, n * 4) == 0
    for j in range(n):
        if a[j] != PyUnicode_READ(kind, data, start + j):
            return False
    return True


cdef inline bint _is_space(uint32_t ch) noexcept:
    # str.split()'s white space: ASCII by table, nothing above U+3000 (Hangul), the rest asked
    if ch < 128:
        return ch == 32 or 9 <= ch <= 13 or 28 <= ch <= 31
    if ch > 0x3000:
        return False
    return Py_UNICODE_ISSPACE(<Py_UCS4>ch)


cdef inline bint _is_line_break(uint32_t ch) noexcept:
    # korean_bpe.pre_tokenizers.base.LINE_BREAKS: \n \r \x0b \x0c \x1c \x1d \x1e \x85 U+2028 U+2029
    return (0x0A <= ch <= 0x0D) or (0x1C <= ch <= 0x1E) or ch == 0x85 or ch == 0x2028 or ch == 0x2029


cdef class WordCounter:
    """Counts the words of texts in C++: each distinct word's code points are copied once into one
    arena (the texts can go as soon as they are read), with an int64 count.  ``mode=0``: the
    whitespace-separated words (``str.split()``); ``mode=1``: SentencePiece pieces (see
    :func:`count_words`).  :meth:`to_dict` gives the Python dict; :meth:`split_ids` the words as
    unit-symbol ids straight from the arena (no Python string per word)."""
    cdef vector[uint32_t] chars
    cdef vector[WordEntry] entries
    cdef vector[int32_t] slots
    cdef uint64_t mask
    cdef readonly int mode

    def __cinit__(self, int mode=0):
        if mode != 0 and mode != 1:
            raise ValueError(f"mode must be 0 (whitespace) or 1 (SentencePiece pieces), got {mode}")
        self.mode = mode
        self.slots.assign(1 << 16, -1)
        self.mask = (1 << 16) - 1

    def __len__(self):
        return <Py_ssize_t>self.entries.size()

    def update(self, texts):
        """Add the words of ``texts`` (an iterable of str)."""
        cdef Py_ssize_t n, i, j, start, end, cap
        cdef int kind, mode = self.mode
        cdef void* data
        cdef uint32_t ch
        cdef uint64_t h, slot
        cdef int32_t e, prefixed
        cdef WordEntry ent
        cdef bint line_open
        for t in texts:
            if type(t) is not str:
                if not isinstance(t, str):
                    raise TypeError(f"texts must hold str, got {type(t).__name__} {t!r}")
                t = str(t)
            kind = PyUnicode_KIND(t)
            data = PyUnicode_DATA(t)
            n = PyUnicode_GET_LENGTH(t)
            i = 0
            line_open = False   # mode 1: inside a non-empty line, a part ends at i
            while True:
                # --- find the next word: [start, end), prefixed with U+2581 or not; hash it on the way
                h = 1469598103934665603ULL
                if mode == 0:
                    while i < n and _is_space(<uint32_t>PyUnicode_READ(kind, data, i)):
                        i += 1
                    if i >= n:
                        break
                    start = i
                    while i < n:
                        ch = <uint32_t>PyUnicode_READ(kind, data, i)
                        if _is_space(ch):
                            break
                        h = (h ^ ch) * 1099511628211ULL
                        i += 1
                    end = i
                    prefixed = 0
                else:
                    if i >= n and not line_open:
                        break
                    if not line_open:
                        ch = <uint32_t>PyUnicode_READ(kind, data, i)
                        if _is_line_break(ch):  # a line break: a piece of its own
                            start = i
                            i += 1
                            end = i
                            prefixed = 0
                            h = (h ^ ch) * 1099511628211ULL
                        else:
                            line_open = True
                    if line_open:  # one part of a non-empty line: up to a space, U+2581, a line break or the end
                        start = i
                        h ^= 1
                        while i < n:
                            ch = <uint32_t>PyUnicode_READ(kind, data, i)
                            if ch == 0x20 or ch == 0x2581 or _is_line_break(ch):
                                break
                            h = (h ^ ch) * 1099511628211ULL
                            i += 1
                        end = i
                        prefixed = 1
                        if i < n and (ch == 0x20 or ch == 0x2581):
                            i += 1      # the separator; another part follows (maybe empty)
                        else:
                            line_open = False   # the line ends here (a break, or the end of the text)
                # --- count it
                h ^= h >> 29
                slot = (h * 0x9E3779B97F4A7C15ULL) & self.mask
                while True:
                    e = self.slots[slot]
                    if e < 0:
                        ent.hash = h
                        ent.count = 1
                        ent.off = <int64_t>self.chars.size()
                        ent.len = <int32_t>(end - start)
                        ent.prefixed = prefixed
                        for j in range(start, end):
                            self.chars.push_back(<uint32_t>PyUnicode_READ(kind, data, j))
                        self.slots[slot] = <int32_t>self.entries.size()
                        self.entries.push_back(ent)
                        if self.entries.size() * 2 > self.slots.size():
                            self._grow()
                        break
                    if (self.entries[e].hash == h and self.entries[e].len == end - start
                            and self.entries[e].prefixed == prefixed
                            and _same_chars(&self.chars[self.entries[e].off], kind, data, start, end - start)):
                        self.entries[e].count += 1
                        break
                    slot = (slot + 1) & self.mask

    cdef void _grow(self):
        cdef size_t cap = self.slots.size() * 2
        cdef uint64_t slot
        cdef int32_t e
        self.slots.assign(cap, -1)
        self.mask = cap - 1
        for e in range(<int32_t>self.entries.size()):
            slot = (self.entries[e].hash * 0x9E3779B97F4A7C15ULL) & self.mask
            while self.slots[slot] >= 0:
                slot = (slot + 1) & self.mask
            self.slots[slot] = e

    cdef inline void _word(self, size_t e, vector[Py_UCS4]& out):
        out.clear()
        if self.entries[e].prefixed:
            out.push_back(0x2581)
        cdef int64_t j, off = self.entries[e].off
        for j in range(off, off + self.entries[e].len):
            out.push_back(self.chars[j])

    def to_dict(self, out=None):
        """``{word: count}`` in first-seen order, added into ``out`` (a dict) when given."""
        cdef dict d = {} if out is None else out
        cdef vector[Py_UCS4] w
        cdef size_t e
        cdef object word, prev
        for e in range(self.entries.size()):
            self._word(e, w)
            word = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, w.data(), <Py_ssize_t>w.size())
            prev = d.get(word)
            d[word] = self.entries[e].count if prev is None else prev + self.entries[e].count
        return d

    def holds(self, str chars):
        """Whether some word holds one of ``chars``."""
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
            for e in range(self.entries.size()):
                if self.entries[e].prefixed:
                    return True
        for j in range(<int64_t>self.chars.size()):
            ch = self.chars[j]
            if ch < 0x10000:
                if bmp[ch]:
                    return True
            else:
                for k in range(astral.size()):
                    if astral[k] == ch:
                        return True
        return False

    def split_ids(self, str unit, marker):
        """:func:`split_ids` of the counted words, read from the arena."""
        cdef _IdSplitter sp = _IdSplitter(unit, marker)
        cdef vector[Py_UCS4] w
        cdef size_t e
        for e in range(self.entries.size()):
            self._word(e, w)
            if not sp.add(w, self.entries[e].count):
                return None
        return sp.done()


def count_words(texts, out=None, int mode=0):
    """``{word: count}`` over the words of ``texts``, in first-seen order, added into ``out`` (a
    dict, updated in place and returned) when given.

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
    wc.update(texts)
    return wc.to_dict(out)


cdef int _S_BASE = 0xAC00, _S_COUNT = 11172, _L_BASE = 0x1100, _V_BASE = 0x1161, _T_BASE = 0x11A7
cdef int _V_COUNT = 21, _T_COUNT = 28, _N_COUNT = 588


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
    cdef int kind, sidx, l, v, tt
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
                sidx = <int>ch - _S_BASE
                if jamo and 0 <= sidx < _S_COUNT:
                    l = sidx // _N_COUNT
                    v = (sidx % _N_COUNT) // _T_COUNT
                    tt = sidx % _T_COUNT
                    cps.push_back(_L_BASE + l)
                    cps.push_back(_V_BASE + v)
                    if tt:
                        cps.push_back(_T_BASE + tt)
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

cdef extern from *:
    """
    static inline const void* kbpe_u32_data(const std::u32string& s) { return (const void*)s.data(); }
    """
    const void* _u32_data "kbpe_u32_data"(const u32string& s)


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
        cdef int sidx, variant, mk = self.mk
        cdef uint32_t u
        cdef Py_UCS4 ch
        cdef int32_t sid
        cdef object got
        cps.clear()
        if mk == 1:
            cps.push_back(0x2581)   # "▁" is one symbol of its own
        for i in range(word.size()):
            ch = word[i]
            sidx = <int>ch - _S_BASE
            if self.jamo and 0 <= sidx < _S_COUNT:
                cps.push_back(_L_BASE + sidx // _N_COUNT)
                cps.push_back(_V_BASE + (sidx % _N_COUNT) // _T_COUNT)
                if sidx % _T_COUNT:
                    cps.push_back(_T_BASE + sidx % _T_COUNT)
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
              vocab_size, prefix, specials, max_token_length=None, on_merge=None):
    """Train on ``ws`` with the engine of :func:`merge_engine`, naming the merges in C++.

    ``new_ids[i]``: the token id of symbol ``i`` (``-1``: dropped from the words); ``cuts``:
    ``[(k, positions)]``, word ``k`` (in new ids) is cut before each position (special-token runs);
    ``id_to_token``: the tokens so far (special tokens, alphabet), extended with the merged ones.
    Stops as ``train_bpe``'s loop does: best count below ``min_count``, ``max_merges`` merges
    (``None``: no limit), ``vocab_size`` tokens (``None``: no limit).  ``on_merge(rank, (left,
    right), count)``, when given, is called after each merge is decided.  Returns the merges as
    ``[(left, right)]`` token pairs."""
    cdef Engine* eng = new Engine()
    cdef Namer* nm = new Namer()
    cdef vector[int32_t] m = new_ids
    cdef vector[int32_t] buf
    cdef vector[int32_t] cut_at
    cdef size_t k, nwords = ws.counts.size(), ci = 0, j, a, b
    cdef int64_t p, total = 0
    cdef int32_t v, nw
    cdef Py_ssize_t rank = 0, first_new = len(id_to_token)
    cdef list cut_list = sorted(cuts)
    cdef list merges
    cdef bint found
    try:
        for p in range(<int64_t>ws.syms.size()):
            if m[ws.syms[p]] >= 0:
                total += 1
        eng.reserve(<size_t>total)
        eng.set_limit(_INT64_MAX if max_token_length is None else min(max_token_length, _INT64_MAX - 1),
                      <int32_t>first_new)
        eng.min_count = min_count if min_count > 1 else 1
        for k in range(nwords):
            buf.clear()
            for p in range(ws.starts[k], ws.starts[k + 1]):
                v = m[ws.syms[p]]
                if v >= 0:
                    buf.push_back(v)
            cut_at.clear()
            while ci < len(cut_list) and cut_list[ci][0] == k:
                cut_at = cut_list[ci][1]
                ci += 1
            cut_at.push_back(<int32_t>buf.size())
            a = 0
            for j in range(cut_at.size()):   # pieces [a, b): those of one symbol hold no pair
                b = <size_t>cut_at[j]
                if b - a > 1:
                    for p in range(<int64_t>a, <int64_t>b):
                        eng.add(buf[p], ws.counts[k], p == <int64_t>a, p + 1 == <int64_t>b)
                a = b
        for tok in id_to_token:
            nm.add_token(_u32(tok))
        for tok in specials:
            nm.add_special(_u32(tok))
        if prefix:
            nm.prefix = _u32(prefix)
        nm.min_count = min_count
        nm.max_merges = _INT64_MAX if max_merges is None else max_merges
        nm.vocab_limit = _INT64_MAX if vocab_size is None else vocab_size
        with nogil:
            eng.build()
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
    finally:
        del eng
        del nm
    return merges
