#include "mql5_syntax.hpp"

namespace mql5check {

namespace {

const std::set<std::string> kBuiltinTypes = {
    "void",   "bool",    "char",    "uchar",   "short",   "ushort", "int",      "uint",
    "long",   "ulong",   "float",   "double",  "string",  "color",  "datetime", "matrix",
    "vector", "matrixf", "vectorf", "matrixc", "vectorc", "complex"};
const std::set<std::string> kStatementWords = {
    "return",   "if",       "else",     "for",      "while",   "do",        "switch",
    "case",     "default",  "break",    "continue", "new",     "delete",    "sizeof",
    "typename", "template", "operator", "goto",     "this",    "true",      "false",
    "class",    "struct",   "enum",     "public",   "private", "protected", "typedef",
    "static",   "const",    "input",    "sinput",   "extern",  "virtual",   "NULL"};
const std::set<std::string> kSpecifiers = {"static", "const",  "input",
                                           "sinput", "extern", "virtual"};

class SyntaxReader {
public:
  SyntaxReader(const std::vector<Token> &tokens, const std::set<std::string> &types)
      : t_(tokens), types_(types) {
    s_.declarator_at.assign(t_.size(), -1);
    s_.function_at.assign(t_.size(), -1);
    s_.body_of.assign(t_.size(), -1);
  }

  FileSyntax run() {
    std::vector<Scope> stack{Scope{Kind::File, "", -1, -1}};
    bool start = true;
    for (size_t i = 0; i < t_.size();) {
      const Token &tok = t_[i];
      if (tok.kind == TokenKind::Directive) {
        ++i;
        continue;
      }
      Kind kind = stack.back().kind;
      if (start && kind != Kind::Enum) {
        start = false;
        size_t next = statement(i, stack.back());
        if (next != i) {
          i = next;
          continue;
        }
      }
      if (tok.is_identifier("for") && at(i + 1).is_punct("(") &&
          (kind == Kind::Function || kind == Kind::Block)) {
        i = declaration(i + 2, i + 2, stack.back());
        continue;
      }
      if (tok.is_punct("{")) {
        stack.push_back(
            pending_.kind != Kind::File && pending_open_ == i
                ? pending_
                : Scope{Kind::Block, stack.back().class_name, stack.back().function, -1});
        pending_ = Scope{};
        start = true;
      } else if (tok.is_punct("}")) {
        if (stack.size() > 1) {
          close(stack.back(), i);
          stack.pop_back();
        }
        start = true;
      } else if (tok.is_punct(";")) {
        start = true;
      } else if (tok.is_punct(":") && i > 0 &&
                 (at(i - 1).is_identifier("public") || at(i - 1).is_identifier("private") ||
                  at(i - 1).is_identifier("protected"))) {
        start = true;
      }
      ++i;
    }
    mark_bodies();
    return std::move(s_);
  }

private:
  enum class Kind { File, Class, Enum, Function, Block };
  struct Scope {
    Kind kind = Kind::File;
    std::string class_name; // the class whose body, or whose method's body, this is
    int function = -1;      // the function whose body holds it
    int class_index = -1;   // for a class body: its ClassSyntax
  };

  const Token &at(size_t i) const {
    static const Token end{TokenKind::Punct, "", 0, false, {}};
    return i < t_.size() ? t_[i] : end;
  }
  bool is_type(const std::string &name) const {
    return kBuiltinTypes.count(name) != 0 || types_.count(name) != 0;
  }

  void close(const Scope &scope, size_t brace) {
    if (scope.kind == Kind::Function && scope.function >= 0 &&
        s_.functions[static_cast<size_t>(scope.function)].body_close == 0)
      s_.functions[static_cast<size_t>(scope.function)].body_close = brace;
    if (scope.kind == Kind::Class && scope.class_index >= 0)
      s_.classes[static_cast<size_t>(scope.class_index)].body_close = brace;
  }

  void mark_bodies() {
    for (size_t f = 0; f < s_.functions.size(); ++f) {
      const FunctionSyntax &fn = s_.functions[f];
      for (size_t k = fn.body_open; fn.body_open != 0 && k <= fn.body_close && k < t_.size(); ++k)
        s_.body_of[k] = static_cast<int>(f);
    }
  }

