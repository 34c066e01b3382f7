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
const std::set<std::string> kTypeKeywords = {
    "void",   "bool",    "char",    "uchar",   "short",   "ushort", "int",      "uint",
    "long",   "ulong",   "float",   "double",  "string",  "color",  "datetime", "matrix",
    "vector", "matrixf", "vectorf", "matrixc", "vectorc", "complex"};
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
  if (i < tokens.size() && tokens[i].is_punct("<")) { // matrix<T>: the template's arguments
    size_t close = matching(tokens, i);
    if (close >= tokens.size())
      return std::nullopt;
    i = close + 1;
  }
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

// tokens[first, name_index] is "[template<...>] [static] type [CLASS::]name ( params )", the
// result type ending at result_end: returns the function, or a problem.
std::optional<MqlFunction> parse_function_header(const std::vector<Token> &tokens, size_t first,
                                                 size_t name_index, size_t result_end,
                                                 std::string &problem) {
  MqlFunction f;
  f.name = tokens[name_index].text;
  f.line = tokens[name_index].line;
  std::vector<std::string> result;
  for (size_t i = first; i < result_end; ++i) {
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

// The COpenCL class's handle getters and members: what a handle of the class is made of.
const std::set<std::string> kHandleGetters = {"GetContext", "GetProgram", "GetKernel"};
const std::set<std::string> kHandleMembers = {"m_context", "m_program", "m_kernels", "m_buffers"};
const char *const kOpenCLClass = "COpenCL";

class ProgramReader {
public:
  explicit ProgramReader(std::vector<std::string> include_roots)
      : include_roots_(std::move(include_roots)) {}

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

  // The file, after the files it includes (so that their classes and enums are known types).
  void read_text(const std::string &text, const std::string &name) {
    std::vector<Token> tokens;
    try {
      tokens = tokenize(text, name);
    } catch (const SyntaxError &e) {
      program_.problems.push_back(e.what());
      return;
    }
    size_t index = program_.files.size();
    program_.files.push_back(SourceFile{name, tokens, {}});
    for (const Token &t : tokens)
      if (t.kind == TokenKind::Directive && !t.directive.empty() &&
          t.directive[0].is_identifier("include"))
        include(t, name);
    std::set<std::string> own = type_names(tokens);
    program_.types.insert(own.begin(), own.end());
    program_.files[index].syntax = read_syntax(program_.files[index].tokens, program_.types);
    walk(program_.files[index]);
  }

  Program take() { return std::move(program_); }

private:
  void include(const Token &d, const std::string &file) {
    std::string where = at(file, d.line);
    std::string target = join_tokens(d.directive, 1);
    std::string resolved = resolve_include(d.directive, file, include_roots_);
    if (resolved.empty())
      program_.problems.push_back(where + ": #include " + target + " does not resolve (" +
                                  (include_roots_.empty() ? "" : include_roots_.front()) + ")");
    else
      read_file_at(resolved);
  }

  void directive(const Token &d, const std::string &file, std::string &import_module) {
    const std::vector<Token> &t = d.directive;
    if (t.empty() || !t[0].is_identifier())
      return;
    const std::string &kind = t[0].text;
    std::string where = at(file, d.line);
    if (kind == "import") {
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
        program_.globals[r.variable] = r.type;
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

  // The file's directives, functions, classes, declared names and calls.
  void walk(const SourceFile &source) {
    const std::vector<Token> &tokens = source.tokens;
    const FileSyntax &syntax = source.syntax;
    const std::string &file = source.path;
    // The #import module each token is in (empty outside import blocks).
    std::vector<std::string> module(tokens.size());
    std::string import_module;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i].kind == TokenKind::Directive)
        directive(tokens[i], file, import_module);
      module[i] = import_module;
    }
    if (!import_module.empty())
      program_.problems.push_back(file + ": an #import block is not closed by #import");
    for (const ClassSyntax &c : syntax.classes) {
      MqlClass &cls = program_.classes[c.name];
      cls.bases = c.bases;
      cls.file = file;
    }
    for (const FunctionSyntax &f : syntax.functions)
      function(tokens, f, file, module[f.name]);
    for (const Declarator &d : syntax.declarators)
      if (module[d.name].empty())
        declared(tokens, d);
    handle_variables(tokens, syntax);
    std::set<size_t> not_calls(syntax.member_initializers.begin(),
                               syntax.member_initializers.end());
    for (size_t i = 0; i < tokens.size(); ++i) {
      const Token &t = tokens[i];
      if (!t.is_identifier() || !module[i].empty())
        continue;
      if (t.text.size() > kMaxIdentifier)
        program_.problems.push_back(at(file, t.line) + ": identifier " + t.text + " has " +
                                    std::to_string(t.text.size()) + " characters; MQL5 allows 63");
      if (syntax.function_at[i] >= 0)
        continue; // a function's own name
      if (syntax.declarator_at[i] < 0)
        program_.identifiers.insert(t.text);
      bool before_paren = i + 1 < tokens.size() && tokens[i + 1].is_punct("(");
      if (before_paren && syntax.declarator_at[i] < 0 && not_calls.count(i) == 0 &&
          program_.classes.count(t.text) == 0) {
        int body = syntax.body_of[i];
        size_t before = program_.calls.size();
        call(tokens, i, file,
             body >= 0 ? syntax.functions[static_cast<size_t>(body)].class_name : std::string());
        if (program_.calls.size() > before && !program_.calls.back().object.empty())
          program_.calls.back().object_type =
              declared_type(source, program_.calls.back().object, body);
      }
    }
  }

  // The type `name` is declared with where the function `body` is: a parameter or local of it,
  // a member of its class (or of a base), or a global; empty when it is none of them.
  std::string declared_type(const SourceFile &source, const std::string &name, int body) const {
    const FileSyntax &syntax = source.syntax;
    for (const Declarator &d : syntax.declarators)
      if (body >= 0 && d.function == body && source.tokens[d.name].text == name)
        return d.type_name;
    if (body >= 0)
      for (std::vector<std::string> todo{syntax.functions[static_cast<size_t>(body)].class_name};
           !todo.empty();) {
        auto found = program_.classes.find(todo.back());
        todo.pop_back();
        if (found == program_.classes.end())
          continue;
        if (auto field = found->second.fields.find(name); field != found->second.fields.end())
          return field->second;
        todo.insert(todo.end(), found->second.bases.begin(), found->second.bases.end());
      }
    auto global = program_.globals.find(name);
    return global == program_.globals.end() ? std::string() : global->second;
  }

  void function(const std::vector<Token> &tokens, const FunctionSyntax &f, const std::string &file,
                const std::string &module) {
    if (f.constructor)
      return; // constructors and destructors are not called by name
    std::string problem;
    size_t result_end = f.qualifier != 0 ? f.qualifier : f.name;
    auto parsed = parse_function_header(tokens, f.first, f.name, result_end, problem);
    if (!parsed) {
      program_.problems.push_back(at(file, tokens[f.name].line) + ": " + problem);
      return;
    }
    parsed->file = file;
    parsed->module = module;
    if (!module.empty())
      program_.imports.push_back(*parsed);
    else if (f.class_name.empty())
      program_.functions.push_back(*parsed);
    else if (f.in_class_body || !has_method(f.class_name, *parsed))
      program_.classes[f.class_name].methods.push_back(*parsed);
  }

  bool has_method(const std::string &class_name, const MqlFunction &f) const {
    auto found = program_.classes.find(class_name);
    if (found == program_.classes.end())
      return false;
    return std::any_of(found->second.methods.begin(), found->second.methods.end(),
                       [&](const MqlFunction &m) {
                         return m.name == f.name && m.params.size() == f.params.size();
                       });
  }

  void declared(const std::vector<Token> &tokens, const Declarator &d) {
    static const std::set<std::string> kMatrixTypes = {"matrix", "matrixf", "matrixc",
                                                       "vector", "vectorf", "vectorc"};
    const std::string &name = tokens[d.name].text;
    if (kMatrixTypes.count(d.type_name) != 0 && d.array_dims == 0)
      program_.matrix_names[name].insert(d.type_name);
    if (program_.classes.count(d.type_name) != 0 && d.array_dims == 0)
      program_.object_names[name].insert(d.type_name);
    if (d.scope == DeclScope::Member)
      program_.classes[d.in_class].fields[name] = d.type_name;
    if (d.scope == DeclScope::File)
      program_.globals[name] = d.type_name;
  }

  // Names that hold one of the COpenCL class's handles: initialized or assigned from one.
  void handle_variables(const std::vector<Token> &tokens, const FileSyntax &syntax) {
    for (const Declarator &d : syntax.declarators)
      if (d.initializer != 0 &&
          holds_class_handle(program_, tokens, d.initializer + 1, d.end, d.in_class))
        program_.class_handle_names.insert(tokens[d.name].text);
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      if (!tokens[i].is_identifier() || !tokens[i + 1].is_punct("=") ||
          (i > 0 && tokens[i - 1].is_punct(".")))
        continue;
      size_t end = i + 2;
      while (end < tokens.size() && !tokens[end].is_punct(";"))
        ++end;
      int body = syntax.body_of[i];
      std::string in_class =
          body >= 0 ? syntax.functions[static_cast<size_t>(body)].class_name : std::string();
      if (holds_class_handle(program_, tokens, i + 2, end, in_class))
        program_.class_handle_names.insert(tokens[i].text);
    }
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

  std::vector<std::string> include_roots_;
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
    {"matrix", 8}, {"matrixf", 4}, {"matrixc", 16}, {"vector", 8}, {"vectorf", 4}, {"vectorc", 16}};

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

Program load_program(const std::string &main_file, const std::vector<std::string> &include_roots) {
  ProgramReader reader(include_roots);
  reader.read_file_at(main_file);
  return reader.take();
}

Program load_program(const std::string &main_file, const std::string &include_root) {
  return load_program(main_file, std::vector<std::string>{include_root});
}

Program parse_program(const std::string &text, const std::string &name,
                      const std::string &include_root) {
  ProgramReader reader({include_root});
  reader.read_text(text, name);
  return reader.take();
}

std::string resolve_include(const std::vector<Token> &directive, const std::string &file,
                            const std::vector<std::string> &include_roots) {
  std::string target = join_tokens(directive, 1);
  std::vector<fs::path> candidates;
  if (target.size() > 2 && target.front() == '<' && target.back() == '>')
    target = target.substr(1, target.size() - 2);
  else if (directive.size() == 2 && directive[1].kind == TokenKind::String) {
    target = string_value(directive[1]);
    candidates.push_back(fs::path(file).parent_path());
  } else
    return "";
  std::replace(target.begin(), target.end(), '\\', '/');
  for (const std::string &root : include_roots)
    candidates.push_back(root);
  for (const fs::path &folder : candidates)
    if (fs::is_regular_file(folder / target))
      return (folder / target).string();
  return "";
}

bool derives_from(const Program &program, const std::string &class_name, const std::string &base) {
  std::set<std::string> seen;
  std::vector<std::string> todo{class_name};
  while (!todo.empty()) {
    std::string name = todo.back();
    todo.pop_back();
    if (name == base)
      return true;
    auto found = program.classes.find(name);
    if (found == program.classes.end() || !seen.insert(name).second)
      continue;
    todo.insert(todo.end(), found->second.bases.begin(), found->second.bases.end());
  }
  return false;
}

std::vector<const MqlFunction *>
class_methods(const Program &program, const std::string &class_name, const std::string &name) {
  std::vector<const MqlFunction *> methods;
  std::set<std::string> seen;
  std::vector<std::string> todo{class_name};
  while (!todo.empty()) {
    std::string current = todo.back();
    todo.pop_back();
    auto found = program.classes.find(current);
    if (found == program.classes.end() || !seen.insert(current).second)
      continue;
    for (const MqlFunction &m : found->second.methods)
      if (m.name == name)
        methods.push_back(&m);
    todo.insert(todo.end(), found->second.bases.begin(), found->second.bases.end());
  }
  return methods;
}

bool holds_class_handle(const Program &program, const std::vector<Token> &tokens, size_t first,
                        size_t last, const std::string &in_class) {
  bool inside = !in_class.empty() && derives_from(program, in_class, kOpenCLClass);
  for (size_t k = first; k < last && k < tokens.size(); ++k) {
    const Token &t = tokens[k];
    if (!t.is_identifier())
      continue;
    bool member = k > 0 && tokens[k - 1].is_punct(".");
    if (kHandleGetters.count(t.text) != 0 && k + 1 < tokens.size() && tokens[k + 1].is_punct("(")) {
      if (!member && inside)
        return true;
      if (member && k >= 2 && tokens[k - 2].is_identifier("this") && inside)
        return true;
      if (member && k >= 2) {
        auto types = program.object_names.find(tokens[k - 2].text);
        if (types != program.object_names.end())
          for (const std::string &type : types->second)
            if (derives_from(program, type, kOpenCLClass))
              return true;
      }
    }
    if (!member && inside && kHandleMembers.count(t.text) != 0)
      return true;
    if (!member && program.class_handle_names.count(t.text) != 0)
      return true;
  }
  return false;
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
    // A void pointer typed by a GEMM element type (CLMatMul: MQLCL_GEMM_FLOAT or _DOUBLE) takes
    // MQL5's float and double matrices; any other, every element type.
    const bool gemm_typed = std::any_of(c.params.begin(), c.params.end(),
                                        [](const CParam &p) { return p.name == "element_type"; });
    const std::vector<std::string> gemm_types = {"matrixf", "matrix"};
    for (const std::string &element : gemm_typed ? gemm_types : kElementTypes) {
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

namespace {

const std::set<std::string> kMatrixTypeNames = {"matrix", "matrixf", "matrixc",
                                                "vector", "vectorf", "vectorc"};

// Every call of a program against what it may call (check_calls).
class CallChecker {
public:
  CallChecker(const Program &program, const std::set<std::string> &builtins)
      : program_(program), builtins_(builtins), problems_(program.problems) {
    for (const MqlFunction &f : program.functions)
      defined_[f.name].push_back(&f);
    for (const MqlFunction &f : program.imports) {
      imported_[f.module + "::" + f.name].push_back(&f);
      imported_[f.name].push_back(&f);
      modules_.insert(f.module);
    }
    for (const Define &d : program.defines)
      if (d.function_like)
        macros_.insert(d.name);
  }

  std::vector<std::string> run() {
    for (const Call &c : program_.calls) {
      if (c.scope == ".")
        method_call(c);
      else if (c.scope == "::")
        global_call(c);
      else if (!c.scope.empty())
        scoped_call(c);
      else
        plain_call(c);
    }
    return problems_;
  }

private:
  static bool accepts(const std::vector<const MqlFunction *> &candidates, size_t count) {
    return std::any_of(candidates.begin(), candidates.end(), [&](const MqlFunction *f) {
      return f->required() <= count && count <= f->params.size();
    });
  }

  void report(const Call &c, const std::string &what) {
    problems_.push_back(c.where() + ": " + what);
  }

  // A call of `candidates`: the argument count one takes, and variables for references.
  void candidates_take(const Call &c, const std::vector<const MqlFunction *> &candidates,
                       const std::string &what) {
    if (!accepts(candidates, c.arguments.size()))
      report(c, what + " with " + std::to_string(c.arguments.size()) + " arguments: no " +
                    (c.scope == "." || !c.in_class.empty() ? "method" : "definition") +
                    " of that name takes that many");
    else
      check_reference_arguments(c, candidates, problems_);
  }

  bool matrix_method(const std::string &name) const {
    return std::any_of(kMatrixTypeNames.begin(), kMatrixTypeNames.end(),
                       [&](const std::string &type) { return builtins_.count(type + "." + name); });
  }
  bool some_class_declares(const std::string &name) const {
    return std::any_of(program_.classes.begin(), program_.classes.end(), [&](const auto &cls) {
      return !class_methods(program_, cls.first, name).empty();
    });
  }

  // obj.F(), this.F(), a[i].F(), f().G(): the class's methods (and its bases'), or the methods
  // of MQL5's matrix and vector types that builtins.txt lists.
  void method_call(const Call &c) {
    if (c.object == "this" && !c.in_class.empty()) {
      auto named = class_methods(program_, c.in_class, c.name);
      if (named.empty())
        report(c, "this." + c.name + "(): class " + c.in_class + " declares no method " + c.name);
      else
        candidates_take(c, named, "this." + c.name + "()");
      return;
    }
    if (!c.object_type.empty()) {
      object_method(c, c.object_type);
      return;
    }
    if (auto objects = program_.object_names.find(c.object);
        objects != program_.object_names.end()) {
      for (const std::string &type : objects->second) {
        auto named = class_methods(program_, type, c.name);
        if (named.empty())
          report(c,
                 c.object + "." + c.name + "(): class " + type + " declares no method " + c.name);
        else
          candidates_take(c, named, c.object + "." + c.name + "()");
      }
      return;
    }
    if (auto types = program_.matrix_names.find(c.object); types != program_.matrix_names.end()) {
      for (const std::string &type : types->second)
        if (builtins_.count(type + "." + c.name) == 0)
          report(c, c.object + "." + c.name + "(): " + type + "." + c.name +
                        " is not an MQL5 method in builtins.txt");
      return;
    }
    // On an element or a call's result, whose type is not read here: some class or matrix
    // type must have the method.
    if (c.object.empty() && (some_class_declares(c.name) || matrix_method(c.name)))
      return;
    report(c,
           "." + c.name + "(): a method call on what is not a matrix or vector name; not allowed");
  }

  // obj.F() where obj is declared with `type`: a class's method, or a matrix or vector's.
  void object_method(const Call &c, const std::string &type) {
    if (program_.classes.count(type) != 0) {
      auto named = class_methods(program_, type, c.name);
      if (named.empty())
        report(c, c.object + "." + c.name + "(): class " + type + " declares no method " + c.name);
      else
        candidates_take(c, named, c.object + "." + c.name + "()");
    } else if (kMatrixTypeNames.count(type) != 0) {
      if (builtins_.count(type + "." + c.name) == 0)
        report(c, c.object + "." + c.name + "(): " + type + "." + c.name +
                      " is not an MQL5 method in builtins.txt");
    } else if (program_.types.count(type) == 0) { // a template parameter's may be anything
      report(c, "." + c.name + "(): a method call on what is not a matrix, vector or object (" +
                    c.object + " is " + type + "); not allowed");
    }
  }

  // ::F(): a global function of the program's, or a built-in.
  void global_call(const Call &c) {
    if (auto found = defined_.find(c.name); found != defined_.end())
      candidates_take(c, found->second, "::" + c.name + "()");
    else if (builtins_.count(c.name) == 0)
      report(c, "::" + c.name + "() is not an MQL5 built-in in builtins.txt");
  }

  // CLASS::F() (a static method, or a base class's), matrix::Zeros(), module::F() of an import.
  void scoped_call(const Call &c) {
    if (program_.classes.count(c.scope) != 0) {
      auto named = class_methods(program_, c.scope, c.name);
      if (named.empty())
        report(c,
               c.scope + "::" + c.name + "(): class " + c.scope + " declares no method " + c.name);
      else
        candidates_take(c, named, c.scope + "::" + c.name + "()");
      return;
    }
    if (kMatrixTypeNames.count(c.scope) != 0) {
      if (builtins_.count(c.scope + "." + c.name) == 0)
        report(c, c.scope + "::" + c.name + "(): " + c.scope + "." + c.name +
                      " is not an MQL5 method in builtins.txt");
      return;
    }
    auto found = imported_.find(c.scope + "::" + c.name);
    if (modules_.count(c.scope) == 0)
      report(c, c.scope + "::" + c.name + "(): no module " + c.scope + " is imported");
    else if (found == imported_.end())
      report(c, c.scope + "::" + c.name + "(): " + c.scope + " imports no " + c.name);
    else if (!accepts(found->second, c.arguments.size()))
      report(c, c.scope + "::" + c.name + "() with " + std::to_string(c.arguments.size()) +
                    " arguments: no imported overload takes that many");
    else
      check_reference_arguments(c, found->second, problems_);
  }

  // F(): a method of the class whose method holds the call (or of its bases), a function of
  // the program's (or a built-in it overloads), a macro or a built-in; never an import without
  // its module, which MQL5's built-in of that name would take.
  void plain_call(const Call &c) {
    if (!c.in_class.empty()) {
      auto named = class_methods(program_, c.in_class, c.name);
      if (!named.empty()) {
        if (!accepts(named, c.arguments.size()))
          report(c, c.name + "() with " + std::to_string(c.arguments.size()) +
                        " arguments: no method of " + c.in_class + " takes that many");
        return;
      }
    }
    if (auto found = imported_.find(c.name); found != imported_.end()) {
      import_without_module(c, *found->second.front());
      return;
    }
    if (auto found = defined_.find(c.name); found != defined_.end()) {
      std::vector<std::string> own;
      if (!accepts(found->second, c.arguments.size()))
        own.push_back(c.where() + ": " + c.name + "() with " + std::to_string(c.arguments.size()) +
                      " arguments: no definition takes that many");
      else
        check_reference_arguments(c, found->second, own);
      if (builtins_.count(c.name) == 0) // else the built-in of that name takes the call
        problems_.insert(problems_.end(), own.begin(), own.end());
      return;
    }
    if (macros_.count(c.name) == 0 && builtins_.count(c.name) == 0)
      report(c, c.name + "() is not defined, not imported and not an MQL5 built-in in "
                         "builtins.txt");
  }

  void import_without_module(const Call &c, const MqlFunction &import) {
    for (size_t k = 0; k < c.arguments.size(); ++k) {
      const std::vector<Token> &argument = c.arguments[k];
      if (holds_class_handle(program_, argument, 0, argument.size(), c.in_class)) {
        report(c, c.name + "(): argument " + std::to_string(k + 1) + " (" +
                      join_tokens(argument, 0) +
                      ") is a handle of the COpenCL class, which is mqlcl.dll's: MQL5's "
                      "built-in " +
                      c.name +
                      " never issued it, so the terminal answers -1 or fails. Ask the class "
                      "(GetKernelInfoInteger, GetDeviceInfoInteger, GetBufferInfoInteger, ...) "
                      "or call " +
                      import.module + "::" + c.name + " with MQLCL_* constants");
        return;
      }
    }
    report(c, c.name +
                  "() calls an imported function without its module: MQL5's built-in of that "
                  "name wins; write " +
                  import.module + "::" + c.name + "()");
  }

  const Program &program_;
  const std::set<std::string> &builtins_;
  std::vector<std::string> problems_;
  std::map<std::string, std::vector<const MqlFunction *>> defined_, imported_;
  std::set<std::string> modules_, macros_;
};

} // namespace

std::vector<std::string> check_calls(const Program &program,
                                     const std::set<std::string> &builtins) {
  return CallChecker(program, builtins).run();
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
