// The engine's set-up on several threads: its nodes from a flat word table, its pair index
// built by partition (tasks run by korean_bpe._threads.run_parallel).
#pragma once

#include "merge_engine.hpp"

namespace kbpe {

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
inline void fill_task(void* job, int i) {
    FillJob* J = (FillJob*)job;
    size_t k0 = J->wlo[i], k1 = J->wlo[i + 1], ncut = J->cut_word.size();
    size_t c = std::lower_bound(J->cut_word.begin(), J->cut_word.end(), (int64_t)k0) - J->cut_word.begin();
    std::vector<int32_t> buf, cut;
    Engine::Node* nodes = J->write ? J->eng->nodes.data() : nullptr;
    size_t at = J->write ? J->nlo[i] : 0, count = 0;
    // a parallel build ahead (Engine::par_begin): this range's pair sites, by partition
    int np = J->eng->np;
    std::vector<int32_t>* sites = J->write && J->eng->buckets.size() ? &J->eng->buckets[(size_t)i * np] : nullptr;
    if (sites) {   // room for this range's sites, a share of its nodes each, 1/8 to spare: filed without regrowth
        size_t mine = J->nlo[i + 1] - J->nlo[i];
        for (int j = 0; j < np; ++j) sites[j].reserve(mine / (size_t)np + mine / (8 * (size_t)np) + 64);
    }
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
inline void build_task(void* job, int i) {
    BuildJob* J = (BuildJob*)job;
    if (J->step == 1) J->eng->par_count(i);
    else J->eng->par_place(i);
}

}  // namespace kbpe