  // The closing bracket of the one at `open`: ( [ { and, for template arguments, < (">>"
  // closes two); t_.size() when there is none.
  size_t match(size_t open) const {
    const std::string &o = t_[open].text;
    if (o == "<")
      return match_angle(open);
    std::string c = o == "(" ? ")" : o == "[" ? "]" : "}";
    int depth = 0;
    for (size_t i = open; i < t_.size(); ++i) {
      if (t_[i].kind != TokenKind::Punct)
        continue;
      if (t_[i].text == o)
        ++depth;
      else if (t_[i].text == c && --depth == 0)
        return i;
    }
    return t_.size();
  }
  size_t match_angle(size_t open) const {
    int depth = 0;
    for (size_t i = open; i < t_.size(); ++i) {
      const Token &k = t_[i];
      if (k.is_punct("<"))
        ++depth;
      else if (k.is_punct(">"))
        depth -= 1;
      else if (k.is_punct(">>"))
        depth -= 2;
      else if (k.is_punct(";") || k.is_punct("{") || k.is_punct("}") || k.is_punct("("))
        return t_.size();
      if (depth <= 0)
        return i;
    }
    return t_.size();
  }
  // Past an initializer or default value: the ',' ';' or unmatched ')' '}' that ends it.
  size_t skip_expression(size_t i) const {
    int depth = 0;
    for (; i < t_.size(); ++i) {
      const Token &k = t_[i];
      if (k.kind != TokenKind::Punct)
        continue;
      if (k.text == "(" || k.text == "[" || k.text == "{")
        ++depth;
      else if (k.text == ")" || k.text == "]" || k.text == "}") {
        if (depth-- == 0)
          return i;
      } else if ((k.text == "," || k.text == ";") && depth == 0)
        return i;
    }
    return i;
  }

  // At the start of a statement: a class, an enum, a function or a declaration, read up to the
  // '{' that opens its body or the token after it; `i` itself when it is none of them.
  size_t statement(size_t i, const Scope &scope) {
    size_t j = i;
    bool is_template = false;
    if (at(j).is_identifier("template") && at(j + 1).is_punct("<")) {
      size_t close = match_angle(j + 1);
      if (close >= t_.size())
        return i;
      j = close + 1;
      is_template = true;
    }
    if ((at(j).is_identifier("class") || at(j).is_identifier("struct")) &&
        at(j + 1).is_identifier())
      return class_head(i, j, is_template);
    if (at(j).is_identifier("enum")) {
      size_t k = j + 1;
      while (k < t_.size() && !at(k).is_punct("{") && !at(k).is_punct(";"))
        ++k;
      if (at(k).is_punct("{"))
        expect(k, Scope{Kind::Enum, scope.class_name, scope.function, -1});
      return k;
    }
    if (at(j).is_identifier("typedef")) {
      while (j < t_.size() && !at(j).is_punct(";"))
        ++j;
      return j;
    }
    return declaration(i, j, scope);
  }

  size_t class_head(size_t first, size_t keyword, bool is_template) {
    ClassSyntax c;
    c.name = at(keyword + 1).text;
    c.keyword = first;
    c.is_template = is_template;
    size_t k = keyword + 2;
    if (at(k).is_punct(";"))
      return k; // a forward declaration
    if (at(k).is_punct(":")) {
      for (++k; k < t_.size() && !at(k).is_punct("{") && !at(k).is_punct(";"); ++k) {
        if (at(k).is_punct("<")) {
          k = match_angle(k);
          continue;
        }
        const Token &b = at(k);
        if (b.is_identifier() && b.text != "public" && b.text != "protected" &&
            b.text != "private" && b.text != "virtual")
          c.bases.push_back(b.text);
      }
    }
    if (!at(k).is_punct("{"))
      return k;
    c.body_open = k;
    s_.classes.push_back(c);
    expect(k, Scope{Kind::Class, c.name, -1, static_cast<int>(s_.classes.size() - 1)});
    return k;
  }

  void expect(size_t brace, Scope scope) {
    pending_ = std::move(scope);
    pending_open_ = brace;
  }

