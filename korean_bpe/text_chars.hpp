// The characters where the compiled cuts break a text: str.split()'s white space, line breaks.
#pragma once

#include <Python.h>
#include <cstdint>

namespace kbpe {

// str.split()'s white space: ASCII by table, nothing above U+3000 (Hangul), the rest asked
static inline bool is_space(uint32_t ch) {
    if (ch < 128) return ch == 32 || (9 <= ch && ch <= 13) || (28 <= ch && ch <= 31);
    if (ch > 0x3000) return false;
    return Py_UNICODE_ISSPACE((Py_UCS4)ch);
}
// korean_bpe.pre_tokenizers.base.LINE_BREAKS: \n \r \x0b \x0c \x1c \x1d \x1e \x85 U+2028 U+2029
static inline bool is_line_break(uint32_t ch) {
    return (0x0A <= ch && ch <= 0x0D) || (0x1C <= ch && ch <= 0x1E) || ch == 0x85 || ch == 0x2028 || ch == 0x2029;
}

}  // namespace kbpe
