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
  if (utf8 != nullptr)
    buffer_ = mqlcl::replay::to_utf16(utf8);
}

std::u16string string::text() const {
  size_t end = buffer_.find(u'\0');
  return end == std::u16string::npos ? buffer_ : buffer_.substr(0, end);
}

std::string string::utf8() const {
  return mqlcl::replay::to_utf8(text());
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