  // [specifiers] TYPE declarator {, declarator} ; where a declarator is a variable (with its
  // array dimensions, initializer or constructor arguments) or a function.
  size_t declaration(size_t first, size_t j, const Scope &scope) {
    bool is_const = false;
    for (; kSpecifiers.count(at(j).text) != 0 && at(j).is_identifier(); ++j)
      is_const = is_const || at(j).text == "const";
    if (scope.kind == Kind::Class) { // NAME( or ~NAME( in a class body: constructor, destructor
      size_t name = at(j).is_punct("~") ? j + 1 : j;
      if (at(name).is_identifier(scope.class_name.c_str()) && at(name + 1).is_punct("("))
        return function(first, name, scope.class_name, 0, true, true);
    }
    if (scope.kind == Kind::File && at(j).is_identifier() && at(j + 1).is_punct("::")) {
      size_t name = at(j + 2).is_punct("~") ? j + 3 : j + 2;
      if (at(name).is_identifier(at(j).text.c_str()) && at(name + 1).is_punct("("))
        return function(first, name, at(j).text, j, true, false); // CLASS::CLASS(...) outside
    }
    if (!at(j).is_identifier() || is_statement_word(at(j).text))
      return first;
    size_t type = j, type_end = j + 1;
    if (at(type_end).is_punct("<") && is_type(at(type).text)) {
      size_t close = match_angle(type_end);
      if (close >= t_.size())
        return first;
      type_end = close + 1;
    }
    size_t k = type_end;
    while (at(k).is_punct("&") || at(k).is_punct("*"))
      ++k;
    if (!at(k).is_identifier() || is_statement_word(at(k).text))
      return first;
    static const std::set<std::string> kAfterName = {";", "=", ",", "[", ")", "("};
    if (k > type_end && !is_type(at(type).text) && kAfterName.count(at(k + 1).text) == 0)
      return first; // a * b
    Declarator d;
    d.specifiers = first;
    d.type = type;
    d.type_end = type_end;
    d.type_name = at(type).text;
    d.is_const = is_const;
    d.scope = scope.kind == Kind::File    ? DeclScope::File
              : scope.kind == Kind::Class ? DeclScope::Member
                                          : DeclScope::Local;
    d.function = scope.function;
    d.in_class = scope.class_name;
    for (k = type_end;; ++k) {
      size_t next = declarator(first, k, d, scope);
      if (!at(next).is_punct(","))
        return next;
      k = next;
      d.first = false;
    }
  }

  // One declarator from `k` (its & or *, or its name): records it, returns the token after it.
  size_t declarator(size_t first, size_t k, Declarator d, const Scope &scope) {
    d.reference = d.pointer = false;
    for (; at(k).is_punct("&") || at(k).is_punct("*"); ++k)
      (at(k).text == "&" ? d.reference : d.pointer) = true;
    if (!at(k).is_identifier())
      return k;
    size_t name = k;
    size_t after = name + 1;
    if (at(after).is_punct("<") && at(match_angle(after) + 1).is_punct("::"))
      after = match_angle(after) + 1;
    if (at(after).is_punct("::")) { // TYPE CLASS::NAME(...): a method defined outside its class
      size_t method = at(after + 1).is_punct("~") ? after + 2 : after + 1;
      if (at(method).is_identifier() && at(method + 1).is_punct("("))
        return function(first, method, at(name).text, name, false, false);
      size_t end = skip_expression(after);
      s_.member_definitions.push_back(MemberDefinition{first, name, end});
      return end; // a static member's definition
    }
    d.name = name;
    d.end = name + 1;
    if (at(name + 1).is_punct("(")) {
      bool declares_functions = scope.kind == Kind::File || scope.kind == Kind::Class;
      if (declares_functions && parameter_list(name + 1))
        return function(first, name, scope.kind == Kind::Class ? scope.class_name : "", 0, false,
                        scope.kind == Kind::Class);
      d.initializer = name + 1; // TYPE name(arguments): constructor arguments
      k = match(name + 1) + 1;
    } else {
      k = name + 1;
      if (at(k).is_punct("["))
        d.dims_first = k;
      for (; at(k).is_punct("["); k = match(k) + 1)
        ++d.array_dims;
      if (at(k).is_punct("=")) {
        d.initializer = k;
        k = skip_expression(k + 1);
      }
    }
    d.end = k;
    record(d);
    return k;
  }

  void record(const Declarator &d) {
    s_.declarator_at[d.name] = static_cast<int>(s_.declarators.size());
    s_.declarators.push_back(d);
  }

  // Whether (...) at `open` lists parameters (a function) rather than constructor arguments:
  // empty, `void`, or each part starting with a type.
  bool parameter_list(size_t open) const {
    size_t close = match(open);
    if (close >= t_.size())
      return false;
    if (at(close + 1).is_punct("{") || at(close + 1).is_identifier("const"))
      return true;
    int depth = 0;
    bool part_start = true;
    for (size_t i = open + 1; i < close; ++i) {
      const Token &k = t_[i];
      if (part_start) {
        size_t type = k.is_identifier("const") ? i + 1 : i;
        const Token &tt = at(type);
        bool typed = tt.is_identifier() && !is_statement_word(tt.text) &&
                     (is_type(tt.text) || at(type + 1).is_identifier() ||
                      at(type + 1).is_punct("&") || at(type + 1).is_punct("*"));
        if (!typed)
          return false;
        part_start = false;
      }
      if (k.is_punct("(") || k.is_punct("[") || k.is_punct("{"))
        ++depth;
      else if (k.is_punct(")") || k.is_punct("]") || k.is_punct("}"))
        --depth;
      else if (k.is_punct(",") && depth == 0)
        part_start = true;
    }
    return true;
  }

