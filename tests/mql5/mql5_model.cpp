#include "mql5_model.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>

namespace fs = std::filesystem;

namespace mql5check {

namespace {

// MQL5 names that are followed by '(' without being calls.
const std::set<std::string> kStatementKeywords = {
    "if",   "for", "while",  "switch",   "return",   "sizeof",   "do",      "else",
    "case", "new", "delete", "typename", "template", "offsetof", "operator"};
// Type names: before '(' they are casts ("string(x)"), before a name they start a declaration.
const std::set<std::string> kTypeKeywords = {"void",   "bool",   "char",    "uchar",   "short",
                                             "ushort", "int",    "uint",    "long",    "ulong",
                                             "float",  "double", "string",  "color",   "datetime",
                                             "matrix", "vector", "matrixf", "vectorf", "complex"};
const std::set<std::string> kDeclarationWords = {"static", "const",  "input",
                                                 "sinput", "extern", "virtual"};
// An MQL5 identifier is at most 63 characters (MQL5 Reference, Language Basics: Identifiers).
constexpr size_t kMaxIdentifier = 63;

std::string at(const std::string &file, int line) {
  return file + ":" + std::to_string(line);
}

// Splits tokens[first, last) at commas outside (), [] and {}.
std::vector<std::vector<Token>> split_top_level(const std::vector<Token> &tokens, size_t first,
                                                size_t last) {
  std::vector<std::vector<Token>> parts;
  if (first >= last)
    return parts;
  parts.emplace_back();
  int depth = 0;
  for (size_t i = first; i < last; ++i) {
    const Token &t = tokens[i];
    if (t.kind == TokenKind::Punct) {
      if (t.text == "(" || t.text == "[" || t.text == "{")
        ++depth;
      else if (t.text == ")" || t.text == "]" || t.text == "}")
        --depth;
      else if (t.text == "," && depth == 0) {
        parts.emplace_back();
        continue;
      }
    }
    parts.back().push_back(t);
  }
  return parts;
}

// Index of the token closing the bracket at `open`, or tokens.size().
size_t matching(const std::vector<Token> &tokens, size_t open) {
  const std::string &o = tokens[open].text;
  std::string c = o == "(" ? ")" : o == "[" ? "]" : o == "{" ? "}" : ">";
  int depth = 0;
  for (size_t i = open; i < tokens.size(); ++i) {
    if (tokens[i].kind != TokenKind::Punct)
      continue;
    if (tokens[i].text == o)
      ++depth;
    else if (tokens[i].text == c && --depth == 0)
      return i;
  }
  return tokens.size();
}

// (-1), -1, 5, 0x10: an integer literal with optional sign and parentheses.
std::optional<long long> integer_value(std::vector<Token> tokens) {
  while (tokens.size() >= 2 && tokens.front().is_punct("(") && tokens.back().is_punct(")") &&
         matching(tokens, 0) == tokens.size() - 1)
    tokens = std::vector<Token>(tokens.begin() + 1, tokens.end() - 1);
  bool negative = false;
  if (!tokens.empty() && tokens.front().is_punct("-")) {
    negative = true;
    tokens.erase(tokens.begin());
  }
  if (tokens.size() != 1 || tokens[0].kind != TokenKind::Number)
    return std::nullopt;
  const std::string &text = tokens[0].text;
  size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used, 0);
  } catch (const std::exception &) {
    return std::nullopt;
  }
  std::string suffix = text.substr(used);
  for (char &c : suffix)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!suffix.empty() && suffix != "u" && suffix != "l" && suffix != "ul" && suffix != "lu" &&
      suffix != "ll" && suffix != "ull")
    return std::nullopt;
  return negative ? -value : value;
}

// ---- C header -----------------------------------------------------------------------------------

CType parse_c_type(const std::vector<Token> &tokens, size_t &i, const std::string &where) {
  CType type;
  if (i < tokens.size() && tokens[i].is_identifier("const")) {
    type.is_const = true;
    ++i;
  }
  if (i >= tokens.size() || !tokens[i].is_identifier())
    throw SyntaxError(where + ": expected a C type");
  type.base = tokens[i++].text;
  while (i < tokens.size() && tokens[i].is_punct("*")) {
    ++type.pointers;
    ++i;
  }
  return type;
}

// ---- MQL5 declarations --------------------------------------------------------------------------

