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

cdef extern from "Python.h":
    object PyUnicode_Substring(object s, Py_ssize_t start, Py_ssize_t end)

cdef extern from *:
    """
    #include <vector>
    #include <algorithm>
    #include <cstdint>
    #include <cstring>
    #include <stdexcept>
    #include <utility>

    namespace kbpe {

    // a vector element left uninitialised by resize(): a big array is then first written (its
    // pages touched) by the threads that fill it, not zeroed by one thread beforehand
    template <typename T> struct DefaultInit : std::allocator<T> {
        template <typename U> struct rebind { using other = DefaultInit<U>; };
        DefaultInit() = default;
        template <typename U> DefaultInit(const DefaultInit<U>&) noexcept {}
        template <typename U> void construct(U* p) noexcept { ::new ((void*)p) U; }
        template <typename U, typename... A> void construct(U* p, A&&... a) { ::new ((void*)p) U(std::forward<A>(a)...); }
    };

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
        std::vector<Node, DefaultInit<Node>> nodes;
        void resize_nodes(size_t n) { nodes.resize(n); }

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
        std::vector<Pair, DefaultInit<Pair>> pairs;
        // position blocks: one int32 arena; a block given up (outgrown, or its pair merged) goes
        // to the free list of its size class (largest power of two it holds) for reuse
        std::vector<int32_t, DefaultInit<int32_t>> pool;
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

        size_t n_pairs() const { return pairs.size(); }
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

        // --- build() on several threads: the same pairs, counts and positions (each pair's in
        // node order); pair indices in partition order instead of first-seen order, which no
        // choice depends on (the heap orders pairs by count, then by (left, right)).
        //   (the fill, FillJob: the pair sites of node range t, by partition: the top bits of the
        //   pair's hash, which also pick its home slot in the table, so partition j owns segment j)
        //   count(j): partition j's pairs in a table of its own, counted, sites numbered;
        //   layout(): serial, each partition's first pair index and position block;
        //   place(j): partition j's pairs into `pairs`, the table (segment j; a key whose probe
        //            leaves the segment is deferred) and the position pool;
        //   finish(): serial, the deferred keys, the heap.
        struct Part {
            std::vector<uint64_t> keys;   // key + 1 (0: empty)
            std::vector<int32_t> vals;
            uint64_t mask = 0;
            int shift = 0;
            std::vector<uint64_t> pkey;
            std::vector<int64_t> pcount;
            std::vector<int32_t> pnpos;
            size_t base = 0, pool_base = 0, npos = 0;
            std::vector<std::pair<uint64_t, int32_t>> deferred;
            void init(size_t expected) {
                size_t cap = 256;
                while (cap < expected * 2) cap <<= 1;
                keys.assign(cap, 0); vals.assign(cap, -1);
                mask = cap - 1; shift = 64 - __builtin_ctzll(cap);
            }
            inline uint64_t slot(uint64_t key) const { return (key * 0xC2B2AE3D27D4EB4FULL) >> shift; }
            void grow() {
                std::vector<uint64_t> ok; ok.swap(keys);
                std::vector<int32_t> ov; ov.swap(vals);
                size_t cap = ok.size() * 2;
                keys.assign(cap, 0); vals.assign(cap, -1);
                mask = cap - 1; shift = 64 - __builtin_ctzll(cap);
                for (size_t i = 0; i < ok.size(); ++i) if (ok[i]) {
                    uint64_t s = slot(ok[i] - 1);
                    while (keys[s]) s = (s + 1) & mask;
                    keys[s] = ok[i]; vals[s] = ov[i];
                }
            }
            inline int32_t get_or_insert(uint64_t key) {
                uint64_t s = slot(key), k1 = key + 1;
                while (keys[s]) { if (keys[s] == k1) return vals[s]; s = (s + 1) & mask; }
                int32_t li = (int32_t)pkey.size();
                keys[s] = k1; vals[s] = li;
                pkey.push_back(key); pcount.push_back(0); pnpos.push_back(0);
                if (pkey.size() * 2 > keys.size()) grow();
                return li;
            }
        };
        int np = 1;                                  // partitions (= node ranges = threads)
        std::vector<std::vector<int32_t>> buckets;   // [t * np + j]: sites of range t in partition j
        std::vector<Part> parts_;
        std::vector<int32_t> range_max;              // the largest symbol id of each node range
        static inline int part_of(uint64_t key, int np) {
            return (int)((((key * 0x9E3779B97F4A7C15ULL) >> 54) * (uint64_t)np) >> 10);
        }
        inline int seg_of(uint64_t slot) const {    // the partition whose keys have their home at `slot`
            return (int)((((slot << shift) >> 54) * (uint64_t)np) >> 10);
        }
        void par_begin(int n) {
            np = n < 1 ? 1 : (n > 1024 ? 1024 : n);
            buckets.assign((size_t)np * np, std::vector<int32_t>());
            parts_.assign(np, Part());
            range_max.assign(np, 0);
        }
        void par_count(int j) {
            Part& P = parts_[j];
            size_t sites = 0;
            for (int t = 0; t < np; ++t) sites += buckets[(size_t)t * np + j].size();
            P.init(sites / 4 + 16);
            for (int t = 0; t < np; ++t)
                for (int32_t p : buckets[(size_t)t * np + j]) {
                    int32_t li = P.get_or_insert(pair_key(nodes[p].sym, nodes[p + 1].sym));
                    P.pcount[li] += nodes[p].cnt;
                    ++P.pnpos[li];
                    nodes[p].pidx = li;
                }
            P.npos = sites;
        }
        void par_layout() {
            size_t npairs = 0, total = 0;
            for (Part& P : parts_) { P.base = npairs; P.pool_base = total; npairs += P.pkey.size(); total += P.npos; }
            if (npairs >= (size_t)INT32_MAX || total > (size_t)INT32_MAX)
                throw std::length_error("korean_bpe engine: over 2**31 pairs or positions");
            init_table(nodes.size() / 4 + 16);
            while (npairs * 2 > tkeys.size()) {   // as many slots as build() ends with
                size_t cap = tkeys.size() * 2;
                tkeys.assign(cap, 0); tvals.assign(cap, -1);
                tmask = cap - 1; shift = 64 - __builtin_ctzll(cap);
            }
            pairs.resize(npairs);
            pool.resize(total);
            int32_t mx = 0;
            for (int32_t m : range_max) mx = std::max(mx, m);
            ensure_dense(mx);
        }
        void par_place(int j) {
            Part& P = parts_[j];
            uint32_t head = (uint32_t)P.pool_base;
            for (size_t li = 0; li < P.pkey.size(); ++li) {
                int32_t g = (int32_t)(P.base + li);
                uint64_t key = P.pkey[li];
                pairs[g] = Pair{P.pcount[li], key, head, 0, P.pnpos[li], 0};
                head += (uint32_t)P.pnpos[li];
                uint64_t s = slot_of(key);
                while (true) {
                    if (seg_of(s) != j) { P.deferred.emplace_back(key, g); break; }
                    if (!tkeys[s]) { tkeys[s] = key + 1; tvals[s] = g; break; }
                    s = (s + 1) & tmask;
                }
            }
            for (int t = 0; t < np; ++t) {
                std::vector<int32_t>& B = buckets[(size_t)t * np + j];
                for (int32_t p : B) {
                    int32_t g = (int32_t)P.base + nodes[p].pidx;
                    nodes[p].pidx = g;
                    Pair& Q = pairs[g];
                    pool[Q.head + Q.len++] = p;
                }
                std::vector<int32_t>().swap(B);   // partition j's sites: only this task reads them
            }
            P.keys = std::vector<uint64_t>(); P.vals = std::vector<int32_t>();
        }
        void par_finish() {
            for (Part& P : parts_)
                for (auto& kv : P.deferred) {
                    uint64_t s = slot_of(kv.first);
                    while (tkeys[s]) s = (s + 1) & tmask;
                    tkeys[s] = kv.first + 1; tvals[s] = kv.second;
                }
            std::vector<Part>().swap(parts_);
            std::vector<std::vector<int32_t>>().swap(buckets);
            for (int k = 0; k < 32; ++k) free_head[k] = -1;
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

    // the engine's nodes from a flat word table (WordSymbols) on several threads: task i fills the
    // words [wlo[i], wlo[i + 1]) from node nlo[i] on (pass 1 counts the nodes, pass 2 writes them);
    // symbol s becomes id m[s] (-1: left out), word cut_word[c] is cut before each of
    // cut_pos[cut_off[c] .. cut_off[c + 1]), pieces of one symbol hold no pair and are left out
    struct FillJob {
        Engine* eng = nullptr;
        const int32_t* syms = nullptr; const int64_t* starts = nullptr; const int64_t* counts = nullptr;
        const int32_t* m = nullptr;
        std::vector<int64_t> cut_word, cut_off;
        std::vector<int32_t> cut_pos;
        std::vector<size_t> wlo, nlo, wrote;
        bool write = false;
    };
    static void fill_task(void* job, int i) {
        FillJob* J = (FillJob*)job;
        size_t k0 = J->wlo[i], k1 = J->wlo[i + 1], ncut = J->cut_word.size();
        size_t c = std::lower_bound(J->cut_word.begin(), J->cut_word.end(), (int64_t)k0) - J->cut_word.begin();
        std::vector<int32_t> buf, cut;
        Engine::Node* nodes = J->write ? J->eng->nodes.data() : nullptr;
        size_t at = J->write ? J->nlo[i] : 0, count = 0;
        // a parallel build ahead (Engine::par_begin): this range's pair sites, by partition
        int np = J->eng->np;
        std::vector<int32_t>* sites = J->write && J->eng->buckets.size() ? &J->eng->buckets[(size_t)i * np] : nullptr;
        int32_t mx = 0;
        for (size_t k = k0; k < k1; ++k) {
            buf.clear();
            for (int64_t p = J->starts[k]; p < J->starts[k + 1]; ++p) {
                int32_t v = J->m[J->syms[p]];
                if (v >= 0) buf.push_back(v);
            }
            cut.clear();
            while (c < ncut && J->cut_word[c] == (int64_t)k) {   // the last cut list of word k counts
                cut.assign(J->cut_pos.begin() + J->cut_off[c], J->cut_pos.begin() + J->cut_off[c + 1]);
                ++c;
            }
            cut.push_back((int32_t)buf.size());
            size_t a = 0;
            int64_t cnt = J->counts[k];
            for (int32_t cb : cut) {
                size_t b = (size_t)cb;
                if (b > a + 1) {
                    if (nodes) {
                        for (size_t q = a; q < b; ++q) {
                            int32_t p = (int32_t)(at + count + (q - a));
                            nodes[p] = Engine::Node{cnt, buf[q], q == a ? -1 : p - 1, q + 1 == b ? -1 : p + 1, -1};
                            if (sites && q + 1 < b)
                                sites[Engine::part_of(pair_key(buf[q], buf[q + 1]), np)].push_back(p);
                            if (buf[q] > mx) mx = buf[q];
                        }
                    }
                    count += b - a;
                }
                a = b;
            }
        }
        if (!J->write) J->nlo[i + 1] = count;
        else J->wrote[i] = count;
        if (sites) J->eng->range_max[i] = mx;
    }
    // the parallel build's steps (Engine::par_*) as tasks
    struct BuildJob { Engine* eng; int step; };
    static void build_task(void* job, int i) {
        BuildJob* J = (BuildJob*)job;
        if (J->step == 1) J->eng->par_count(i);
        else J->eng->par_place(i);
    }

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


cdef extern from *:
    """
    #include <vector>
    #include <cstdint>
    #include <cstring>
    #include <new>
    namespace kbpe {
    // a distinct word: its code points are chars[off, off + len), after U+2581 when prefixed
    struct WordEntry { uint64_t hash; int64_t count; int64_t off; int32_t len, prefixed; };

    // str.split()'s white space: ASCII by table, nothing above U+3000 (Hangul), the rest asked
    static inline bool is_space(uint32_t ch) {
        if (ch < 128) return ch == 32 || (9 <= ch && ch <= 13) || (28 <= ch && ch <= 31);
        if (ch > 0x3000) return false;
        return Py_UNICODE_ISSPACE((Py_UCS4)ch);
    }
    // korean_bpe.pre_tokenizers.base.LINE_BREAKS: \\n \\r \\x0b \\x0c \\x1c \\x1d \\x1e \\x85 U+2028 U+2029
    static inline bool is_line_break(uint32_t ch) {
        return (0x0A <= ch && ch <= 0x0D) || (0x1C <= ch && ch <= 0x1E) || ch == 0x85 || ch == 0x2028 || ch == 0x2029;
    }

    // The distinct words of texts with their counts: code points in one arena, entries in
    // first-seen order, an open-addressing index.  Reads str data without the GIL (the caller
    // holds references to the texts), so that several tables count slices of texts at once.
    struct WordTable {
        std::vector<uint32_t> chars;
        std::vector<WordEntry> entries;
        std::vector<int32_t> slots;
        uint64_t mask;
        bool stale = false;   // entries added without the index (dedup_gather): reindex before a lookup
        WordTable() : slots(1 << 16, -1), mask((1 << 16) - 1) {}

        // the index of every entry, in `cap` slots
        void place_all(size_t cap) {
            slots.assign(cap, -1);
            mask = cap - 1;
            for (size_t e = 0; e < entries.size(); ++e) {
                uint64_t slot = (entries[e].hash * 0x9E3779B97F4A7C15ULL) & mask;
                while (slots[slot] >= 0) slot = (slot + 1) & mask;
                slots[slot] = (int32_t)e;
            }
        }
        void reindex() {
            size_t cap = 1 << 16;
            while (entries.size() * 2 > cap) cap <<= 1;
            place_all(cap);
            stale = false;
        }
        void grow() { place_all(slots.size() * 2); }
        // add `by` to the word (hash h, code points w[0, len), prefixed); a new word goes last
        template <typename CH>
        inline void add(uint64_t h, const CH* w, int32_t len, int32_t prefixed, int64_t by) {
            uint64_t slot = (h * 0x9E3779B97F4A7C15ULL) & mask;
            while (true) {
                int32_t e = slots[slot];
                if (e < 0) break;
                WordEntry& E = entries[e];
                if (E.hash == h && E.len == len && E.prefixed == prefixed) {
                    const uint32_t* a = chars.data() + E.off;
                    bool same = true;
                    if (sizeof(CH) == 4) same = std::memcmp(a, w, (size_t)len * 4) == 0;
                    else for (int32_t j = 0; j < len; ++j) if (a[j] != (uint32_t)w[j]) { same = false; break; }
                    if (same) { E.count += by; return; }
                }
                slot = (slot + 1) & mask;
            }
            entries.push_back(WordEntry{h, by, (int64_t)chars.size(), len, prefixed});
            for (int32_t j = 0; j < len; ++j) chars.push_back((uint32_t)w[j]);
            slots[slot] = (int32_t)entries.size() - 1;
            if (entries.size() * 2 > slots.size()) grow();
        }
        // count the words of one text: mode 0 str.split(), mode 1 SentencePiece pieces
        template <typename CH>
        void scan_chars(const CH* data, Py_ssize_t n, int mode) {
            Py_ssize_t i = 0, start = 0, end = 0;
            bool line_open = false;   // mode 1: inside a non-empty line, a part ends at i
            uint32_t ch = 0;
            int32_t prefixed = 0;
            while (true) {
                uint64_t h = 1469598103934665603ULL;
                if (mode == 0) {
                    while (i < n && is_space((uint32_t)data[i])) ++i;
                    if (i >= n) break;
                    start = i;
                    while (i < n) {
                        ch = (uint32_t)data[i];
                        if (is_space(ch)) break;
                        h = (h ^ ch) * 1099511628211ULL;
                        ++i;
                    }
                    end = i;
                    prefixed = 0;
                } else {
                    if (i >= n && !line_open) break;
                    if (!line_open) {
                        ch = (uint32_t)data[i];
                        if (is_line_break(ch)) {   // a line break: a piece of its own
                            start = i;
                            ++i;
                            end = i;
                            prefixed = 0;
                            h = (h ^ ch) * 1099511628211ULL;
                        } else {
                            line_open = true;
                        }
                    }
                    if (line_open) {   // one part of a non-empty line: up to a space, U+2581, a line break or the end
                        start = i;
                        h ^= 1;
                        while (i < n) {
                            ch = (uint32_t)data[i];
                            if (ch == 0x20 || ch == 0x2581 || is_line_break(ch)) break;
                            h = (h ^ ch) * 1099511628211ULL;
                            ++i;
                        }
                        end = i;
                        prefixed = 1;
                        if (i < n && (ch == 0x20 || ch == 0x2581)) ++i;   // the separator; another part follows
                        else line_open = false;   // the line ends here (a break, or the end of the text)
                    }
                }
                h ^= h >> 29;
                add(h, data + start, (int32_t)(end - start), prefixed, 1);
            }
        }
        void scan(PyObject* t, int mode) {
            if (stale) reindex();
            Py_ssize_t n = PyUnicode_GET_LENGTH(t);
            switch (PyUnicode_KIND(t)) {
                case PyUnicode_1BYTE_KIND: scan_chars((const Py_UCS1*)PyUnicode_DATA(t), n, mode); break;
                case PyUnicode_2BYTE_KIND: scan_chars((const Py_UCS2*)PyUnicode_DATA(t), n, mode); break;
                default: scan_chars((const Py_UCS4*)PyUnicode_DATA(t), n, mode); break;
            }
        }
    };

    // tasks run on several threads (korean_bpe._threads.run_parallel): task i of a job
    typedef void (*task_fn)(void* job, int i);
    // run one task, C++ exceptions caught: 0 done, 1 out of memory, 2 another error
    static int run_task(task_fn fn, void* job, int i) noexcept {
        try { fn(job, i); return 0; }
        catch (const std::bad_alloc&) { return 1; }
        catch (...) { return 2; }
    }

    // counting: task i counts texts[n * i / parts, n * (i + 1) / parts) into tables[i]
    struct CountJob { PyObject** texts; Py_ssize_t n; int parts; int mode; WordTable** tables; };
    static void count_task(void* job, int i) {
        CountJob* J = (CountJob*)job;
        Py_ssize_t lo = J->n * i / J->parts, hi = J->n * (i + 1) / J->parts;
        for (Py_ssize_t k = lo; k < hi; ++k) J->tables[i]->scan(J->texts[k], J->mode);
    }
    // the slices' tables added up without a serial merge: task j finds the words of partition j
    // (the top bits of another mix of their hash) in every table, slice after slice, keeps each
    // word's first sighting (its origin: origin[s][e] = 1) and adds the later ones' counts to it;
    // then dedup_gather appends the origins of slices 1.. to table 0 in slice order, which gives
    // the one-table result: the same counts in the same first-seen order
    struct DedupJob {
        WordTable** tables = nullptr;
        int parts = 0;
        std::vector<std::vector<uint8_t>> origin;
        void init(WordTable** t, int n) {
            tables = t; parts = n;
            origin.resize(n);
            for (int k = 0; k < n; ++k) origin[k].assign(t[k]->entries.size(), 0);
        }
    };
    static inline int word_part(uint64_t h, int parts) {
        return (int)((((h * 0xC2B2AE3D27D4EB4FULL) >> 32) * (uint64_t)parts) >> 32);
    }
    static void dedup_task(void* job, int j) {
        DedupJob* J = (DedupJob*)job;
        size_t n = 0;
        for (int s = 0; s < J->parts; ++s) n += J->tables[s]->entries.size();
        size_t cap = 1024;
        while (cap < 2 * (n / J->parts + 16)) cap <<= 1;
        std::vector<int64_t> slots(cap, -1);           // -> recs
        std::vector<std::pair<int32_t, int32_t>> recs; // (table, entry) of each word's first sighting
        uint64_t mask = cap - 1;
        for (int s = 0; s < J->parts; ++s) {
            WordTable& T = *J->tables[s];
            uint8_t* org = J->origin[s].data();
            for (size_t e = 0; e < T.entries.size(); ++e) {
                WordEntry& E = T.entries[e];
                if (word_part(E.hash, J->parts) != j) continue;
                uint64_t slot = (E.hash * 0x9E3779B97F4A7C15ULL) & mask;
                bool found = false;
                if (s > 0) {   // table 0's words are distinct: only later tables repeat them
                    while (slots[slot] >= 0) {
                        const std::pair<int32_t, int32_t>& r = recs[(size_t)slots[slot]];
                        WordTable& U = *J->tables[r.first];
                        WordEntry& F = U.entries[(size_t)r.second];
                        if (F.hash == E.hash && F.len == E.len && F.prefixed == E.prefixed
                                && std::memcmp(U.chars.data() + F.off, T.chars.data() + E.off, (size_t)E.len * 4) == 0) {
                            F.count += E.count;
                            found = true;
                            break;
                        }
                        slot = (slot + 1) & mask;
                    }
                } else {
                    while (slots[slot] >= 0) slot = (slot + 1) & mask;
                }
                if (found) continue;
                org[e] = 1;
                slots[slot] = (int64_t)recs.size();
                recs.emplace_back(s, (int32_t)e);
                if (recs.size() * 2 > cap) {   // grow: the records' hashes placed again
                    cap *= 2; mask = cap - 1;
                    slots.assign(cap, -1);
                    for (size_t k = 0; k < recs.size(); ++k) {
                        uint64_t h = J->tables[recs[k].first]->entries[(size_t)recs[k].second].hash;
                        uint64_t q = (h * 0x9E3779B97F4A7C15ULL) & mask;
                        while (slots[q] >= 0) q = (q + 1) & mask;
                        slots[q] = (int64_t)k;
                    }
                }
            }
        }
    }
    static void dedup_gather(DedupJob* J) {
        WordTable& M = *J->tables[0];
        size_t ne = 0, nc = 0;
        for (int s = 1; s < J->parts; ++s)
            for (size_t e = 0; e < J->tables[s]->entries.size(); ++e)
                if (J->origin[s][e]) { ++ne; nc += (size_t)J->tables[s]->entries[e].len; }
        M.entries.reserve(M.entries.size() + ne);
        M.chars.reserve(M.chars.size() + nc);
        for (int s = 1; s < J->parts; ++s) {
            const WordTable& T = *J->tables[s];
            for (size_t e = 0; e < T.entries.size(); ++e) {
                if (!J->origin[s][e]) continue;
                const WordEntry& E = T.entries[e];
                M.entries.push_back(WordEntry{E.hash, E.count, (int64_t)M.chars.size(), E.len, E.prefixed});
                M.chars.insert(M.chars.end(), T.chars.begin() + E.off, T.chars.begin() + E.off + E.len);
            }
        }
        if (ne) M.stale = true;
    }
    }
    """
    cdef cppclass WordEntry "kbpe::WordEntry":
        uint64_t hash
        int64_t count
        int64_t off
        int32_t len, prefixed
    cdef cppclass WordTable "kbpe::WordTable":
        vector[uint32_t] chars
        vector[WordEntry] entries
    ctypedef void (*task_fn "kbpe::task_fn")(void* job, int i) noexcept nogil
    int run_task "kbpe::run_task"(task_fn fn, void* job, int i) noexcept nogil
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


cdef extern from *:
    """
    #include <unordered_map>
    #include <unordered_set>
    namespace kbpe {
    // WordCounter.split_ids on several threads.  Pass 1, task i: the entries [elo[i], elo[i + 1])
    // cut into symbol codes (code point | variant << 21: 0 bare, 1 "</w>", 2 "##"), and the
    // distinct codes in first-seen order; then, serially, the ids in order of first sighting, range
    // after range (the one-thread order); pass 2, task i: the codes as ids into the flat arrays.
    struct SplitPart {
        std::vector<uint32_t> codes, firsts;
        std::vector<int64_t> lens, counts;
        int64_t weight = 0, total = 0, longest = 0;
        bool overflow = false;
        size_t sym_off = 0, word_off = 0;
    };
    struct SplitJob {
        const WordTable* tb = nullptr;
        bool jamo = false;
        int mk = 0, pass = 1;
        std::vector<size_t> elo;
        std::vector<SplitPart> out;
        std::vector<int32_t> bmp;                      // variant * 0x10000 + code point -> id
        std::unordered_map<uint32_t, int32_t> astral;  // code -> id
        int32_t* syms = nullptr; int64_t* starts = nullptr; int64_t* counts = nullptr;
    };
    static void split_task(void* job, int i) {
        SplitJob* J = (SplitJob*)job;
        SplitPart& P = J->out[i];
        if (J->pass == 2) {
            size_t at = P.sym_off, q = 0;
            for (size_t k = 0; k < P.lens.size(); ++k) {
                for (int64_t j = 0; j < P.lens[k]; ++j, ++q) {
                    uint32_t code = P.codes[q], u = code & 0x1FFFFF, variant = code >> 21;
                    J->syms[at++] = u < 0x10000 ? J->bmp[variant * 0x10000 + u] : J->astral.at(code);
                }
                J->starts[P.word_off + k + 1] = (int64_t)at;
                J->counts[P.word_off + k] = P.counts[k];
            }
            std::vector<uint32_t>().swap(P.codes);
            return;
        }
        std::vector<char> seen(3 * 0x10000, 0);
        std::unordered_set<uint32_t> seen_astral;
        std::vector<uint32_t> cps;
        const int mk = J->mk;
        size_t e0 = J->elo[i], e1 = J->elo[i + 1];
        if (e1 > e0) {   // room for every code at once (a jamo syllable gives at most 3, a marker 1)
            size_t nch = (e1 < J->tb->entries.size() ? (size_t)J->tb->entries[e1].off : J->tb->chars.size())
                         - (size_t)J->tb->entries[e0].off;
            P.codes.reserve(nch * (J->jamo ? 3 : 1) + 2 * (e1 - e0));
            P.lens.reserve(e1 - e0);
            P.counts.reserve(e1 - e0);
        }
        for (size_t e = e0; e < e1; ++e) {
            const WordEntry& E = J->tb->entries[e];
            cps.clear();
            if (mk == 1) cps.push_back(0x2581);   // "▁" is one symbol of its own
            if (E.prefixed) cps.push_back(0x2581);
            const uint32_t* w = J->tb->chars.data() + E.off;
            for (int32_t j = 0; j < E.len; ++j) {
                int sidx = (int)w[j] - 0xAC00;
                if (J->jamo && 0 <= sidx && sidx < 11172) {
                    cps.push_back(0x1100 + sidx / 588);
                    cps.push_back(0x1161 + (sidx % 588) / 28);
                    if (sidx % 28) cps.push_back(0x11A7 + sidx % 28);
                } else {
                    cps.push_back(w[j]);
                }
            }
            int64_t m = (int64_t)cps.size(), c = E.count;
            if (m == (mk == 1 ? 1 : 0)) continue;   // a word giving no symbol is left out
            if (c > (INT64_MAX - P.weight) / m) { P.overflow = true; return; }   // sums must fit in int64
            P.weight += c * m;
            P.total += c;
            if (m > P.longest) P.longest = m;
            for (int64_t k = 0; k < m; ++k) {
                uint32_t variant = (mk == 2 && k == m - 1) ? 1 : ((mk == 3 && k > 0) ? 2 : 0);
                uint32_t u = cps[(size_t)k], code = u | (variant << 21);
                if (u < 0x10000) {
                    char& s = seen[variant * 0x10000 + u];
                    if (!s) { s = 1; P.firsts.push_back(code); }
                } else if (seen_astral.insert(code).second) {
                    P.firsts.push_back(code);
                }
                P.codes.push_back(code);
            }
            P.lens.push_back(m);
            P.counts.push_back(c);
        }
    }
    }
    """
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
