#include "utf16.hpp"

namespace mqlcl {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

void append_utf8(std::string &out, char32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

bool is_high_surrogate(char32_t unit) {
  return unit >= 0xD800 && unit <= 0xDBFF;
}
bool is_low_surrogate(char32_t unit) {
  return unit >= 0xDC00 && unit <= 0xDFFF;
}

// Decodes one code point from UTF-8 at text[pos], advancing pos; malformed input gives U+FFFD.
char32_t decode_utf8(std::string_view text, size_t &pos) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(pos++);
  if (lead < 0x80)
    return lead;
  int extra = lead >= 0xF0 && lead <= 0xF4  ? 3
              : lead >= 0xE0                ? 2
              : lead >= 0xC2 && lead < 0xE0 ? 1
                                            : -1;
  if (extra < 0)
    return kReplacement;
  char32_t code_point = lead & (0x3F >> extra);
  for (int i = 0; i < extra; ++i) {
    if (pos >= text.size() || (byte(pos) & 0xC0) != 0x80)
      return kReplacement;
    code_point = (code_point << 6) | (byte(pos++) & 0x3F);
  }
  bool overlong = (extra == 2 && code_point < 0x800) || (extra == 3 && code_point < 0x10000);
  if (overlong || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF))
    return kReplacement;
  return code_point;
}

// Writes `code_point` as one or two UTF-16 units into `units`; returns how many.
uint32_t encode_utf16(char32_t code_point, char16_t (&units)[2]) {
  if (code_point < 0x10000) {
    units[0] = static_cast<char16_t>(code_point);
    return 1;
  }
  code_point -= 0x10000;
  units[0] = static_cast<char16_t>(0xD800 + (code_point >> 10));
  units[1] = static_cast<char16_t>(0xDC00 + (code_point & 0x3FF));
  return 2;
}

} // namespace

size_t utf16_length(const char16_t *text) noexcept {
  size_t length = 0;
  while (text[length] != 0)
    ++length;
  return length;
}

size_t utf16_length_of(std::string_view text) noexcept {
  size_t units = 0;
  for (size_t pos = 0; pos < text.size();)
    units += decode_utf8(text, pos) >= 0x10000 ? 2 : 1;
  return units;
}

std::string utf16_to_utf8(const char16_t *text) {
  std::string out;
  size_t length = utf16_length(text);
  out.reserve(length);
  for (size_t i = 0; i < length; ++i) {
    char32_t unit = text[i];
    if (is_high_surrogate(unit) && i + 1 < length && is_low_surrogate(text[i + 1])) {
      append_utf8(out, 0x10000 + ((unit - 0xD800) << 10) + (text[i + 1] - 0xDC00));
      ++i;
    } else if (is_high_surrogate(unit) || is_low_surrogate(unit)) {
      append_utf8(out, kReplacement);
    } else {
      append_utf8(out, unit);
    }
  }
  return out;
}

std::u16string utf8_to_utf16(std::string_view text) {
  std::u16string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    char16_t units[2];
    out.append(units, encode_utf16(decode_utf8(text, pos), units));
  }
  return out;
}

bool write_utf16(std::string_view text, char16_t *out, uint32_t capacity) noexcept {
  if (capacity == 0)
    return false; // not even the terminator fits
  uint32_t written = 0;
  size_t pos = 0;
  bool complete = true;
  while (pos < text.size()) {
    char16_t units[2];
    uint32_t count = encode_utf16(decode_utf8(text, pos), units);
    if (written + count > capacity - 1) { // keep room for the terminator
      complete = false;
      break;
    }
    for (uint32_t i = 0; i < count; ++i)
      out[written++] = units[i];
  }
  out[written] = 0;
  return complete;
}

} // namespace mqlcl
