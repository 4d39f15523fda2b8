// Counted words cut into unit symbols on several threads (WordCounter.split_ids).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "hangul.hpp"
#include "word_table.hpp"

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
inline void split_task(void* job, int i) {
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
            uint32_t jamo[3];
            int nj = J->jamo ? hangul::decompose(w[j], jamo) : 0;
            if (nj) cps.insert(cps.end(), jamo, jamo + nj);
            else cps.push_back(w[j]);
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

}  // namespace kbpe
