#include "build_inputs.hpp"

#include <cctype>
#include <initializer_list>
#include <string>

namespace mqlcl::program_cache {

namespace {

bool starts_with(std::string_view text, size_t at, std::string_view prefix) {
  return text.substr(at, prefix.size()) == prefix;
}

bool contains_any(std::string_view text, std::initializer_list<std::string_view> words) {
  for (std::string_view word : words)
    if (text.find(word) != std::string_view::npos)
      return true;
  return false;
}

// Translation phases 1 and 2: trigraphs (when `trigraphs`), then line splices: a backslash,
// optional blanks (clang accepts them) and a newline are removed.
std::string spliced(std::string_view source, bool trigraphs) {
  std::string text;
  text.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    char c = source[i];
    if (trigraphs && (starts_with(source, i, "?\?/") || starts_with(source, i, "?\?="))) {
      c = source[i + 2] == '/' ? '\\' : '#';
      i += 2;
    }
    if (c == '\\') {
      size_t end = i + 1;
      while (end < source.size() && (source[end] == ' ' || source[end] == '\t'))
        ++end;
      if (end < source.size() && (source[end] == '\n' || source[end] == '\r')) {
        if (source[end] == '\r' && end + 1 < source.size() && source[end + 1] == '\n')
          ++end;
        i = end;
        continue;
      }
    }
    text += c;
  }
  return text;
}

// From a comment's start, the position just past it (a // comment ends before its newline).
size_t past_comment(std::string_view text, size_t at) {
  if (starts_with(text, at, "//")) {
    size_t end = text.find('\n', at);
    return end == std::string_view::npos ? text.size() : end;
  }
  size_t end = text.find("*/", at + 2);
  return end == std::string_view::npos ? text.size() : end + 2;
}

// From a string or character literal's opening quote, the position just past it; an
// unterminated literal ends at its line's end.
size_t past_literal(std::string_view text, size_t at) {
  const char quote = text[at];
  for (size_t i = at + 1; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == quote)
      return i + 1;
    else if (text[i] == '\n')
      return i;
  }
  return text.size();
}

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

// Just past a directive's '#': whether the directive can read a file. Blanks and comments may
// come between '#' and its name; a block comment may even span lines there.
bool directive_reads_files(std::string_view text, size_t at) {
  while (at < text.size()) {
    if (is_blank(text[at]))
      ++at;
    else if (starts_with(text, at, "/*") || starts_with(text, at, "//"))
      at = past_comment(text, at);
    else
      break;
  }
  size_t end = at;
  while (end < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
    ++end;
  const std::string_view name = text.substr(at, end - at);
  if (name == "include" || name == "include_next" || name == "import" || name == "embed")
    return true;
  if (name != "pragma")
    return false;
  const std::string_view line = text.substr(end, text.find('\n', end) - end);
  return contains_any(line, {"include", "import", "embed", "module"});
}

// Whether any _Pragma in the text could read a file: one whose operand is a plain string literal
// is read like a #pragma line; any other operand (a macro, a stringized argument) is not known
// until the preprocessor expands it, so it could.
bool pragma_operators_read_files(std::string_view text) {
  for (size_t at = text.find("_Pragma"); at != std::string_view::npos;
       at = text.find("_Pragma", at + 1)) {
    size_t i = at + 7;
    while (i < text.size() && (is_blank(text[i]) || text[i] == '\n'))
      ++i;
    if (i >= text.size() || text[i] != '(')
      continue; // not the operator: a longer identifier, or a mention
    ++i;
    while (i < text.size() && (is_blank(text[i]) || text[i] == '\n'))
      ++i;
    if (i >= text.size() || text[i] != '"')
      return true;
    const std::string_view literal = text.substr(i, past_literal(text, i) - i);
    if (contains_any(literal, {"include", "import", "embed", "module"}))
      return true;
  }
  return false;
}

// One reading of the spliced text: every directive, found as the preprocessor finds them (the
// first token of a line, comments counting as blanks, literals skipped).
bool text_reads_files(std::string_view text) {
  // Wherever they are, comments included: the scan below cannot see through these.
  if (contains_any(text, {"__has_include", "__has_embed", "R\""}) ||
      pragma_operators_read_files(text))
    return true;
  bool line_start = true;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      line_start = true;
      ++i;
    } else if (is_blank(c)) {
      ++i;
    } else if (starts_with(text, i, "/*") || starts_with(text, i, "//")) {
      i = past_comment(text, i); // a comment is a blank: the line's start stays its start
    } else if (line_start && (c == '#' || starts_with(text, i, "%:"))) {
      i += c == '#' ? 1 : 2;
      if (directive_reads_files(text, i))
        return true;
      line_start = false;
    } else {
      line_start = false;
      i = c == '"' || c == '\'' ? past_literal(text, i) : i + 1;
    }
  }
  return false;
}

} // namespace

bool source_reads_files(std::string_view source) {
  // Compilers differ on whether OpenCL C has trigraphs: both readings are scanned.
  return text_reads_files(spliced(source, false)) || text_reads_files(spliced(source, true));
}

bool options_read_files(std::string_view options) {
  if (contains_any(options, {"include", "import", "embed"}))
    return true;
  size_t i = 0;
  while (i < options.size()) {
    while (i < options.size() && std::isspace(static_cast<unsigned char>(options[i])))
      ++i;
    size_t end = i;
    while (end < options.size() && !std::isspace(static_cast<unsigned char>(options[end])))
      ++end;
    std::string_view token = options.substr(i, end - i);
    while (!token.empty() && (token.front() == '"' || token.front() == '\''))
      token.remove_prefix(1);
    for (std::string_view prefix : {"-I", "-i", "-f", "-X", "--", "@"})
      if (starts_with(token, 0, prefix))
        return true;
    i = end;
  }
  return false;
}

} // namespace mqlcl::program_cache
