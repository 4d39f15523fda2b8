// Names a training run's merges in C++: token texts, ids, the stop rules.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

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

// the code points of a token's text, for PyUnicode_FromKindAndData
static inline const void* u32_data(const std::u32string& s) { return (const void*)s.data(); }

}  // namespace kbpe
