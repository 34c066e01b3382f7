#include "mql5_lexer.hpp"

#include "../../harness/src/utf16_text.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

namespace mql5check {

namespace {

bool identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Longest first, so that "<<=" wins over "<<" and "<".
const char *const kPunctuators[] = {"<<=", ">>=", "::", "->", "++", "--", "<<", ">>",
                                    "<=",  ">=",  "==", "!=", "&&", "||", "+=", "-=",
                                    "*=",  "/=",  "%=", "&=", "|=", "^=", "##", "#"};

class Lexer {
public:
  Lexer(const std::string &text, const std::string &file) : text_(text), file_(file) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    while (true) {
      bool space = skip_space_and_comments(/*in_directive=*/false);
      if (at_end())
        break;
      if (text_[pos_] == '#' && at_line_start_) {
        tokens.push_back(directive(space));
        continue;
      }
      Token token = next(space);
      at_line_start_ = false;
      tokens.push_back(std::move(token));
    }
    return tokens;
  }

private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  [[noreturn]] void error(const std::string &what, int line) const {
    throw SyntaxError(file_ + ":" + std::to_string(line) + ": " + what);
  }

  // Skips blanks and comments. Outside a directive a newline starts a new line; inside one an
  // unescaped newline ends the directive (and is left in place), "\\\n" continues it.
  bool skip_space_and_comments(bool in_directive) {
    bool skipped = false;
    while (!at_end()) {
      char c = peek();
      if (c == '\\' && (peek(1) == '\n' || (peek(1) == '\r' && peek(2) == '\n'))) {
        pos_ += peek(1) == '\n' ? 2 : 3;
        ++line_;
        skipped = true;
      } else if (c == '\n') {
        if (in_directive)
          return skipped;
        ++pos_;
        ++line_;
        at_line_start_ = true;
        skipped = true;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
        skipped = true;
      } else if (c == '/' && peek(1) == '/') {
        while (!at_end() && peek() != '\n')
          ++pos_;
        skipped = true;
      } else if (c == '/' && peek(1) == '*') {
        int start = line_;
        pos_ += 2;
        while (!at_end() && !(peek() == '*' && peek(1) == '/')) {
          if (peek() == '\n')
            ++line_;
          ++pos_;
        }
        if (at_end())
          error("unterminated /* comment", start);
        pos_ += 2;
        skipped = true;
      } else if (c == '\xEF' && peek(1) == '\xBB' && peek(2) == '\xBF' && pos_ == 0) {
        pos_ += 3; // UTF-8 byte order mark
      } else {
        return skipped;
      }
    }
    return skipped;
  }

  Token directive(bool space) {
    Token token;
    token.kind = TokenKind::Directive;
    token.line = line_;
    token.space_before = space;
    ++pos_; // '#'
    while (true) {
      bool inner_space = skip_space_and_comments(/*in_directive=*/true);
      if (at_end() || peek() == '\n')
        break;
      token.directive.push_back(next(inner_space));
    }
    token.text = "#" + join_tokens(token.directive, 0);
    return token;
  }

  Token next(bool space) {
    Token token;
    token.line = line_;
    token.space_before = space;
    size_t start = pos_;
    char c = peek();
    if (identifier_start(c)) {
      while (identifier_char(peek()))
        ++pos_;
      token.kind = TokenKind::Identifier;
    } else if (digit(c) || (c == '.' && digit(peek(1)))) {
      // Digits, letters (hex digits, exponent markers, suffixes), '.', and a sign after e/E/p/P.
      while (identifier_char(peek()) || peek() == '.' ||
             ((peek() == '+' || peek() == '-') &&
              (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E' || text_[pos_ - 1] == 'p' ||
               text_[pos_ - 1] == 'P') &&
              !(text_[start] == '0' && (text_[start + 1] == 'x' || text_[start + 1] == 'X'))))
        ++pos_;
      token.kind = TokenKind::Number;
    } else if (c == '"' || c == '\'') {
      ++pos_;
      while (!at_end() && peek() != c && peek() != '\n') {
        if (peek() == '\\')
          ++pos_;
        ++pos_;
      }
      if (at_end() || peek() != c)
        error(c == '"' ? "unterminated string literal" : "unterminated character literal",
              token.line);
      ++pos_;
      token.kind = c == '"' ? TokenKind::String : TokenKind::Char;
    } else {
      token.kind = TokenKind::Punct;
      size_t length = 1;
      for (const char *p : kPunctuators) {
        size_t n = std::char_traits<char>::length(p);
        if (text_.compare(pos_, n, p) == 0) {
          length = n;
          break;
        }
      }
      pos_ += length;
    }
    token.text = text_.substr(start, pos_ - start);
    return token;
  }

  const std::string &text_;
  const std::string &file_;
  size_t pos_ = 0;
  int line_ = 1;
  bool at_line_start_ = true;
};

} // namespace

std::vector<Token> tokenize(const std::string &text, const std::string &file_name) {
  return Lexer(text, file_name).run();
}

std::string string_value(const Token &literal) {
  const std::string &t = literal.text;
  std::string out;
  for (size_t i = 1; i + 1 < t.size(); ++i) {
    if (t[i] != '\\') {
      out += t[i];
      continue;
    }
    char e = t[++i];
    switch (e) {
    case 'n':
      out += '\n';
      break;
    case 't':
      out += '\t';
      break;
    case 'r':
      out += '\r';
      break;
    case '0':
      out += '\0';
      break;
    case 'x': {
      size_t end = i + 1;
      while (end + 1 < t.size() && std::isxdigit(static_cast<unsigned char>(t[end])))
        ++end;
      mqlcl::replay::append_utf8(
          out, static_cast<char32_t>(std::stoul(t.substr(i + 1, end - i - 1), nullptr, 16)));
      i = end - 1;
      break;
    }
    default:
      out += e; // \\ \" \'
    }
  }
  return out;
}

std::string join_tokens(const std::vector<Token> &tokens, size_t first) {
  std::string text;
  for (size_t i = first; i < tokens.size(); ++i) {
    if (i > first && tokens[i].space_before)
      text += ' ';
    text += tokens[i].text;
  }
  return text;
}

std::string read_file(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw std::runtime_error("cannot read " + path);
  std::stringstream content;
  content << file.rdbuf();
  std::string bytes = content.str();
  bool little = bytes.size() >= 2 && bytes[0] == '\xFF' && bytes[1] == '\xFE';
  bool big = bytes.size() >= 2 && bytes[0] == '\xFE' && bytes[1] == '\xFF';
  return little || big ? utf16_to_utf8(bytes.substr(2), little) : bytes;
}

std::string utf16_to_utf8(const std::string &bytes, bool little_endian) {
  std::u16string units;
  units.reserve(bytes.size() / 2);
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
    auto lo = static_cast<unsigned char>(bytes[little_endian ? i : i + 1]);
    auto hi = static_cast<unsigned char>(bytes[little_endian ? i + 1 : i]);
    units.push_back(static_cast<char16_t>(lo | (hi << 8)));
  }
  return mqlcl::replay::to_utf8(units);
}

} // namespace mql5check