// [const] type [&|*] [name] {[...]} [= default]
std::optional<MqlParam> parse_param(const std::vector<Token> &tokens) {
  MqlParam p;
  size_t i = 0;
  if (i < tokens.size() && tokens[i].is_identifier("const")) {
    p.is_const = true;
    ++i;
  }
  if (i >= tokens.size() || !tokens[i].is_identifier())
    return std::nullopt;
  p.type = tokens[i++].text;
  while (i < tokens.size() && (tokens[i].is_punct("&") || tokens[i].is_punct("*"))) {
    (tokens[i].text == "&" ? p.reference : p.pointer) = true;
    ++i;
  }
  if (i < tokens.size() && tokens[i].is_identifier())
    p.name = tokens[i++].text;
  while (i < tokens.size() && tokens[i].is_punct("[")) {
    size_t close = matching(tokens, i);
    if (close >= tokens.size())
      return std::nullopt;
    ++p.array_dims;
    i = close + 1;
  }
  if (i < tokens.size() && tokens[i].is_punct("=")) {
    std::vector<Token> value(tokens.begin() + static_cast<long>(i) + 1, tokens.end());
    if (value.empty())
      return std::nullopt;
    p.default_text = join_tokens(value, 0);
    p.default_value = integer_value(value);
    i = tokens.size();
  }
  if (i != tokens.size())
    return std::nullopt;
  return p;
}

// tokens[first, last) is "[template<...>] [static] type name ( params )": returns the function,
// or a problem.
std::optional<MqlFunction> parse_function_header(const std::vector<Token> &tokens, size_t first,
                                                 size_t name_index, std::string &problem) {
  MqlFunction f;
  f.name = tokens[name_index].text;
  f.line = tokens[name_index].line;
  std::vector<std::string> result;
  for (size_t i = first; i < name_index; ++i) {
    if (tokens[i].is_identifier("template")) {
      f.is_template = true;
      if (i + 1 < name_index && tokens[i + 1].is_punct("<")) {
        i = matching(tokens, i + 1);
        continue;
      }
    }
    if (kDeclarationWords.count(tokens[i].text) != 0 && tokens[i].text != "const")
      continue;
    result.push_back(tokens[i].text);
  }
  for (const std::string &r : result)
    f.result += (f.result.empty() ? "" : " ") + r;
  size_t open = name_index + 1;
  size_t close = matching(tokens, open);
  if (close >= tokens.size()) {
    problem = "unbalanced parentheses after " + f.name;
    return std::nullopt;
  }
  auto parts = split_top_level(tokens, open + 1, close);
  if (parts.size() == 1 && parts[0].size() == 1 && parts[0][0].is_identifier("void"))
    parts.clear();
  for (const auto &part : parts) {
    auto param = parse_param(part);
    if (!param) {
      problem = "cannot read parameter \"" + join_tokens(part, 0) + "\" of " + f.name;
      return std::nullopt;
    }
    f.params.push_back(*param);
  }
  return f;
}

class ProgramReader {
public:
  explicit ProgramReader(std::string include_root) : include_root_(std::move(include_root)) {}

  void read_file_at(const std::string &path) {
    std::string normal = fs::weakly_canonical(path).string();
    if (!seen_.insert(normal).second)
      return;
    std::string text;
    try {
      text = read_file(path);
    } catch (const std::exception &e) {
      program_.problems.push_back(e.what());
      return;
    }
    read_text(text, path);
  }

  void read_text(const std::string &text, const std::string &name) {
    std::vector<Token> tokens;
    try {
      tokens = tokenize(text, name);
    } catch (const SyntaxError &e) {
      program_.problems.push_back(e.what());
      return;
    }
    program_.files.push_back(SourceFile{name, tokens});
    walk(tokens, name); // includes append to program_.files: walk a copy that stays put
  }

  Program take() { return std::move(program_); }

private:
  void directive(const Token &d, const std::string &file, std::string &import_module) {
    const std::vector<Token> &t = d.directive;
    if (t.empty() || !t[0].is_identifier())
      return;
    const std::string &kind = t[0].text;
    std::string where = at(file, d.line);
    if (kind == "include") {
      std::string target = join_tokens(t, 1);
      fs::path resolved;
      if (target.size() > 2 && target.front() == '<' && target.back() == '>')
        resolved = fs::path(include_root_) / target.substr(1, target.size() - 2);
      else if (t.size() == 2 && t[1].kind == TokenKind::String)
        resolved = fs::path(file).parent_path() / string_value(t[1]);
      else {
        program_.problems.push_back(where + ": cannot read #include " + target);
        return;
      }
      if (!fs::is_regular_file(resolved)) {
        program_.problems.push_back(where + ": #include " + target + " does not resolve (" +
                                    resolved.string() + ")");
        return;
      }
      read_file_at(resolved.string());
    } else if (kind == "import") {
      if (t.size() == 1) {
        import_module.clear();
      } else if (t.size() == 2 && t[1].kind == TokenKind::String) {
        std::string module = string_value(t[1]);
        // The scope of an imported function is the module's file name without its extension.
        std::string stem = fs::path(module).stem().string();
        std::string extension = fs::path(module).extension().string();
        if (extension.empty() || extension == ".dll" || extension == ".DLL" || extension == ".ex5")
          import_module = stem;
        else
          program_.problems.push_back(where + ": #import of " + module +
                                      ": neither a .dll nor an .ex5");
      } else {
        program_.problems.push_back(where + ": cannot read " + d.text);
      }
    } else if (kind == "resource") {
      // #resource "path" [as type name]
      Resource r;
      r.file = file;
      r.line = d.line;
      if (t.size() >= 2 && t[1].kind == TokenKind::String)
        r.path = string_value(t[1]);
      if (t.size() == 5 && t[2].is_identifier("as") && t[3].is_identifier() &&
          t[4].is_identifier()) {
        r.type = t[3].text;
        r.variable = t[4].text;
      } else if (t.size() != 2 || r.path.empty()) {
        program_.problems.push_back(where + ": cannot read " + d.text);
        return;
      }
      program_.resources.push_back(r);
    } else if (kind == "define") {
      if (t.size() < 2 || !t[1].is_identifier()) {
        program_.problems.push_back(where + ": cannot read " + d.text);
        return;
      }
      Define def;
      def.name = t[1].text;
      def.file = file;
      def.line = d.line;
      def.function_like = t.size() > 2 && t[2].is_punct("(") && !t[2].space_before;
      def.value.assign(t.begin() + 2, t.end());
      program_.defines.push_back(def);
    }
  }

