// MQL5 strings are UTF-16; OpenCL takes and returns UTF-8 (in practice ASCII) bytes. Windows'
// wide strings are UTF-16 too: os_library_windows.cpp converts them here as well.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mqlcl {

// Number of UTF-16 units before the terminator.
size_t utf16_length(const char16_t *text) noexcept;

// Number of UTF-16 units `text` (UTF-8) takes when converted.
size_t utf16_length_of(std::string_view text) noexcept;

// Converts a terminated UTF-16 string; unpaired surrogates become U+FFFD.
std::string utf16_to_utf8(const char16_t *text);

// Converts UTF-8 to UTF-16; malformed UTF-8 becomes U+FFFD.
std::u16string utf8_to_utf16(std::string_view text);

// Writes `text` as UTF-16 into out[0..capacity), always terminated when capacity > 0 and never
// splitting a surrogate pair. Returns true when all of it fit. Malformed UTF-8 becomes U+FFFD.
bool write_utf16(std::string_view text, char16_t *out, uint32_t capacity) noexcept;

} // namespace mqlcl
