// UTF-8 <-> UTF-16 on the callers' side of the ABI, as MQL5 passes strings (invalid UTF-8 bytes
// become U+FFFD, unpaired surrogates too): the harness's, and the tests' that call the bridge
// (tests/support/opencl_device.hpp, tests/windows/loaded_bridge.hpp), and the MQL5 tools'
// (tests/mql5: the lexer's UTF-16 files and literals, the replay runtime's strings). Header-only,
// so that a test needs no harness library for it.
#pragma once

#include <string>
#include <string_view>

namespace mqlcl::replay {

// `text` (UTF-8) as UTF-16.
inline std::u16string to_utf16(const std::string &text) {
  std::u16string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    auto byte = [&](size_t at) { return static_cast<unsigned char>(text[at]); };
    unsigned char lead = byte(i);
    size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : 4;
    if ((lead >= 0x80 && lead < 0xC2) || lead > 0xF4 || i + length > text.size()) {
      out.push_back(u'\uFFFD');
      ++i;
      continue;
    }
    char32_t code = length == 1 ? lead : lead & (0x3F >> (length - 1));
    bool valid = true;
    for (size_t k = 1; k < length; ++k) {
      valid = valid && (byte(i + k) & 0xC0) == 0x80;
      code = (code << 6) | (byte(i + k) & 0x3F);
    }
    if (!valid) {
      out.push_back(u'\uFFFD');
      ++i;
      continue;
    }
    if (code >= 0x10000) {
      code -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (code >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (code & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(code));
    }
    i += length;
  }
  return out;
}

// One code point appended to `out` as UTF-8.
inline void append_utf8(std::string &out, char32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// UTF-16 text as UTF-8.
inline std::string to_utf8(std::u16string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char32_t code = text[i];
    const bool paired = i + 1 < text.size() && text[i + 1] >= 0xDC00 && text[i + 1] < 0xE000;
    if (code >= 0xD800 && code < 0xDC00 && paired) {
      code = 0x10000 + ((code - 0xD800) << 10) + (text[i + 1] - 0xDC00);
      ++i;
    } else if (code >= 0xD800 && code < 0xE000) {
      code = 0xFFFD; // an unpaired surrogate
    }
    append_utf8(out, code);
  }
  return out;
}

// A terminated UTF-16 string as UTF-8.
inline std::string to_utf8(const char16_t *text) {
  return to_utf8(std::u16string_view(text));
}

} // namespace mqlcl::replay
