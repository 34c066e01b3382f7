#include "ptx_rewrite.hpp"

#include <fmt/format.h>

namespace mqlcl {

namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Where the name after a line's first `.target` starts and how long it is.
struct TargetName {
  size_t offset = 0;
  size_t length = 0;
};

std::optional<TargetName> first_target_directive(std::string_view text) {
  constexpr std::string_view kDirective = ".target";
  for (size_t line = 0; line < text.size();) {
    size_t line_end = text.find('\n', line);
    if (line_end == std::string_view::npos)
      line_end = text.size();
    size_t at = line;
    while (at < line_end && (text[at] == ' ' || text[at] == '\t'))
      ++at;
    if (text.compare(at, kDirective.size(), kDirective) == 0 && at + kDirective.size() < line_end &&
        (text[at + kDirective.size()] == ' ' || text[at + kDirective.size()] == '\t')) {
      size_t name = at + kDirective.size();
      while (name < line_end && (text[name] == ' ' || text[name] == '\t'))
        ++name;
      size_t name_end = name;
      while (name_end < line_end && !is_blank(text[name_end]) && text[name_end] != ',')
        ++name_end;
      return TargetName{name, name_end - name};
    }
    line = line_end + 1;
  }
  return std::nullopt;
}

// A piece of a driver's binary, fit to quote in a message whatever bytes it holds.
std::string printable(std::string_view text) {
  constexpr size_t kMaxQuoted = 40;
  std::string out;
  for (char c : text.substr(0, kMaxQuoted))
    out += c >= 0x20 && c < 0x7F ? c : '?';
  if (text.size() > kMaxQuoted)
    out += "...";
  return out;
}

} // namespace

bool take_build_option(std::string &options, std::string_view option) {
  if (option.empty())
    return false;
  bool found = false;
  bool quoted = false; // inside "...", where a word is part of another option's value
  for (size_t i = 0; i < options.size();) {
    if (options[i] == '"') {
      quoted = !quoted;
      ++i;
      continue;
    }
    size_t end = i + option.size();
    if (!quoted && (i == 0 || is_blank(options[i - 1])) &&
        options.compare(i, option.size(), option) == 0 &&
        (end == options.size() || is_blank(options[end]))) {
      while (end < options.size() && is_blank(options[end]))
        ++end;
      options.erase(i, end - i);
      found = true;
      continue;
    }
    ++i;
  }
  if (found) // the option was last: no blanks left dangling
    while (!options.empty() && is_blank(options.back()))
      options.pop_back();
  return found;
}

PtxRewrite retarget_ptx_to_sm90a(std::string_view binary) {
  PtxRewrite result;
  while (!binary.empty() && binary.back() == '\0') // NVIDIA's binary may end in NULs
    binary.remove_suffix(1);
  if (binary.empty()) {
    result.error = "it is empty";
    return result;
  }
  if (size_t nul = binary.find('\0'); nul != std::string_view::npos) {
    result.error = fmt::format("it is not text: a NUL byte at offset {}", nul);
    return result;
  }
  std::optional<TargetName> target = first_target_directive(binary);
  if (!target) {
    result.error = "it has no .target directive";
    return result;
  }
  std::string_view name = binary.substr(target->offset, target->length);
  if (name != "sm_90") {
    result.error = fmt::format("its .target is \"{}\", not sm_90", printable(name));
    return result;
  }

  size_t name_end = target->offset + target->length;
  std::string retargeted;
  retargeted.reserve(binary.size() + 1);
  retargeted.append(binary.substr(0, name_end));
  retargeted += 'a';
  retargeted.append(binary.substr(name_end));

  result.ptx.reserve(retargeted.size());
  size_t from = 0;
  for (size_t at = retargeted.find(kSm90aMarker); at != std::string::npos;
       at = retargeted.find(kSm90aMarker, from)) {
    result.ptx.append(retargeted, from, at - from);
    from = at + kSm90aMarker.size();
  }
  result.ptx.append(retargeted, from, std::string::npos);
  return result;
}

} // namespace mqlcl