  // One pass over a file: directives, import blocks, top-level declarations and calls.
  void walk(const std::vector<Token> &tokens, const std::string &file) {
    std::string import_module;
    std::set<size_t> declared_names; // token indexes of names being declared
    int depth = 0;
    size_t statement_start = 0; // first token of the current top-level or member declaration
    std::string class_name;     // the class whose body is open, if any (its body is depth 1)
    std::string pending_class;  // "class NAME" seen, its body not yet open
    for (size_t i = 0; i < tokens.size(); ++i) {
      const Token &t = tokens[i];
      if (t.kind == TokenKind::Directive) {
        directive(t, file, import_module);
        statement_start = i + 1;
        continue;
      }
      if (t.kind == TokenKind::Punct) {
        if (t.text == "{") {
          if (++depth == 1 && !pending_class.empty()) {
            class_name = pending_class;
            program_.classes[class_name];
            statement_start = i + 1;
          }
          pending_class.clear();
        } else if (t.text == "}") {
          if (--depth == 0) {
            statement_start = i + 1;
            class_name.clear();
          } else if (depth == 1 && !class_name.empty())
            statement_start = i + 1;
        } else if ((t.text == ";" && depth == 0) ||
                   (t.text == ";" && depth == 1 && !class_name.empty())) {
          statement_start = i + 1;
          pending_class.clear();
        } else if (t.text == ":" && depth == 1 && !class_name.empty() && i > 0 &&
                   (tokens[i - 1].is_identifier("public") ||
                    tokens[i - 1].is_identifier("private") ||
                    tokens[i - 1].is_identifier("protected")))
          statement_start = i + 1;
        continue;
      }
      if (depth == 0 && (t.is_identifier("class") || t.is_identifier("struct")) &&
          i + 1 < tokens.size() && tokens[i + 1].is_identifier()) {
        pending_class = tokens[i + 1].text;
        program_.identifiers.insert(pending_class);
        ++i;
        continue;
      }
      if (depth == 1 && !class_name.empty() && member(tokens, i, statement_start, class_name, file))
        continue;
      if (!t.is_identifier())
        continue;
      if (t.text.size() > kMaxIdentifier)
        program_.problems.push_back(at(file, t.line) + ": identifier " + t.text + " has " +
                                    std::to_string(t.text.size()) + " characters; MQL5 allows 63");
      bool before_paren = i + 1 < tokens.size() && tokens[i + 1].is_punct("(");
      const Token *previous = i > 0 ? &tokens[i - 1] : nullptr;
      bool after_type = previous != nullptr && previous->is_identifier() &&
                        kStatementKeywords.count(previous->text) == 0;
      if (depth == 0 && before_paren && after_type) {
        std::string problem;
        auto function = parse_function_header(tokens, statement_start, i, problem);
        if (!function) {
          program_.problems.push_back(at(file, t.line) + ": " + problem);
          continue;
        }
        function->file = file;
        function->module = import_module;
        if (!import_module.empty())
          program_.imports.push_back(*function);
        else
          program_.functions.push_back(*function);
        declared_names.insert(i);
        continue;
      }
      if (!import_module.empty())
        continue; // the rest of an import declaration: types and parameter names
      program_.identifiers.insert(t.text);
      if (const std::string *type = matrix_type_before(tokens, i))
        program_.matrix_names[t.text].insert(*type);
      if (const std::string *type = class_type_before(tokens, i))
        program_.object_names[t.text].insert(*type);
      if (before_paren)
        call(tokens, i, file, depth >= 2 ? class_name : std::string());
    }
    if (!import_module.empty())
      program_.problems.push_back(file + ": an #import block is not closed by #import");
  }

