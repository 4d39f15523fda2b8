// Hangul arithmetic for the compiled modules, the C++ of korean_bpe/jamo.py (which stays the
// definition; tests/test_jamo.py checks the two agree).  A precomposed syllable S (U+AC00..U+D7A3)
// is S_BASE + (l * V_COUNT + v) * T_COUNT + t: leading consonant L_BASE + l, vowel V_BASE + v and,
// when t > 0, trailing consonant T_BASE + t.  Cython reads it through korean_bpe/hangul.pxd.
#pragma once

#include <cstdint>

namespace kbpe {
namespace hangul {

constexpr uint32_t S_BASE = 0xAC00, L_BASE = 0x1100, V_BASE = 0x1161, T_BASE = 0x11A7;
constexpr uint32_t L_COUNT = 19, V_COUNT = 21, T_COUNT = 28;
constexpr uint32_t N_COUNT = V_COUNT * T_COUNT;  // 588 syllables per leading consonant
constexpr uint32_t S_COUNT = L_COUNT * N_COUNT;  // 11,172 syllables

// '값' (U+AC12) -> U+1100 U+1161 U+11B9 into out[0..3), returning 3; 2 for a syllable without a
// trailing consonant ('가'); 0 (out untouched) for anything else
inline int decompose(uint32_t cp, uint32_t* out) noexcept {
    uint32_t s = cp - S_BASE;  // wraps below S_BASE
    if (s >= S_COUNT) return 0;
    out[0] = L_BASE + s / N_COUNT;
    out[1] = V_BASE + (s % N_COUNT) / T_COUNT;
    if (s % T_COUNT == 0) return 2;
    out[2] = T_BASE + s % T_COUNT;
    return 3;
}

// The syllable that text starting a, b, c composes into (*out), and how many of the three it
// takes: L V T -> 3, L V -> 2, an LV syllable + T -> 2; 0 when a opens no syllable.  has_b /
// has_c: whether the text holds b, c at all (b and c are ignored otherwise).
inline int compose_prefix(uint32_t a, uint32_t b, bool has_b, uint32_t c, bool has_c, uint32_t* out) noexcept {
    if (!has_b) return 0;
    uint32_t l = a - L_BASE, v = b - V_BASE, t = b - T_BASE;
    if (l < L_COUNT) {
        if (v >= V_COUNT) return 0;
        uint32_t tc = has_c ? c - T_BASE : 0;
        bool trail = 0 < tc && tc < T_COUNT;
        *out = S_BASE + (l * V_COUNT + v) * T_COUNT + (trail ? tc : 0);
        return trail ? 3 : 2;
    }
    uint32_t s = a - S_BASE;
    if (s < S_COUNT && s % T_COUNT == 0 && 0 < t && t < T_COUNT) {  // an LV syllable followed by a T jamo
        *out = a + t;
        return 2;
    }
    return 0;
}

}  // namespace hangul
}  // namespace kbpe
