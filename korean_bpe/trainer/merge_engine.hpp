// The incremental BPE merge engine (korean_bpe/trainer/_merge.pyx drives it): words as linked symbol
// nodes, pairs in an open-addressing table with their positions, a lazy max-heap of the pairs counted
// at least `floor_` times and one list per count below it (see enqueue).
#pragma once

#include <algorithm>
#include <new>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

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
    // room for the merges' position blocks besides the first `total` positions (on NSMC the pool
    // ends 2-2.7x as large): reserved, not touched, so that the pool is not copied as it grows
    // (each copy a peak of old + new); where the address space says no, it grows as it must
    void reserve_pool(size_t total) {
        try { pool.reserve(std::min(3 * total + 1024, (size_t)INT32_MAX)); }
        catch (const std::bad_alloc&) {}
        catch (const std::length_error&) {}
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
    int64_t n_remade = 0, n_indexed = 0;   // merges making a token again; pending pairs indexed then
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

    // a table for `expected` pairs (it grows when more come), room for `reserve` pair records
    void init_table(size_t expected, size_t reserve) {
        size_t cap = 1024;
        while (cap < expected * 2) cap <<= 1;
        tkeys.assign(cap, 0);
        tvals.assign(cap, -1);
        tmask = cap - 1;
        shift = 64 - __builtin_ctzll(cap);
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
            if (ok[i]) place(ok[i] - 1, ov[i]);
        }
    }

    // a key known to be absent, into the first free slot of its probe
    inline void place(uint64_t key, int32_t idx) {
        uint64_t s = slot_of(key);
        while (tkeys[s]) s = (s + 1) & tmask;
        tkeys[s] = key + 1;
        tvals[s] = idx;
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
    size_t n_pool() const { return pool.size(); }
    size_t n_slots() const { return tkeys.size(); }
    // after the words are added
    void build() {
        size_t n = nodes.size();
        init_table(n / 16 + 16, n / 4 + 16);   // the table: the words' pairs (most pairs merges
                                               // gain never go in: see is_new_token)
        int32_t mx = 0;
        for (size_t p = 0; p < n; ++p) mx = std::max(mx, nodes[p].sym);
        ensure_dense(mx);
        last_initial = mx;
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
        reserve_pool(total);
        pool.resize(total);
        for (size_t p = 0; p + 1 < n; ++p)
            if (nodes[p].pidx >= 0) { Pair& P = pairs[nodes[p].pidx]; pool[P.head + P.len++] = (int32_t)p; }
        init_queue();
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
    // par_count and par_place fetch the table slot (and pair record) of the site or pair AHEAD
    // on before it is needed, a cache miss each otherwise (hints: every lookup is done in full)
    static constexpr size_t AHEAD = 16;
    void par_count(int j) {
        Part& P = parts_[j];
        size_t sites = 0;
        for (int t = 0; t < np; ++t) sites += buckets[(size_t)t * np + j].size();
        P.init(sites / 4 + 16);
        for (int t = 0; t < np; ++t) {
            const std::vector<int32_t>& B = buckets[(size_t)t * np + j];
            for (size_t i = 0; i < B.size(); ++i) {
                if (i + AHEAD < B.size()) {
                    int32_t q = B[i + AHEAD];
                    uint64_t s = P.slot(pair_key(nodes[q].sym, nodes[q + 1].sym));
                    __builtin_prefetch(P.keys.data() + s);
                    __builtin_prefetch(P.vals.data() + s);
                }
                int32_t p = B[i];
                int32_t li = P.get_or_insert(pair_key(nodes[p].sym, nodes[p + 1].sym));
                P.pcount[li] += nodes[p].cnt;
                ++P.pnpos[li];
                nodes[p].pidx = li;
            }
        }
        P.npos = sites;
    }
    void par_layout() {
        size_t npairs = 0, total = 0;
        for (Part& P : parts_) { P.base = npairs; P.pool_base = total; npairs += P.pkey.size(); total += P.npos; }
        if (npairs >= (size_t)INT32_MAX || total > (size_t)INT32_MAX)
            throw std::length_error("korean_bpe engine: over 2**31 pairs or positions");
        init_table(npairs, nodes.size() / 4 + 16);
        pairs.resize(npairs);
        reserve_pool(total);
        pool.resize(total);
        int32_t mx = 0;
        for (int32_t m : range_max) mx = std::max(mx, m);
        ensure_dense(mx);
        last_initial = mx;
    }
    void par_place(int j) {
        Part& P = parts_[j];
        uint32_t head = (uint32_t)P.pool_base;
        for (size_t li = 0; li < P.pkey.size(); ++li) {
            if (li + AHEAD < P.pkey.size()) {
                uint64_t s = slot_of(P.pkey[li + AHEAD]);
                __builtin_prefetch(tkeys.data() + s, 1);
                __builtin_prefetch(tvals.data() + s, 1);
            }
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
            for (size_t i = 0; i < B.size(); ++i) {
                if (i + AHEAD < B.size()) __builtin_prefetch(pairs.data() + P.base + nodes[B[i + AHEAD]].pidx, 1);
                int32_t p = B[i];
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
            for (auto& kv : P.deferred) place(kv.first, kv.second);
        std::vector<Part>().swap(parts_);
        std::vector<std::vector<int32_t>>().swap(buckets);
        for (int k = 0; k < 32; ++k) free_head[k] = -1;
        init_queue();
    }

    // The queue of the pairs that can still be chosen.  Those counted at least `floor_` times are
    // in the lazy max-heap; each one counted fewer times waits in the list of its count, `low`.
    // When the heap runs dry, the floor halves and the lists at or above it go into the heap.
    // Most pairs are counted a few times and never chosen: each costs an append, not a heap push
    // (about log2 of the heap's size cache misses).  The pairs chosen, and their order, are those
    // of one heap holding every pair: a pair at or above the floor is always in the heap with its
    // current count (gains push it again, a stale entry is requeued on pop), and every pair
    // outside the heap is below the floor, below the heap's best.
    static const int64_t kFloor = 1024;   // the first floor
    int64_t floor_ = kFloor;
    std::vector<std::vector<int32_t>> low = std::vector<std::vector<int32_t>>((size_t)kFloor);  // [count]: below floor_

    inline void enqueue(int32_t idx, int64_t c) {
        if (c < min_count) return;
        if (c >= floor_) {
            ++n_push;
            heap.push_back(HeapItem{c, pairs[idx].key, idx});
            std::push_heap(heap.begin(), heap.end(), HeapLess());
        } else {
            low[(size_t)c].push_back(idx);
        }
    }
    // after the initial pairs are counted (build, par_finish): the heap and the lists
    void init_queue() {
        floor_ = kFloor;
        low.assign((size_t)kFloor, std::vector<int32_t>());
        heap.clear();
        for (size_t i = 0; i < pairs.size(); ++i) {
            int64_t c = pairs[i].count;
            if (c < min_count || !fits_key(pairs[i].key)) continue;
            if (c >= floor_) heap.push_back(HeapItem{c, pairs[i].key, (int32_t)i});
            else low[(size_t)c].push_back((int32_t)i);
        }
        std::make_heap(heap.begin(), heap.end(), HeapLess());
    }
    // the heap is empty: halve the floor and move the lists at or above it into the heap (an entry
    // whose pair has lost counts since goes to the list of its count); false when nothing is below
    bool lower_floor() {
        int64_t bottom = std::max<int64_t>(min_count, 1);
        if (floor_ <= bottom) return false;
        int64_t nf = std::max<int64_t>(floor_ / 2, bottom);
        for (int64_t c = nf; c < floor_; ++c) {
            std::vector<int32_t> v;
            v.swap(low[(size_t)c]);
            for (int32_t idx : v) {
                int64_t cur = pairs[idx].count;
                if (cur >= nf) heap.push_back(HeapItem{cur, pairs[idx].key, idx});
                else if (cur >= min_count) low[(size_t)cur].push_back(idx);
            }
        }
        floor_ = nf;
        std::make_heap(heap.begin(), heap.end(), HeapLess());
        return true;
    }

    // the best pair into best_*; false when none is left
    bool pop_best() {
        while (true) {
            if (heap.empty()) {
                if (lower_floor()) continue;
                break;
            }
            HeapItem top = heap.front();
            ++n_pop;
            std::pop_heap(heap.begin(), heap.end(), HeapLess());
            heap.pop_back();
            int32_t idx = top.idx;
            int64_t cur = pairs[idx].count;
            if (cur != top.count) {  // stale: requeue with the current count
                enqueue(idx, cur);
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

    // Pairs gained by the merge of a new token are not put in the table at once.  Every pair a
    // merge gains holds its token nw; when nw is new (no node held it before: above the largest
    // initial symbol, made by no earlier merge), none of them exists yet and the merge's dense
    // caches (lstamp, rstamp, nn_stamp) find each again within the merge, so no lookup needs the
    // table until a merge makes a token again (a merged text that is already a token, as HF
    // does): then the pending pairs go in first.  A gained pair's table slot was a cache miss
    // no other access warms, about a third of the merge loop; most are never looked up.
    int32_t last_initial = -1;          // the largest symbol id the nodes started with
    std::vector<uint8_t> made;          // [id - last_initial - 1]: a merge has made this token
    std::vector<int32_t> pending;       // pairs not in the table yet
    bool defer = false;                 // this merge's gained pairs go to `pending`
    int32_t nn_stamp = 0, nn_idx = -1;  // (nw, nw), which both caches can meet
    bool made_big = false;              // a merge made a token id the caches do not cover
    // token nw's entry of `made` (nullptr: an initial symbol, or an id the caches do not cover)
    uint8_t* made_entry(int32_t nw) {
        if (nw <= last_initial || nw >= kDense || last_initial >= kDense) return nullptr;
        size_t k = (size_t)(nw - last_initial - 1);
        if (k >= made.size()) made.resize(std::max(k + 1, made.size() * 2), 0);
        return &made[k];
    }
    // true when no node has held token nw yet (and the caches cover every id)
    bool is_new_token(int32_t nw) {
        const uint8_t* e = made_big ? nullptr : made_entry(nw);
        return e != nullptr && !*e;
    }
    void mark_made(int32_t nw) {
        if (nw >= kDense) made_big = true;
        if (uint8_t* e = made_entry(nw)) *e = 1;
    }
    // the pending pairs into the table
    void index_pending() {
        ++n_remade;
        if (pending.empty()) return;
        n_indexed += (int64_t)pending.size();
        while (pairs.size() * 2 > tkeys.size()) grow();
        const size_t n = pending.size();
        for (size_t i = 0; i < n; ++i) {
            if (i + 8 < n) __builtin_prefetch(&tkeys[slot_of(pairs[pending[i + 8]].key)], 1);
            place(pairs[pending[i]].key, pending[i]);
        }
        pending.clear();
    }

    inline int32_t fresh(int32_t x, int32_t y) {
        if (defer) {   // a new key: its record now, its table slot later
            int32_t idx = (int32_t)pairs.size();
            if ((size_t)idx >= (size_t)INT32_MAX) throw std::length_error("korean_bpe engine: over 2**31 pairs");
            pairs.push_back(Pair{0, pair_key(x, y), 0, 0, 0, stamp});
            pending.push_back(idx);
            gained.push_back(idx);
            return idx;
        }
        int32_t idx = get_or_insert(pair_key(x, y));
        if (pairs[idx].stamp != stamp) {
            pairs[idx].stamp = stamp;
            gained.push_back(idx);
        }
        return idx;
    }

    inline int32_t left_pair(int32_t x, int32_t nw) {   // (x, nw)
        if (x == nw) return self_pair(nw);
        if (x < (int32_t)lstamp.size()) {
            if (lstamp[x] != stamp) { lstamp[x] = stamp; lidx[x] = fresh(x, nw); }
            return lidx[x];
        }
        return fresh(x, nw);
    }

    inline int32_t self_pair(int32_t nw) {              // (nw, nw)
        if (nn_stamp != stamp) { nn_stamp = stamp; nn_idx = fresh(nw, nw); }
        return nn_idx;
    }

    inline int32_t right_pair(int32_t nw, int32_t y) {  // (nw, y)
        if (y == nw) return self_pair(nw);
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
        defer = is_new_token(nw);
        if (!defer) index_pending();   // a token made again: its pairs may exist, look them up
        mark_made(nw);
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
            // the sites are scattered: their nodes, and the nodes beside them in the array (most
            // often their neighbours in the word), are asked for 12 sites ahead; 6 ahead, once
            // those have come, the records of the pairs around the site and the node after it
            // (the neighbours beside: 4-8% off the merge loop's best time on NSMC, 2026-11-29)
            if (i + 12 < npos) {
                const Node* base = nodes.data();
                const size_t s = (size_t)pool[head + i + 12];
                __builtin_prefetch(base + s, 1);
                __builtin_prefetch(base + (s > 0 ? s - 1 : s), 1);
                __builtin_prefetch(base + (s + 1 < nodes.size() ? s + 1 : s), 1);
            }
            if (i + 6 < npos) {
                const Node& F = nodes[pool[head + i + 6]];
                if (F.pidx == idx) {
                    if (F.prv >= 0 && nodes[F.prv].pidx >= 0) __builtin_prefetch(&pairs[nodes[F.prv].pidx], 1);
                    const Node& G = nodes[F.nxt];
                    if (G.pidx >= 0) __builtin_prefetch(&pairs[G.pidx], 1);
                    if (G.nxt >= 0) __builtin_prefetch(&nodes[G.nxt], 1);
                }
            }
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
            if (fits_key(pairs[g].key)) enqueue(g, pairs[g].count);
        }
    }
};

}  // namespace kbpe