  // A name at the top of a class body (depth 1): a method declaration is recorded as the class's,
  // a constructor, destructor or member initializer is no call. True when tokens[i] was one.
  bool member(const std::vector<Token> &tokens, size_t i, size_t statement_start,
              const std::string &class_name, const std::string &file) {
    const Token &t = tokens[i];
    if (i + 1 >= tokens.size() || !tokens[i + 1].is_punct("("))
      return false;
    const Token *previous = i > 0 ? &tokens[i - 1] : nullptr;
    bool after_type = previous != nullptr && previous->is_identifier() &&
                      kStatementKeywords.count(previous->text) == 0;
    if (after_type && t.text != class_name) {
      std::string problem;
      auto method = parse_function_header(tokens, statement_start, i, problem);
      if (!method) {
        program_.problems.push_back(at(file, t.line) + ": " + problem);
        return true;
      }
      method->file = file;
      program_.classes[class_name].push_back(*method);
    }
    // A constructor (NAME( or ~NAME() or an initializer of its list: skip to the closing ')'.
    return true;
  }

  // The class that declares tokens[name] ("COpenCL cl", "const COpenCL &cl"), if any.
  const std::string *class_type_before(const std::vector<Token> &tokens, size_t name) const {
    size_t type = name;
    if (type > 0 && tokens[type - 1].is_punct("&"))
      --type;
    if (type == 0 || !tokens[type - 1].is_identifier())
      return nullptr;
    auto found = program_.classes.find(tokens[type - 1].text);
    return found == program_.classes.end() ? nullptr : &found->first;
  }

  // The matrix or vector type that declares tokens[name] ("matrixf a", "const matrix &b"), if any.
  static const std::string *matrix_type_before(const std::vector<Token> &tokens, size_t name) {
    static const std::set<std::string> kMatrixTypes = {"matrix", "matrixf", "vector", "vectorf"};
    size_t type = name;
    if (type > 0 && tokens[type - 1].is_punct("&"))
      --type;
    if (type == 0 || !tokens[type - 1].is_identifier())
      return nullptr;
    auto found = kMatrixTypes.find(tokens[type - 1].text);
    return found == kMatrixTypes.end() ? nullptr : &*found;
  }

  void call(const std::vector<Token> &tokens, size_t name, const std::string &file,
            const std::string &in_class) {
    const std::string &text = tokens[name].text;
    if (kStatementKeywords.count(text) != 0 || kTypeKeywords.count(text) != 0)
      return;
    Call c;
    c.name = text;
    c.file = file;
    c.in_class = in_class;
    c.line = tokens[name].line;
    if (name > 0 && (tokens[name - 1].is_punct(".") || tokens[name - 1].is_punct("->"))) {
      c.scope = ".";
      if (name > 1 && tokens[name - 1].is_punct(".") && tokens[name - 2].is_identifier())
        c.object = tokens[name - 2].text;
    } else if (name > 0 && tokens[name - 1].is_punct("::"))
      c.scope = name > 1 && tokens[name - 2].is_identifier() ? tokens[name - 2].text : "::";
    size_t close = matching(tokens, name + 1);
    c.arguments = split_top_level(tokens, name + 2, std::min(close, tokens.size()));
    program_.calls.push_back(c);
  }

  std::string include_root_;
  std::set<std::string> seen_;
  Program program_;
};

// ---- the type mapping ---------------------------------------------------------------------------

// The MQL5 type of a C scalar (by value, or as a pointee).
const std::map<std::string, std::string> kCToMql5 = {
    {"int8_t", "char"}, {"uint8_t", "uchar"}, {"int16_t", "short"},  {"uint16_t", "ushort"},
    {"int32_t", "int"}, {"uint32_t", "uint"}, {"int64_t", "long"},   {"uint64_t", "ulong"},
    {"float", "float"}, {"double", "double"}, {"char16_t", "ushort"}};

// The element types one `void *` export needs an overload for: MQL5's numeric types.
const std::vector<std::string> kElementTypes = {"char", "uchar", "short", "ushort", "int",
                                                "uint", "long",  "ulong", "float",  "double"};

// MQL5's matrix and vector types and the size of their elements: MQL5 passes one to a DLL as a
// pointer to its elements (MQL5 Reference, Matrix and Vector Types).
const std::map<std::string, size_t> kMatrixElementSizes = {
    {"matrix", 8}, {"matrixf", 4}, {"vector", 8}, {"vectorf", 4}};

// A C parameter that tells the DLL the size of what a void pointer points to.
bool is_size_of_pointee(const CParam &p) {
  return p.type.pointers == 0 && p.type.base == "uint32_t" &&
         (p.name == "size" || p.name == "element_size");
}

