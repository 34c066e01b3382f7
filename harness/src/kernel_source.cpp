#include "kernel_source.hpp"

#include "error.hpp"

#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace mqlcl::replay {

namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool blank(char c) {
  return c == ' ' || c == '\t';
}

// The path of a line `#include "path"` (cmake/KernelIncludes.cmake's kIncludeLine), else none.
std::optional<std::string> included_path(const std::string &line) {
  size_t at = 0;
  auto skip_blanks = [&] {
    while (at < line.size() && blank(line[at]))
      ++at;
  };
  auto take = [&](const char *word) {
    const std::string w(word);
    if (line.compare(at, w.size(), w) != 0)
      return false;
    at += w.size();
    return true;
  };
  skip_blanks();
  if (!take("#"))
    return std::nullopt;
  skip_blanks();
  if (!take("include"))
    return std::nullopt;
  skip_blanks();
  if (!take("\""))
    return std::nullopt;
  const size_t end = line.find('"', at);
  if (end == std::string::npos || end == at)
    return std::nullopt;
  std::string path = line.substr(at, end - at);
  at = end + 1;
  while (at < line.size() && (blank(line[at]) || line[at] == '\r'))
    ++at;
  if (at < line.size() && !take("//"))
    return std::nullopt;
  return path;
}

fs::path normal(const fs::path &path) {
  return fs::absolute(path).lexically_normal();
}

std::string inline_into(const std::string &text, const fs::path &file, std::set<fs::path> &seen) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0, line_number = 1;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    const bool last = end == std::string::npos;
    if (last)
      end = text.size();
    const std::string line = text.substr(start, end - start);
    if (std::optional<std::string> path = included_path(line)) {
      const fs::path part = normal(file.parent_path() / fs::u8path(*path));
      if (seen.insert(part).second) {
        std::optional<std::string> part_text = read_text(part);
        if (!part_text)
          bad_input(fmt::format("kernel file {} line {}: #include \"{}\": {} is missing",
                                file.string(), line_number, *path, part.string()));
        std::string inlined = inline_into(*part_text, part, seen);
        if (!inlined.empty() && inlined.back() == '\n') // the include line's own ends it
          inlined.pop_back();
        out += inlined;
      }
    } else {
      out += line;
    }
    if (!last)
      out += '\n';
    start = end + 1;
    ++line_number;
  }
  return out;
}

} // namespace

std::string inline_kernel_includes(const std::string &text, const std::filesystem::path &file) {
  std::set<fs::path> seen{normal(file)};
  return inline_into(text, file, seen);
}

std::string read_kernel_source(const std::filesystem::path &path) {
  std::optional<std::string> text = read_text(path);
  if (!text)
    bad_input(fmt::format("kernel file {} is missing", path.string()));
  return inline_kernel_includes(*text, path);
}

} // namespace mqlcl::replay
