// Counting the distinct words of texts in C++ (korean_bpe/_counting.pyx's WordCounter): one
// table per slice of the texts, the tables then added up by partition of the words.
#pragma once

#include <Python.h>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "text_chars.hpp"

namespace kbpe {

// the home slot of a word's hash in an open-addressing index of mask + 1 slots (a power of two)
static inline uint64_t home_slot(uint64_t h, uint64_t mask) { return (h * 0x9E3779B97F4A7C15ULL) & mask; }

// a distinct word: its code points are chars[off, off + len), after U+2581 when prefixed
struct WordEntry { uint64_t hash; int64_t count; int64_t off; int32_t len, prefixed; };


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

    // The words a scan found wait in a ring before they are added, in the order found (so the
    // first-seen order is kept), while their memory is fetched ahead: the first probe's slot when
    // a word comes in, that slot's entry DEPTH_ENTRY words later, the entry's code points
    // DEPTH_CHARS later, the word added DEPTH words later.  A word's slot, entry and characters
    // are three dependent cache misses on a big table; fetched this way they overlap with the
    // other words' (the hints are only hints: everything is looked up again when the word is added).
    static const int RING = 32, DEPTH_ENTRY = 8, DEPTH_CHARS = 16, DEPTH = 24;
    struct Pending { uint64_t h; const void* w; int32_t len; int16_t prefixed; int16_t kind; };
    Pending ring[RING];
    uint64_t head = 0, tail = 0;   // pushed, added

    inline uint64_t first_slot(uint64_t h) const { return home_slot(h, mask); }
    template <typename CH>
    inline void push(uint64_t h, const CH* w, int32_t len, int32_t prefixed) {
        __builtin_prefetch(slots.data() + first_slot(h));
        ring[head % RING] = Pending{h, w, len, (int16_t)prefixed, (int16_t)sizeof(CH)};
        ++head;
        if (head - tail > (uint64_t)DEPTH_ENTRY) {
            const Pending& p = ring[(head - 1 - DEPTH_ENTRY) % RING];
            int32_t e = slots[first_slot(p.h)];
            if (e >= 0) __builtin_prefetch(entries.data() + e);
        }
        if (head - tail > (uint64_t)DEPTH_CHARS) {
            const Pending& p = ring[(head - 1 - DEPTH_CHARS) % RING];
            int32_t e = slots[first_slot(p.h)];
            if (e >= 0 && entries[e].hash == p.h) __builtin_prefetch(chars.data() + entries[e].off);
        }
        if (head - tail > (uint64_t)DEPTH) add_pending(ring[tail++ % RING]);
    }
    inline void add_pending(const Pending& p) {
        if (p.kind == 1) add(p.h, (const Py_UCS1*)p.w, p.len, p.prefixed, 1);
        else if (p.kind == 2) add(p.h, (const Py_UCS2*)p.w, p.len, p.prefixed, 1);
        else add(p.h, (const Py_UCS4*)p.w, p.len, p.prefixed, 1);
    }
    // add the words still in the ring (the end of a task's texts: they must be alive until then)
    void flush() {
        while (tail < head) add_pending(ring[tail++ % RING]);
    }