std::string describe(const MqlFunction &f, size_t index) {
  return f.where() + ": " + f.signature() + ": parameter " + std::to_string(index + 1) + " (" +
         f.params[index].text() + ")";
}

// Why an MQL5 parameter cannot carry a C parameter, or nothing when it can.
std::optional<std::string> incompatible(const CParam &c, const MqlParam &m) {
  const CType &ct = c.type;
  if (m.pointer)
    return std::string("is a pointer; a DLL parameter is a value, a reference or an array");
  if (m.type == "string" && m.array_dims > 0)
    return std::string("is a string array, which MQL5 cannot pass to a DLL");
  if (ct.pointers == 0) {
    auto mapped = kCToMql5.find(ct.base);
    if (mapped == kCToMql5.end())
      return "maps to no MQL5 type (C " + ct.text() + ")";
    if (m.reference || m.array_dims > 0)
      return "must be passed by value for C " + ct.text();
    if (m.type != mapped->second)
      return "must be " + mapped->second + " for C " + ct.text();
    return std::nullopt;
  }
  if (ct.pointers > 1)
    return "cannot carry C " + ct.text();
  if (ct.base == "char16_t") {
    if (m.type != "string")
      return "must be a string for C " + ct.text();
    if (m.array_dims > 0)
      return std::string("must be one string");
    if (ct.is_const && m.reference)
      return "must be `string` (MQL5 passes a copy) for C " + ct.text();
    if (!ct.is_const && (!m.reference || m.is_const))
      return "must be `string &` (the DLL writes into it) for C " + ct.text();
    return std::nullopt;
  }
  if (!m.reference)
    return "must be a reference or an array for C " + ct.text();
  if (!ct.is_const && m.is_const)
    return "must not be const: the DLL writes through C " + ct.text();
  if (kMatrixElementSizes.count(m.type) != 0) {
    if (m.array_dims > 0)
      return "is an array of " + m.type + ", which MQL5 cannot pass to a DLL";
    if (ct.base != "void")
      return "is a " + m.type + "; C " + ct.text() + " takes one value or an array";
    return std::nullopt;
  }
  if (ct.base == "void") {
    if (std::find(kElementTypes.begin(), kElementTypes.end(), m.type) == kElementTypes.end() &&
        m.type != "bool" && m.type != "color" && m.type != "datetime")
      return "must have a numeric element type for C " + ct.text();
    return std::nullopt;
  }
  auto mapped = kCToMql5.find(ct.base);
  if (mapped == kCToMql5.end())
    return "maps to no MQL5 type (C " + ct.text() + ")";
  if (m.type != mapped->second)
    return "must be " + mapped->second + " & for C " + ct.text();
  return std::nullopt;
}

std::optional<std::string> incompatible_result(const CType &c, const std::string &m) {
  if (c.pointers != 0)
    return "returns C " + c.text() + ", which MQL5 cannot receive";
  if (c.base == "void")
    return m == "void" ? std::nullopt : std::optional<std::string>("must return void");
  auto mapped = kCToMql5.find(c.base);
  if (mapped == kCToMql5.end())
    return "returns C " + c.text() + ", which maps to no MQL5 type";
  if (m != mapped->second)
    return "must return " + mapped->second + " for C " + c.text();
  return std::nullopt;
}

std::string types_of(const MqlFunction &f) {
  std::string key = f.name + "(";
  for (const MqlParam &p : f.params)
    key += (p.is_const ? "const " : "") + p.type + (p.reference ? "&" : "") +
           std::string(static_cast<size_t>(p.array_dims) * 2, ' ') + ",";
  return key + ")";
}

} // namespace

// ---- public -------------------------------------------------------------------------------------

std::string CType::text() const {
  return (is_const ? "const " : "") + base + (pointers > 0 ? " " : "") +
         std::string(static_cast<size_t>(pointers), '*');
}