  size_t function(size_t first, size_t name, const std::string &class_name, size_t qualifier,
                  bool constructor, bool in_class_body) {
    FunctionSyntax f;
    f.first = first;
    f.name = name;
    f.open = name + 1;
    f.close = match(name + 1);
    f.class_name = class_name;
    f.qualifier = qualifier;
    f.constructor = constructor;
    f.in_class_body = in_class_body;
    if (f.close >= t_.size())
      return name + 1;
    int index = static_cast<int>(s_.functions.size());
    s_.function_at[name] = index;
    s_.functions.push_back(f);
    parameters(f.open, f.close, index);
    size_t k = f.close + 1;
    if (at(k).is_identifier("const"))
      ++k;
    if (at(k).is_punct("=")) // virtual f()=0;
      return skip_expression(k + 1);
    if (at(k).is_punct(":")) // a constructor's member initializers
      while (k < t_.size() && !at(k).is_punct("{") && !at(k).is_punct(";")) {
        if (at(k).is_identifier() && at(k + 1).is_punct("(") &&
            (at(k - 1).is_punct(":") || at(k - 1).is_punct(",")))
          s_.member_initializers.push_back(k);
        k = at(k).is_punct("(") ? match(k) + 1 : k + 1;
      }
    if (at(k).is_punct("{")) {
      s_.functions[static_cast<size_t>(index)].body_open = k;
      expect(k, Scope{Kind::Function, class_name, index, -1});
    }
    return k;
  }

  // [const] TYPE [<...>] [&|*] [name] {[...]} [= default], for each part of a parameter list.
  void parameters(size_t open, size_t close, int function) {
    size_t part = open + 1;
    for (size_t i = open + 1; i <= close; ++i) {
      if (at(i).is_punct("(") || at(i).is_punct("[") || at(i).is_punct("{")) {
        i = match(i);
        continue;
      }
      if (!(at(i).is_punct(",") || i == close))
        continue;
      parameter(part, i, function);
      part = i + 1;
    }
  }
  void parameter(size_t first, size_t end, int function) {
    Declarator d;
    d.scope = DeclScope::Parameter;
    d.function = function;
    d.in_class = s_.functions[static_cast<size_t>(function)].class_name;
    d.specifiers = first;
    size_t k = first;
    if (at(k).is_identifier("const")) {
      d.is_const = true;
      ++k;
    }
    if (k >= end || !at(k).is_identifier())
      return;
    d.type = k;
    d.type_name = at(k).text;
    d.type_end = k + 1;
    if (at(d.type_end).is_punct("<"))
      d.type_end = match_angle(d.type_end) + 1;
    for (k = d.type_end; k < end && (at(k).is_punct("&") || at(k).is_punct("*")); ++k)
      (at(k).text == "&" ? d.reference : d.pointer) = true;
    if (k >= end || !at(k).is_identifier())
      return; // unnamed
    d.name = k++;
    if (at(k).is_punct("["))
      d.dims_first = k;
    for (; k < end && at(k).is_punct("["); k = match(k) + 1)
      ++d.array_dims;
    if (k < end && at(k).is_punct("="))
      d.initializer = k;
    d.end = end;
    record(d);
  }

  const std::vector<Token> &t_;
  const std::set<std::string> &types_;
  FileSyntax s_;
  Scope pending_;
  size_t pending_open_ = 0;
};

} // namespace

bool is_builtin_type(const std::string &name) {
  return kBuiltinTypes.count(name) != 0;
}

bool is_statement_word(const std::string &name) {
  return kStatementWords.count(name) != 0;
}

std::set<std::string> type_names(const std::vector<Token> &tokens) {
  std::set<std::string> names;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    const Token &t = tokens[i];
    if ((t.is_identifier("class") || t.is_identifier("struct") || t.is_identifier("enum")) &&
        tokens[i + 1].is_identifier())
      names.insert(tokens[i + 1].text);
    if (t.is_identifier("template") && tokens[i + 1].is_punct("<")) {
      for (size_t k = i + 2; k + 1 < tokens.size() && !tokens[k].is_punct(">"); ++k)
        if ((tokens[k].is_identifier("typename") || tokens[k].is_identifier("class")) &&
            tokens[k + 1].is_identifier())
          names.insert(tokens[k + 1].text);
    }
  }
  return names;
}

FileSyntax read_syntax(const std::vector<Token> &tokens, const std::set<std::string> &types) {
  return SyntaxReader(tokens, types).run();
}

} // namespace mql5check