    // the index of every entry, in `cap` slots
    void place_all(size_t cap) {
        slots.assign(cap, -1);
        mask = cap - 1;
        for (size_t e = 0; e < entries.size(); ++e) {
            uint64_t slot = first_slot(entries[e].hash);
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
        uint64_t slot = first_slot(h);
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
        chars.insert(chars.end(), w, w + len);
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
            push(h, data + start, (int32_t)(end - start), prefixed);
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


// counting: task i counts texts[n * i / parts, n * (i + 1) / parts) into tables[i]
struct CountJob { PyObject** texts; Py_ssize_t n; int parts; int mode; WordTable** tables; };
inline void count_task(void* job, int i) {
    CountJob* J = (CountJob*)job;
    Py_ssize_t lo = J->n * i / J->parts, hi = J->n * (i + 1) / J->parts;
    for (Py_ssize_t k = lo; k < hi; ++k) J->tables[i]->scan(J->texts[k], J->mode);
    J->tables[i]->flush();
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
inline void dedup_task(void* job, int j) {
    DedupJob* J = (DedupJob*)job;
    size_t n = 0;
    for (int s = 0; s < J->parts; ++s) n += J->tables[s]->entries.size();
    size_t cap = 1024;
    while (cap < 2 * (n / J->parts + 16)) cap <<= 1;
    // a slot: the hash and (table, entry) of a word's first sighting; table -1: empty.  The hash
    // in the slot settles most probes without reading the entry.
    struct Slot { uint64_t hash; int32_t table, entry; };
    const Slot EMPTY{0, -1, 0};
    std::vector<Slot> slots(cap, EMPTY);
    size_t used = 0;
    uint64_t mask = cap - 1;
    auto home = [&](uint64_t h) { return home_slot(h, mask); };
    // fetched ahead (hints only: every lookup is done in full below): the slot of the word 16
    // entries on, the entry its slot names 8 on, that entry's code points 4 on
    const size_t AHEAD_SLOT = 16, AHEAD_ENTRY = 8, AHEAD_CHARS = 4;
    for (int s = 0; s < J->parts; ++s) {
        WordTable& T = *J->tables[s];
        uint8_t* org = J->origin[s].data();
        const size_t ne = T.entries.size();
        for (size_t e = 0; e < ne; ++e) {
            if (e + AHEAD_SLOT < ne) {
                uint64_t h = T.entries[e + AHEAD_SLOT].hash;
                if (word_part(h, J->parts) == j) __builtin_prefetch(slots.data() + home(h));
            }
            if (s > 0 && e + AHEAD_ENTRY < ne) {
                uint64_t h = T.entries[e + AHEAD_ENTRY].hash;
                const Slot& q = slots[home(h)];
                if (q.table >= 0 && q.hash == h) __builtin_prefetch(J->tables[q.table]->entries.data() + q.entry);
            }
            if (s > 0 && e + AHEAD_CHARS < ne) {
                uint64_t h = T.entries[e + AHEAD_CHARS].hash;
                const Slot& q = slots[home(h)];
                if (q.table >= 0 && q.hash == h) {
                    const WordTable& U = *J->tables[q.table];
                    __builtin_prefetch(U.chars.data() + U.entries[(size_t)q.entry].off);
                }
            }
            WordEntry& E = T.entries[e];
            if (word_part(E.hash, J->parts) != j) continue;
            uint64_t slot = home(E.hash);
            bool found = false;
            if (s > 0) {   // table 0's words are distinct: only later tables repeat them
                while (slots[slot].table >= 0) {
                    const Slot& q = slots[slot];
                    if (q.hash == E.hash) {
                        WordTable& U = *J->tables[q.table];
                        WordEntry& F = U.entries[(size_t)q.entry];
                        if (F.len == E.len && F.prefixed == E.prefixed
                                && std::memcmp(U.chars.data() + F.off, T.chars.data() + E.off, (size_t)E.len * 4) == 0) {
                            F.count += E.count;
                            found = true;
                            break;
                        }
                    }
                    slot = (slot + 1) & mask;
                }
            } else {
                while (slots[slot].table >= 0) slot = (slot + 1) & mask;
            }
            if (found) continue;
            org[e] = 1;
            slots[slot] = Slot{E.hash, s, (int32_t)e};
            if (++used * 2 > cap) {   // grow: the slots placed again
                std::vector<Slot> old(cap * 2, EMPTY);
                old.swap(slots);
                cap *= 2; mask = cap - 1;
                for (const Slot& q : old) {
                    if (q.table < 0) continue;
                    uint64_t r = home(q.hash);
                    while (slots[r].table >= 0) r = (r + 1) & mask;
                    slots[r] = q;
                }
            }
        }
    }
}
inline void dedup_gather(DedupJob* J) {
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

}  // namespace kbpe
