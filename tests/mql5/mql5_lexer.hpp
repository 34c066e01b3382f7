// A tokenizer for MQL5 and for the C of include/mqlcl/mqlcl.h (the two share their lexical
// rules): comments are dropped, string and character literals are single tokens, and each
// preprocessor directive becomes one token that carries the tokens of its logical line.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace mql5check {

enum class TokenKind { Identifier, Number, String, Char, Punct, Directive };

struct Token {
  TokenKind kind = TokenKind::Punct;
  std::string text;             // as written; a String keeps its quotes and escapes
  int line = 0;                 // 1-based, where the token starts
  bool space_before = false;    // whitespace or a comment separates it from the previous token
  std::vector<Token> directive; // Directive only: the tokens after '#', e.g. {import, "x.dll"}

  bool is(TokenKind k, const char *t) const { return kind == k && text == t; }
  bool is_punct(const char *t) const { return is(TokenKind::Punct, t); }
  bool is_identifier() const { return kind == TokenKind::Identifier; }
  bool is_identifier(const char *t) const { return is(TokenKind::Identifier, t); }
};

// Where a problem was found, as "file:line".
struct SyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws SyntaxError on an unterminated comment, string or character literal.
std::vector<Token> tokenize(const std::string &text, const std::string &file_name);

// The value of a string literal token ("a\tb" -> a<TAB>b); \xNNNN escapes above 0x7F are kept
// as UTF-8.
std::string string_value(const Token &literal);

// The text of directive tokens [first, end) with single spaces where the source had space:
// for `#include <mqlcl/mqlcl.mqh>` and first = 1 this is "<mqlcl/mqlcl.mqh>".
std::string join_tokens(const std::vector<Token> &tokens, size_t first);

// Reads a whole file as UTF-8: a file with a UTF-16 byte-order mark (MetaQuotes' include files
// are UTF-16LE) is converted. Throws std::runtime_error naming it when it cannot be read.
std::string read_file(const std::string &path);

// UTF-16 bytes (no byte-order mark) as UTF-8.
std::string utf16_to_utf8(const std::string &bytes, bool little_endian);

} // namespace mql5check
