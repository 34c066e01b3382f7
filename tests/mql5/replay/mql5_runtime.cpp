#include "mql5_runtime.hpp"

#include "../../../harness/src/utf16_text.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

namespace mql5rt {

namespace {

struct Library {
  std::string path;
  void *handle = nullptr;
};

std::map<std::string, Library> &libraries() {
  static std::map<std::string, Library> loaded;
  return loaded;
}

Library &library(const std::string &module) {
  auto found = libraries().find(module);
  if (found == libraries().end())
    throw critical_error("cannot load '" + module + "': no library is set for it");
  Library &lib = found->second;
  if (lib.handle == nullptr) {
    lib.handle = dlopen(lib.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle == nullptr)
      throw critical_error("cannot load '" + module + "' (" + lib.path + "): " + dlerror());
  }
  return lib;
}

} // namespace

int &last_error() {
  static int code = 0;
  return code;
}

// ---- string -------------------------------------------------------------------------------------

string::string(const char *utf8) {
  if (utf8 == nullptr)
    return;
  for (const unsigned char *p = reinterpret_cast<const unsigned char *>(utf8); *p != 0;) {
    char32_t code = *p++;
    int extra = code >= 0xF0 ? 3 : code >= 0xE0 ? 2 : code >= 0xC0 ? 1 : 0;
    code &= extra == 3 ? 0x07 : extra == 2 ? 0x0F : extra == 1 ? 0x1F : 0x7F;
    for (; extra > 0 && (*p & 0xC0) == 0x80; --extra)
      code = (code << 6) | (*p++ & 0x3F);
    if (code >= 0x10000) {
      code -= 0x10000;
      buffer_ += static_cast<char16_t>(0xD800 + (code >> 10));
      buffer_ += static_cast<char16_t>(0xDC00 + (code & 0x3FF));
    } else {
      buffer_ += static_cast<char16_t>(code);
    }
  }
}

std::u16string string::text() const {
  size_t end = buffer_.find(u'\0');
  return end == std::u16string::npos ? buffer_ : buffer_.substr(0, end);
}

std::string string::utf8() const {
  std::string out;
  std::u16string t = text();
  for (size_t i = 0; i < t.size(); ++i) {
    char32_t c = t[i];
    if (c >= 0xD800 && c < 0xDC00 && i + 1 < t.size())
      c = 0x10000 + ((c - 0xD800) << 10) + (t[++i] - 0xDC00);
    mqlcl::replay::append_utf8(out, c);
  }
  return out;
}

std::string string::number_text(double number) {
  char text[64];
  std::snprintf(text, sizeof text, "%.16g", number);
  return text;
}

string &string::operator+=(const string &other) {
  buffer_ = text() + other.text();
  return *this;
}

// ---- #import ------------------------------------------------------------------------------------

void set_library(const std::string &module, const std::string &path) {
  libraries()[module] = Library{path, nullptr};
}

void bind(const std::string &module, const std::vector<std::string> &names) {
  for (const std::string &name : names)
    symbol(module, name);
}

void *symbol(const std::string &module, const std::string &name) {
  void *address = dlsym(library(module).handle, name.c_str());
  if (address == nullptr)
    throw critical_error("Cannot find '" + name + "' in '" + module + "'");
  return address;
}

// ---- journal and scripts ------------------------------------------------------------------------

std::vector<std::string> &journal() {
  static std::vector<std::string> lines;
  return lines;
}

void print_line(const std::string &line) {
  journal().push_back(line);
  std::cout << "  | " << line << std::endl;
}

std::map<std::string, Runner> &scripts() {
  static std::map<std::string, Runner> registered;
  return registered;
}

void set_input(string &variable, const std::string &text) {
  variable = string(text);
}
void set_input(bool &variable, const std::string &text) {
  variable = text == "true" || text == "1";
}

namespace {
std::vector<std::string> &reported() {
  static std::vector<std::string> names;
  return names;
}
} // namespace

void start_program() {
  last_error() = 0;
  reported().clear();
}

void not_performed(const char *name) {
  last_error() = ERR_FUNCTION_NOT_ALLOWED;
  if (std::find(reported().begin(), reported().end(), name) != reported().end())
    return;
  reported().push_back(name);
  print_line(std::string(name) + ": not performed by the replay (it needs the terminal: charts, "
                                 "objects and resources are not here)");
}

const std::vector<std::string> &not_performed_calls() {
  return reported();
}

} // namespace mql5rt