const CFunction *CHeader::find(const std::string &name) const {
  for (const CFunction &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

CHeader parse_c_header(const std::string &text, const std::string &file_name) {
  CHeader header;
  std::vector<Token> tokens = tokenize(text, file_name);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token &t = tokens[i];
    if (t.kind == TokenKind::Directive) {
      const auto &d = t.directive;
      bool function_like = d.size() >= 3 && d[2].is_punct("(") && !d[2].space_before;
      if (d.size() >= 3 && d[0].is_identifier("define") && d[1].text.rfind("MQLCL_", 0) == 0 &&
          !function_like) {
        if (auto value = integer_value(std::vector<Token>(d.begin() + 2, d.end())))
          header.constants[d[1].text] = *value;
      }
      continue;
    }
    if (!t.is_identifier("MQLCL_API"))
      continue;
    std::string where = at(file_name, t.line);
    size_t j = i + 1;
    CFunction f;
    f.line = t.line;
    f.result = parse_c_type(tokens, j, where);
    if (j + 1 >= tokens.size() || !tokens[j].is_identifier() || !tokens[j + 1].is_punct("("))
      throw SyntaxError(where + ": expected a function name and '('");
    f.name = tokens[j].text;
    size_t close = matching(tokens, j + 1);
    for (auto &part : split_top_level(tokens, j + 2, close)) {
      if (part.size() == 1 && part[0].is_identifier("void"))
        continue;
      size_t k = 0;
      CParam p;
      p.type = parse_c_type(part, k, where);
      if (k + 1 != part.size() || !part[k].is_identifier())
        throw SyntaxError(where + ": cannot read parameter \"" + join_tokens(part, 0) + "\" of " +
                          f.name);
      p.name = part[k].text;
      f.params.push_back(p);
    }
    header.functions.push_back(f);
    i = close;
  }
  return header;
}

std::string MqlParam::text() const {
  std::string s = (is_const ? "const " : "") + type + " " + (reference ? "&" : "") +
                  (pointer ? "*" : "") + name;
  for (int d = 0; d < array_dims; ++d)
    s += "[]";
  if (!default_text.empty())
    s += "=" + default_text;
  return s;
}

size_t MqlFunction::required() const {
  size_t n = 0;
  for (const MqlParam &p : params)
    n += p.default_text.empty() ? 1 : 0;
  return n;
}

std::string MqlFunction::signature() const {
  std::string s = name + "(";
  for (size_t i = 0; i < params.size(); ++i)
    s += (i ? "," : "") + params[i].text();
  return s + ")";
}

std::optional<long long> Define::integer() const {
  return integer_value(value);
}

Program load_program(const std::string &main_file, const std::string &include_root) {
  ProgramReader reader(include_root);
  reader.read_file_at(main_file);
  return reader.take();
}

Program parse_program(const std::string &text, const std::string &name,
                      const std::string &include_root) {
  ProgramReader reader(include_root);
  reader.read_text(text, name);
  return reader.take();
}

size_t element_size_of(const std::string &type) {
  auto matrix = kMatrixElementSizes.find(type);
  return matrix != kMatrixElementSizes.end() ? matrix->second : mql5_size_of(type);
}

size_t mql5_size_of(const std::string &type) {
  static const std::map<std::string, size_t> sizes = {
      {"bool", 1},  {"char", 1},     {"uchar", 1}, {"short", 2}, {"ushort", 2},
      {"int", 4},   {"uint", 4},     {"color", 4}, {"float", 4}, {"long", 8},
      {"ulong", 8}, {"datetime", 8}, {"double", 8}};
  auto it = sizes.find(type);
  return it == sizes.end() ? 0 : it->second;
}

std::vector<std::string> check_imports(const CHeader &header,
                                       const std::vector<MqlFunction> &imports,
                                       const std::set<std::string> &exports) {
  std::vector<std::string> problems;
  std::map<std::string, std::vector<const MqlFunction *>> overloads;
  std::set<std::string> seen_signatures;
  for (const MqlFunction &f : imports) {
    overloads[f.name].push_back(&f);
    std::string where = f.where() + ": " + f.signature();
    if (!seen_signatures.insert(types_of(f)).second)
      problems.push_back(where + ": the same parameter types are imported twice");
    if (exports.count(f.name) == 0)
      problems.push_back(where + ": the library exports no " + f.name + " (\"Cannot find '" +
                         f.name + "'\": the program would not start)");
    const CFunction *c = header.find(f.name);
    if (c == nullptr) {
      problems.push_back(where + ": mqlcl.h declares no " + f.name);
      continue;
    }
    if (auto why = incompatible_result(c->result, f.result))
      problems.push_back(where + ": " + *why);
    if (f.params.size() != c->params.size()) {
      problems.push_back(where + ": has " + std::to_string(f.params.size()) + " parameters; C " +
                         f.name + " has " + std::to_string(c->params.size()));
      continue;
    }
    const MqlParam *pointee = nullptr; // the MQL5 parameter behind C's void pointer
    bool defaults_started = false;
    for (size_t i = 0; i < f.params.size(); ++i) {
      const MqlParam &m = f.params[i];
      if (auto why = incompatible(c->params[i], m))
        problems.push_back(describe(f, i) + " " + *why);
      if (!m.default_text.empty())
        defaults_started = true;
      else if (defaults_started)
        problems.push_back(describe(f, i) +
                           " has no default after a parameter with one (MQL5 requires "
                           "defaults to be trailing)");
      if (!m.default_text.empty() && mql5_size_of(m.type) != 0 && !m.default_value)
        problems.push_back(describe(f, i) + " has a default that is not an integer constant");
      if (c->params[i].type.base == "void" && c->params[i].type.pointers == 1)
        pointee = &m;
    }
    // The size that travels with a void pointer is the element's size, by default.
    for (size_t i = 0; pointee != nullptr && i < f.params.size(); ++i) {
      if (!is_size_of_pointee(c->params[i]))
        continue;
      size_t expected = element_size_of(pointee->type);
      const MqlParam &m = f.params[i];
      if (!m.default_value || static_cast<size_t>(*m.default_value) != expected)
        problems.push_back(describe(f, i) + " must default to " + std::to_string(expected) +
                           ", sizeof(" + pointee->type + ")");
    }
  }
  for (const CFunction &c : header.functions) {
    auto found = overloads.find(c.name);
    if (found == overloads.end()) {
      problems.push_back("mqlcl.h:" + std::to_string(c.line) + ": " + c.name +
                         " has no #import declaration");
      continue;
    }
    bool takes_void_pointer = std::any_of(c.params.begin(), c.params.end(), [](const CParam &p) {
      return p.type.base == "void" && p.type.pointers == 1;
    });
    if (!takes_void_pointer) {
      if (found->second.size() > 1)
        problems.push_back(found->second[1]->where() + ": " + c.name +
                           " is imported more than once, but C takes no void pointer");
      continue;
    }
    for (const std::string &element : kElementTypes) {
      bool covered =
          std::any_of(found->second.begin(), found->second.end(), [&](const MqlFunction *f) {
            return std::any_of(f->params.begin(), f->params.end(),
                               [&](const MqlParam &p) { return p.reference && p.type == element; });
          });
      if (!covered)
        problems.push_back(found->second[0]->where() + ": " + c.name + " has no overload for " +
                           element);
    }
  }
  for (const std::string &symbol : exports)
    if (overloads.count(symbol) == 0 && symbol.rfind("CL", 0) == 0)
      problems.push_back("the library exports " + symbol + ", which no #import declares");
  return problems;
}

std::vector<std::string> check_constants(const CHeader &header, const std::vector<Define> &defines,
                                         const std::string &mqh_file) {
  std::vector<std::string> problems;
  std::map<std::string, const Define *> ours;
  for (const Define &d : defines) {
    if (fs::path(d.file).filename() != fs::path(mqh_file).filename())
      continue;
    ours[d.name] = &d;
    std::string where = at(d.file, d.line) + ": #define " + d.name;
    if (d.name.rfind("MQLCL_", 0) != 0)
      problems.push_back(where + " lacks the MQLCL_ prefix (MQL5 has built-in CL_* names with "
                                 "other values)");
    auto c = header.constants.find(d.name);
    if (c != header.constants.end() && d.integer() != c->second)
      problems.push_back(where + " is " + join_tokens(d.value, 0) + "; mqlcl.h has " +
                         std::to_string(c->second));
  }
  for (const auto &[name, value] : header.constants)
    if (ours.count(name) == 0)
      problems.push_back(mqh_file + ": no #define " + name + " (mqlcl.h: " + std::to_string(value) +
                         ")");
  return problems;
}

namespace {

// An argument MetaEditor lets a reference parameter take: a variable, an element of an array or
// a member (a, a[i], a.b, a[i][j]); not a literal, a cast, a call or any other expression.
bool is_variable(const std::vector<Token> &argument) {
  if (argument.empty() || !argument[0].is_identifier())
    return false;
  for (size_t i = 1; i < argument.size(); ++i) {
    if (argument[i].is_punct("[")) {
      int depth = 0;
      for (; i < argument.size(); ++i) {
        if (argument[i].is_punct("["))
          ++depth;
        else if (argument[i].is_punct("]") && --depth == 0)
          break;
      }
      if (i == argument.size())
        return false;
    } else if (argument[i].is_punct(".") && i + 1 < argument.size() &&
               argument[i + 1].is_identifier()) {
      ++i;
    } else {
      return false;
    }
  }
  return true;
}

// A literal or an expression for a parameter that every candidate taking that many arguments
// declares as a reference: "parameter passed as reference, variable expected", as MetaEditor
// says (MQL5 passes no temporary by reference).
void check_reference_arguments(const Call &c, const std::vector<const MqlFunction *> &candidates,
                               std::vector<std::string> &problems) {
  size_t count = c.arguments.size();
  for (size_t k = 0; k < count; ++k) {
    bool all_references = false;
    for (const MqlFunction *f : candidates) {
      if (f->required() > count || count > f->params.size())
        continue;
      if (!f->params[k].reference) {
        all_references = false;
        break;
      }
      all_references = true;
    }
    if (all_references && !is_variable(c.arguments[k]))
      problems.push_back(c.where() + ": " + c.name + "(): argument " + std::to_string(k + 1) +
                         " (" + join_tokens(c.arguments[k], 0) +
                         ") - parameter passed as reference, variable expected");
  }
}

} // namespace

std::vector<std::string> check_calls(const Program &program,
                                     const std::set<std::string> &builtins) {
  std::vector<std::string> problems = program.problems;
  std::map<std::string, std::vector<const MqlFunction *>> defined, imported;
  std::set<std::string> modules, macros;
  for (const MqlFunction &f : program.functions)
    defined[f.name].push_back(&f);
  for (const MqlFunction &f : program.imports) {
    imported[f.module + "::" + f.name].push_back(&f);
    imported[f.name].push_back(&f);
    modules.insert(f.module);
  }
  for (const Define &d : program.defines)
    if (d.function_like)
      macros.insert(d.name);
  auto accepts = [](const std::vector<const MqlFunction *> &candidates, size_t count) {
    return std::any_of(candidates.begin(), candidates.end(), [&](const MqlFunction *f) {
      return f->required() <= count && count <= f->params.size();
    });
  };
  for (const Call &c : program.calls) {
    std::string where = c.where() + ": ";
    size_t count = c.arguments.size();
    const std::vector<MqlFunction> *own_class = nullptr;
    if (auto found = program.classes.find(c.in_class); found != program.classes.end())
      own_class = &found->second;
    auto methods_named = [&](const std::vector<MqlFunction> &methods) {
      std::vector<const MqlFunction *> named;
      for (const MqlFunction &m : methods)
        if (m.name == c.name)
          named.push_back(&m);
      return named;
    };
    if (c.scope == "." && program.object_names.count(c.object) != 0) {
      for (const std::string &type : program.object_names.at(c.object)) {
        auto named = methods_named(program.classes.at(type));
        if (named.empty())
          problems.push_back(where + c.object + "." + c.name + "(): class " + type +
                             " declares no method " + c.name);
        else if (!accepts(named, count))
          problems.push_back(where + c.object + "." + c.name + "() with " + std::to_string(count) +
                             " arguments: no method of that name takes that many");
        else
          check_reference_arguments(c, named, problems);
      }
    } else if (c.scope.empty() && own_class != nullptr && !methods_named(*own_class).empty()) {
      if (!accepts(methods_named(*own_class), count))
        problems.push_back(where + c.name + "() with " + std::to_string(count) +
                           " arguments: no method of " + c.in_class + " takes that many");
    } else if (c.scope == ".") {
      auto types = program.matrix_names.find(c.object);
      if (types == program.matrix_names.end()) {
        problems.push_back(where + "." + c.name +
                           "(): a method call on what is not a matrix or vector name; not allowed");
        continue;
      }
      for (const std::string &type : types->second)
        if (builtins.count(type + "." + c.name) == 0)
          problems.push_back(where + c.object + "." + c.name + "(): " + type + "." + c.name +
                             " is not an MQL5 method in builtins.txt");
    } else if (c.scope == "::") {
      if (builtins.count(c.name) == 0)
        problems.push_back(where + "::" + c.name + "() is not an MQL5 built-in in builtins.txt");
    } else if (!c.scope.empty()) {
      auto found = imported.find(c.scope + "::" + c.name);
      if (modules.count(c.scope) == 0)
        problems.push_back(where + c.scope + "::" + c.name + "(): no module " + c.scope +
                           " is imported");
      else if (found == imported.end())
        problems.push_back(where + c.scope + "::" + c.name + "(): " + c.scope + " imports no " +
                           c.name);
      else if (!accepts(found->second, count))
        problems.push_back(where + c.scope + "::" + c.name + "() with " + std::to_string(count) +
                           " arguments: no imported overload takes that many");
      else
        check_reference_arguments(c, found->second, problems);
    } else if (imported.count(c.name) != 0) {
      problems.push_back(where + c.name +
                         "() calls an imported function without its module: "
                         "MQL5's built-in of that name wins; write " +
                         imported[c.name][0]->module + "::" + c.name + "()");
    } else if (defined.count(c.name) != 0) {
      if (!accepts(defined[c.name], count))
        problems.push_back(where + c.name + "() with " + std::to_string(count) +
                           " arguments: no definition takes that many");
      else
        check_reference_arguments(c, defined[c.name], problems);
    } else if (macros.count(c.name) == 0 && builtins.count(c.name) == 0) {
      problems.push_back(where + c.name +
                         "() is not defined, not imported and not an MQL5 built-in in "
                         "builtins.txt");
    }
  }
  return problems;
}

std::set<std::string> load_builtins(const std::string &path) {
  std::set<std::string> names;
  std::istringstream lines(read_file(path));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name;
    if (words >> name && name[0] != '#')
      names.insert(name);
  }
  return names;
}

} // namespace mql5check
