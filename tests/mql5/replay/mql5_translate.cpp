// mql5-translate: one MQL5 program, with its includes and #resource files, as one C++ file that
// the replay test compiles and runs against the real library - a stand-in for MetaEditor plus
// the terminal.
//
//   mql5-translate PROGRAM.mq5 --include MQL5/Include [--include DIR]... --builtins builtins.txt
//                  --output OUT.cpp --name NAME [-D MACRO=VALUE]...
//
// <x.mqh> resolves in the --include folders in order (a user's MQL5/Include may follow the
// package's), "x.mqh" beside the including file first; '\' separates folders as '/' does, and
// UTF-16 files (MetaQuotes' own) read as UTF-8 ones. -D replaces the value of a macro the program
// #defines (the sizes, for a quick run); a macro it does not define is left alone.
//
// The program is first checked as MetaEditor would (mql5_model.hpp: calls to nothing, wrong
// counts, literals for references, a handle of the COpenCL class given to a built-in CL*
// function) and refused with the first problem. Then the whole program becomes the members of one
// C++ struct, so that, as in MQL5, a function may call one defined further down; its classes are
// nested in it, their methods reach the program's globals through `mql5rt_self`, and methods
// defined outside their class (CLASS::NAME) follow the struct. Each #import block becomes a nested
// struct whose static functions load the library's function by name and call it with the
// parameter types of the MQL5 declaration: `T &a[]` passes a pointer to the first element,
// `string` a copy of its UTF-16 text, `string &` the string's own buffer, a matrix or vector its
// row-major elements. The rest is a token-level rewrite guided by the declarations the model read:
// MQL5's types, constants and built-ins come from mql5_runtime.hpp, arrays become mql5rt::array,
// string literals mql5rt::string, `.` on `this` and on object pointers `->`, and #line directives
// keep compiler messages pointing at the MQL5 source.
#include "mql5_model.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;
using namespace mql5check;

namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

struct Item {
  Token token;
  std::string file;
  size_t source = 0; // the file's index in Program::files
  size_t at = 0;     // the token's index in that file
};

// MQL5 types whose C++ names differ; matrix<T> and vector<T> become matrix_of<T>, vector_of<T>.
const std::map<std::string, std::string> kTypes = {
    {"string", "mql5rt::string"},   {"uchar", "mql5rt::uchar"},    {"ushort", "mql5rt::ushort"},
    {"uint", "mql5rt::uint"},       {"ulong", "mql5rt::ulong"},    {"datetime", "mql5rt::datetime"},
    {"color", "mql5rt::color"},     {"matrix", "mql5rt::matrix"},  {"matrixf", "mql5rt::matrixf"},
    {"matrixc", "mql5rt::matrixc"}, {"vector", "mql5rt::vector"},  {"vectorf", "mql5rt::vectorf"},
    {"vectorc", "mql5rt::vectorc"}, {"complex", "mql5rt::complex"}};
// The element type a DLL receives a pointer to for an MQL5 matrix or vector parameter.
const std::map<std::string, std::string> kMatrixElements = {
    {"matrix", "double"}, {"matrixf", "float"},           {"vector", "double"},
    {"vectorf", "float"}, {"matrixc", "mql5rt::complex"}, {"vectorc", "mql5rt::complex"}};
const std::set<std::string> kFileScopeOnly = {"static", "input", "sinput", "extern"};

[[noreturn]] void fail(const std::string &what) {
  throw std::runtime_error(what);
}

std::string renamed_type(const std::string &type) {
  auto found = kTypes.find(type);
  return found == kTypes.end() ? type : found->second;
}

// builtins.txt: NAME URL [constant]. Constants (and the enum types and values) are the ones the
// runtime defines under MQL5's name.
std::set<std::string> load_constants(const std::string &path) {
  std::set<std::string> names;
  std::istringstream lines(read_file(path));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name, url, kind;
    if (words >> name >> url >> kind && name[0] != '#' && kind == "constant")
      names.insert(name);
  }
  return names;
}

class Translator {
public:
  Translator(std::vector<std::string> include_roots, const std::string &builtins,
             std::map<std::string, std::string> defines)
      : include_roots_(std::move(include_roots)), builtins_(load_builtins(builtins)),
        constants_(load_constants(builtins)), defines_(std::move(defines)) {}

  std::string run(const std::string &script, const std::string &name) {
    program_ = load_program(script, include_roots_);
    if (!program_.problems.empty())
      fail(program_.problems.front());
    // What MetaEditor would refuse: calls to nothing, wrong counts, literals for references.
    std::vector<std::string> refused = check_calls(program_, builtins_);
    if (!refused.empty())
      fail(refused.front());
    item_of_.resize(program_.files.size());
    expand(script);
    out_.resize(items_.size());
    before_.resize(items_.size());
    after_.resize(items_.size());
    relocated_.assign(items_.size(), false);
    index_declarations();
    rewrite();
    return file(script, name);
  }

private:
  // ---- the token stream: each file's tokens, an #include replaced by the included file's -----

  void expand(const std::string &path) {
    std::string canonical = fs::weakly_canonical(path).string();
    if (!expanded_.insert(canonical).second)
      return;
    size_t source = source_index(canonical);
    const std::vector<Token> &tokens = program_.files[source].tokens;
    item_of_[source].assign(tokens.size(), kNone);
    for (size_t k = 0; k < tokens.size(); ++k) {
      const Token &t = tokens[k];
      if (t.kind == TokenKind::Directive && !t.directive.empty() &&
          t.directive[0].is_identifier("include")) {
        expand(resolve_include(t.directive, path, include_roots_));
        continue;
      }
      item_of_[source][k] = items_.size();
      items_.push_back(Item{t, path, source, k});
    }
  }

  size_t source_index(const std::string &canonical) const {
    for (size_t s = 0; s < program_.files.size(); ++s)
      if (fs::weakly_canonical(program_.files[s].path).string() == canonical)
        return s;
    fail("the model did not read " + canonical);
  }

  const Token &tok(size_t i) const { return items_[i].token; }
  bool is_code(size_t i) const {
    return i < items_.size() && tok(i).kind != TokenKind::Directive && !in_import_[i];
  }
  bool punct(size_t i, const char *p) const { return is_code(i) && tok(i).is_punct(p); }
  const FileSyntax &syntax(size_t i) const { return program_.files[items_[i].source].syntax; }
  size_t item(size_t source, size_t at) const {
    return at < item_of_[source].size() ? item_of_[source][at] : kNone;
  }
  // The function whose body holds item i, or null.
  const FunctionSyntax *body(size_t i) const {
    int f = syntax(i).body_of[items_[i].at];
    return f < 0 ? nullptr : &syntax(i).functions[static_cast<size_t>(f)];
  }
  std::string text(size_t i) const { return before_[i] + out_[i] + after_[i]; }
  std::string joined(size_t first, size_t last) const { // the translated items [first, last)
    std::string s;
    for (size_t k = first; k < last; ++k)
      if (!text(k).empty())
        s += (s.empty() ? "" : " ") + text(k);
    return s;
  }

  // ---- what names refer to ------------------------------------------------------------------

  void index_declarations() {
    for (size_t s = 0; s < program_.files.size(); ++s) {
      const FileSyntax &syn = program_.files[s].syntax;
      const std::vector<Token> &tokens = program_.files[s].tokens;
      for (const Declarator &d : syn.declarators) {
        const std::string &name = tokens[d.name].text;
        if (d.array_dims == 1)
          array_declarations_.insert({s, d.specifiers});
        if (d.scope == DeclScope::File)
          global_declarators_[name] = &d;
        else if (d.scope == DeclScope::Member)
          field_declarators_[d.in_class + "::" + name] = &d;
        else if (d.function >= 0)
          local_declarators_[key(s, d.function)][name] = &d;
      }
    }
    for (const MqlFunction &f : program_.functions)
      global_functions_.insert(f.name);
    for (const Resource &r : program_.resources)
      if (!r.variable.empty())
        resource_names_.insert(r.variable);
    for (const Define &d : program_.defines)
      macros_.insert(d.name);
  }
  static std::string key(size_t source, int function) {
    return std::to_string(source) + ":" + std::to_string(function);
  }

  // The declaration a name means in the function holding item i: a local or parameter, a member
  // of its class (or of a base), or a global.
  const Declarator *declaration_of(const std::string &name, size_t i) const {
    if (const FunctionSyntax *fn = body(i)) {
      int index = syntax(i).body_of[items_[i].at];
      auto locals = local_declarators_.find(key(items_[i].source, index));
      if (locals != local_declarators_.end() && locals->second.count(name) != 0)
        return locals->second.at(name);
      for (const std::string &cls : lineage(fn->class_name))
        if (auto found = field_declarators_.find(cls + "::" + name);
            found != field_declarators_.end())
          return found->second;
    }
    auto found = global_declarators_.find(name);
    return found == global_declarators_.end() ? nullptr : found->second;
  }
  // A class and the classes it derives from.
  std::vector<std::string> lineage(const std::string &class_name) const {
    std::vector<std::string> classes;
    for (std::vector<std::string> todo{class_name}; !todo.empty();) {
      std::string c = todo.back();
      todo.pop_back();
      auto found = program_.classes.find(c);
      if (c.empty() || found == program_.classes.end() ||
          std::find(classes.begin(), classes.end(), c) != classes.end())
        continue;
      classes.push_back(c);
      todo.insert(todo.end(), found->second.bases.begin(), found->second.bases.end());
    }
    return classes;
  }
  bool is_member(const std::string &class_name, const std::string &name) const {
    for (const std::string &c : lineage(class_name)) {
      const MqlClass &cls = program_.classes.at(c);
      if (cls.fields.count(name) != 0 ||
          std::any_of(cls.methods.begin(), cls.methods.end(),
                      [&](const MqlFunction &m) { return m.name == name; }))
        return true;
    }
    return false;
  }
  bool is_local(const std::string &name, size_t i) const {
    if (body(i) == nullptr)
      return false;
    auto locals = local_declarators_.find(key(items_[i].source, syntax(i).body_of[items_[i].at]));
    return locals != local_declarators_.end() && locals->second.count(name) != 0;
  }

  // ---- the rewrite ----------------------------------------------------------------------------

  void rewrite() {
    in_import_.assign(items_.size(), false);
    bool importing = false;
    for (size_t i = 0; i < items_.size(); ++i) {
      const Token &t = tok(i);
      if (t.kind == TokenKind::Directive) {
        directive(i, importing);
        continue;
      }
      in_import_[i] = importing;
      out_[i] = importing ? "" : t.text;
    }
    for (size_t i = 0; i < items_.size(); ++i) {
      if (!is_code(i))
        continue;
      const Token &t = tok(i);
      if (t.kind == TokenKind::String &&
          !(i > 0 && is_code(i - 1) && tok(i - 1).kind == TokenKind::String)) {
        size_t last = i;
        while (is_code(last + 1) && tok(last + 1).kind == TokenKind::String)
          ++last;
        before_[i] += "mql5rt::string(";
        after_[last] += ")";
      } else if (t.is_identifier()) {
        identifier(i);
      }
    }
    std::vector<std::pair<size_t, const Declarator *>> declared;
    for (size_t s = 0; s < program_.files.size(); ++s)
      for (const Declarator &d : program_.files[s].syntax.declarators)
        if (size_t i = item(s, d.name); i != kNone && is_code(i))
          declared.emplace_back(s, &d);
    std::map<const Declarator *, std::string> types;
    for (const auto &[source, d] : declared)
      types[d] = joined(item(source, d->type), item(source, d->type_end - 1) + 1);
    for (const auto &[source, d] : declared)
      declaration(source, *d, types.at(d));
    for (size_t s = 0; s < program_.files.size(); ++s) {
      const FileSyntax &syn = program_.files[s].syntax;
      for (const FunctionSyntax &f : syn.functions) {
        size_t name = item(s, f.name);
        if (name == kNone || !is_code(name))
          continue;
        if (f.qualifier != 0 && f.body_open != 0)
          out_of_class(s, f);
        else if (f.class_name.empty() && f.body_open == 0)
          prototype(s, f);
        else if (f.class_name.empty()) // a global function is a member of the program struct
          for (size_t k = item(s, f.first); k < name; ++k)
            if (tok(k).is_identifier("static"))
              out_[k] = "";
      }
      for (const MemberDefinition &m : syn.member_definitions)
        if (item(s, m.qualifier) != kNone && is_code(item(s, m.qualifier)))
          member_definition(s, m);
    }
  }

  // A global function declared before its definition: a member of the program struct is
  // declared once, so the declaration goes, and its default values go to the definition.
  void prototype(size_t source, const FunctionSyntax &f) {
    const std::string &name = program_.files[source].tokens[f.name].text;
    auto f_parts = parameter_parts(source, f);
    for (size_t s = 0; s < program_.files.size(); ++s)
      for (const FunctionSyntax &g : program_.files[s].syntax.functions) {
        if (g.body_open == 0 || !g.class_name.empty() || g.qualifier != 0 ||
            program_.files[s].tokens[g.name].text != name || item(s, g.name) == kNone ||
            parameter_parts(s, g).size() != f_parts.size())
          continue;
        for (size_t k = 0; k < f_parts.size(); ++k)
          for (size_t j = f_parts[k].first; j < f_parts[k].second; ++j)
            if (punct(j, "="))
              add_default(s, g, k, joined(j + 1, f_parts[k].second));
        size_t last = item(source, f.close) + 1;
        for (size_t k = item(source, f.first); k <= last && k < items_.size(); ++k)
          out_[k] = before_[k] = after_[k] = "";
        return;
      }
  }

  // TYPE CLASS::member = value; follows the program struct as TYPE Program::CLASS::member.
  void member_definition(size_t source, const MemberDefinition &m) {
    size_t qualifier = item(source, m.qualifier);
    out_[qualifier] = "Program::" + out_[qualifier];
    for (size_t k = item(source, m.first); k < qualifier; ++k)
      if (tok(k).is_identifier() && program_.classes.count(tok(k).text) != 0)
        out_[k] = "Program::" + out_[k];
    for (size_t k = item(source, m.first); k <= item(source, m.end); ++k)
      relocated_[k] = true;
  }

  void identifier(size_t i) {
    const Token &t = tok(i);
    const std::string &name = t.text;
    bool member = i > 0 && (punct(i - 1, ".") || punct(i - 1, "->"));
    bool scoped = i > 0 && punct(i - 1, "::");
    bool global_scope = scoped && !(i > 1 && is_code(i - 2) && tok(i - 2).is_identifier());
    member_access(i);
    if (member || (scoped && !global_scope))
      return;
    if (kTypes.count(name) != 0) {
      bool templated = punct(i + 1, "<") && (name == "matrix" || name == "vector");
      out_[i] = templated ? "mql5rt::" + name + "_of" : renamed_type(name);
      return;
    }
    if (syntax(i).declarator_at[items_[i].at] >= 0 || syntax(i).function_at[items_[i].at] >= 0 ||
        macros_.count(name) != 0)
      return; // a declared name is the program's own
    const FunctionSyntax *fn = body(i);
    bool in_method = fn != nullptr && !fn->class_name.empty();
    if ((in_method && is_member(fn->class_name, name)) || is_local(name, i))
      return;
    bool call = punct(i + 1, "(");
    std::string self = in_method ? "mql5rt_self->" : "";
    std::string replacement;
    if (call && builtins_.count(name) != 0)
      // A program's function of a built-in's name overloads it (a forwarder joins the two).
      replacement = global_functions_.count(name) != 0 ? self + name : "mql5rt::" + name;
    else if (constants_.count(name) != 0 && global_declarators_.count(name) == 0)
      replacement = "mql5rt::" + name;
    else if (global_declarators_.count(name) != 0 || global_functions_.count(name) != 0 ||
             resource_names_.count(name) != 0)
      replacement = self + name;
    else
      return;
    out_[i] = replacement;
    if (global_scope)
      out_[i - 1] = "";
  }

  // `this.x` and `p.x` on an object pointer (`CFoo *p`, `CFoo *a[]` as a[i].x) become `->`.
  void member_access(size_t i) {
    const std::string &name = tok(i).text;
    if (name == "this" && punct(i + 1, ".")) {
      out_[i + 1] = "->";
      return;
    }
    if (i > 0 && (punct(i - 1, ".") || punct(i - 1, "->") || punct(i - 1, "::")))
      return;
    size_t dot = i + 1;
    if (punct(dot, "[")) {
      for (int depth = 0; dot < items_.size(); ++dot) {
        if (punct(dot, "["))
          ++depth;
        else if (punct(dot, "]") && --depth == 0)
          break;
      }
      ++dot;
    }
    if (!punct(dot, "."))
      return;
    const Declarator *d = declaration_of(name, i);
    if (d != nullptr && d->pointer && (dot == i + 1) == (d->array_dims == 0))
      out_[dot] = "->";
  }

  // One declarator: an array becomes mql5rt::array (const dropped, so that a template's T &a[]
  // takes any array), constructor arguments of a global become `= TYPE(...)` (a member of the
  // program struct takes no parenthesized initializer), and a declaration that mixes arrays with
  // other names is split into one declaration per name.
  void declaration(size_t source, const Declarator &d, const std::string &type) {
    size_t name = item(source, d.name);
    std::string where = items_[name].file + ":" + std::to_string(tok(name).line);
    bool has_array = array_declarations_.count({source, d.specifiers}) != 0;
    size_t type_item = item(source, d.type);
    bool is_input = false;
    for (size_t k = item(source, d.specifiers); k < type_item; ++k) {
      is_input = is_input || tok(k).is_identifier("input") || tok(k).is_identifier("sinput");
      if ((d.scope == DeclScope::File && kFileScopeOnly.count(tok(k).text) != 0) ||
          (has_array && tok(k).is_identifier("const")))
        out_[k] = "";
    }
    if (is_input)
      inputs_.push_back(tok(name).text);
    std::string element = type;
    size_t stars = name;
    while (stars > 0 && (punct(stars - 1, "*") || punct(stars - 1, "&")))
      --stars;
    if (d.array_dims == 1 && d.pointer) {
      element += " *";
      for (size_t k = stars; k < name; ++k)
        if (punct(k, "*"))
          out_[k] = "";
    }
    std::string array = "mql5rt::array<" + element + ">";
    if (!d.first && has_array && punct(stars - 1, ","))
      out_[stars - 1] = "; " + joined(item(source, d.specifiers), type_item) + " " +
                        (d.array_dims == 1 ? array : type);
    else if (d.first && d.array_dims == 1) {
      out_[type_item] = array;
      for (size_t k = type_item + 1; k < item(source, d.type_end - 1) + 1; ++k)
        out_[k] = "";
    }
    if (d.array_dims == 1)
      array_dimensions(source, d, array, where);
    else if (d.array_dims > 1 && d.scope == DeclScope::Parameter)
      fail(where + ": multi-dimensional array parameters are not supported by the replay");
    else if (d.initializer != 0 && punct(item(source, d.initializer), "(") &&
             (d.scope == DeclScope::File || d.scope == DeclScope::Member))
      after_[name] += " = " + type;
  }

  // NAME[size] and NAME[] = {...}: the size and the values go to mql5rt::array's makers.
  void array_dimensions(size_t source, const Declarator &d, const std::string &array,
                        const std::string &where) {
    size_t open = item(source, d.dims_first);
    size_t close = open;
    for (int depth = 0; close < items_.size(); ++close) {
      if (punct(close, "["))
        ++depth;
      else if (punct(close, "]") && --depth == 0)
        break;
    }
    std::string size = joined(open + 1, close);
    for (size_t k = open; k <= close; ++k)
      out_[k] = before_[k] = after_[k] = "";
    size_t next = close + 1;
    bool initialized = punct(next, "=") && punct(next + 1, "{");
    if (d.scope == DeclScope::Parameter && (initialized || !size.empty()))
      fail(where + ": an array parameter is always T &a[]");
    if (initialized) {
      size_t brace = next + 1, end = brace;
      for (int depth = 0; end < items_.size(); ++end) {
        if (punct(end, "{"))
          ++depth;
        else if (punct(end, "}") && --depth == 0)
          break;
      }
      bool nested = false;
      for (size_t k = brace + 1; k < end; ++k)
        nested = nested || punct(k, "{");
      bool empty = brace + 1 == end;
      before_[brace] +=
          size.empty() ? array + "::of(" : array + "::fixed(" + size + (empty ? "" : ", ");
      after_[end] += ")";
      if (!nested) // plain values: each converted to the element type as MQL5 converts them
        out_[brace] = out_[end] = "";
    } else if (!size.empty()) {
      after_[item(source, d.name)] += " = " + array + "::fixed(" + size + ")";
    }
  }

  // RESULT CLASS::NAME(params) [const] {...} outside its class: moved after the program struct
  // as `auto Program::CLASS::NAME(params) [const] -> RESULT {...}` (the trailing result is read
  // in the class's scope), its default values moved to the declaration in the class.
  void out_of_class(size_t source, const FunctionSyntax &f) {
    size_t first = item(source, f.first), qualifier = item(source, f.qualifier);
    size_t result_first = first;
    if (tok(first).is_identifier("template") && punct(first + 1, "<"))
      for (int depth = 0; result_first < qualifier; ++result_first) {
        if (punct(result_first, "<"))
          ++depth;
        else if (punct(result_first, ">") && --depth == 0) {
          ++result_first;
          break;
        }
      }
    std::string result;
    for (size_t k = result_first; k < qualifier; ++k) {
      if (!tok(k).is_identifier("virtual") && !tok(k).is_identifier("static"))
        result += (result.empty() ? "" : " ") + text(k);
      out_[k] = before_[k] = after_[k] = "";
    }
    out_[qualifier] = "Program::" + out_[qualifier];
    if (!f.constructor) {
      before_[qualifier] = "auto ";
      size_t close = item(source, f.close);
      after_[is_code(close + 1) && tok(close + 1).is_identifier("const") ? close + 1 : close] +=
          " -> " + result;
    }
    move_defaults(source, f);
    for (size_t k = first; k <= item(source, f.body_close); ++k)
      relocated_[k] = true;
  }

  void move_defaults(size_t source, const FunctionSyntax &f) {
    const FileSyntax &syn = program_.files[source].syntax;
    std::vector<const Declarator *> params;
    for (const Declarator &d : syn.declarators)
      if (d.scope == DeclScope::Parameter && syn.function_at[f.name] == d.function)
        params.push_back(&d);
    auto [declaration_source, declaration] =
        in_class_declaration(f, program_.files[source].tokens[f.name].text, params.size());
    for (size_t k = 0; k < params.size(); ++k) {
      const Declarator &p = *params[k];
      if (p.initializer == 0)
        continue;
      size_t from = item(source, p.initializer), to = item(source, p.end);
      std::string value = joined(from + 1, to);
      for (size_t j = from; j < to; ++j)
        out_[j] = before_[j] = after_[j] = "";
      if (declaration != nullptr)
        add_default(declaration_source, *declaration, k, value);
    }
  }

  // The declaration in the class body of a method defined outside it: its file and syntax.
  std::pair<size_t, const FunctionSyntax *>
  in_class_declaration(const FunctionSyntax &f, const std::string &name, size_t count) {
    for (size_t s = 0; s < program_.files.size(); ++s)
      for (const FunctionSyntax &g : program_.files[s].syntax.functions)
        if (g.in_class_body && g.body_open == 0 && g.class_name == f.class_name &&
            program_.files[s].tokens[g.name].text == name && item(s, g.name) != kNone &&
            parameter_parts(s, g).size() == count)
          return {s, &g};
    return {0, nullptr};
  }
  // The items of each parameter of a declaration: [first, last).
  std::vector<std::pair<size_t, size_t>> parameter_parts(size_t source, const FunctionSyntax &g) {
    std::vector<std::pair<size_t, size_t>> parts;
    size_t open = item(source, g.open), close = item(source, g.close), start = open + 1;
    if (close == start || (close == start + 1 && tok(start).is_identifier("void")))
      return parts;
    for (size_t k = start, depth = 0; k <= close; ++k) {
      if (punct(k, "(") || punct(k, "[") || punct(k, "{"))
        ++depth;
      else if (k < close && (punct(k, ")") || punct(k, "]") || punct(k, "}")))
        --depth;
      if ((depth == 0 && punct(k, ",")) || k == close) {
        parts.emplace_back(start, k);
        start = k + 1;
      }
    }
    return parts;
  }
  void add_default(size_t source, const FunctionSyntax &g, size_t k, const std::string &value) {
    auto parts = parameter_parts(source, g);
    for (size_t j = parts[k].first; j < parts[k].second; ++j)
      if (punct(j, "="))
        return; // it has its own
    after_[parts[k].second - 1] += " = " + value;
  }

  // ---- directives -------------------------------------------------------------------------------

  void directive(size_t i, bool &importing) {
    const std::vector<Token> &d = tok(i).directive;
    const std::string kind = d.empty() ? "" : d[0].text;
    std::string where = items_[i].file + ":" + std::to_string(tok(i).line);
    if (kind == "import") {
      importing = d.size() > 1;
      out_[i] = importing ? imports(string_value(d[1])) : "";
    } else if (kind == "property") {
      out_[i] = "";
    } else if (kind == "resource") {
      out_[i] = resource(d, items_[i].file, where);
    } else if (kind == "define" && d.size() >= 2 && defines_.count(d[1].text) != 0) {
      out_[i] = "#define " + d[1].text + " " + defines_.at(d[1].text);
    } else if (kind == "define") {
      out_[i] = define(d);
    } else if (kind == "undef" || kind == "ifdef" || kind == "ifndef" || kind == "else" ||
               kind == "endif") {
      out_[i] = tok(i).text;
    } else {
      fail(where + ": " + tok(i).text + " is not supported by the replay");
    }
  }

  // #define NAME value: the value's types, built-ins and strings as in code.
  std::string define(const std::vector<Token> &d) {
    std::string text = "#define " + d[1].text;
    bool function_like = d.size() > 2 && d[2].is_punct("(") && !d[2].space_before;
    for (size_t k = 2; k < d.size(); ++k) {
      const Token &t = d[k];
      std::string piece = t.text;
      bool member = k > 0 && (d[k - 1].is_punct(".") || d[k - 1].is_punct("::"));
      if (t.kind == TokenKind::String)
        piece = "mql5rt::string(" + t.text + ")";
      else if (t.is_identifier() && !member && kTypes.count(t.text) != 0)
        piece = renamed_type(t.text);
      else if (t.is_identifier() && !member && constants_.count(t.text) != 0)
        piece = "mql5rt::" + t.text;
      else if (t.is_identifier() && !member && builtins_.count(t.text) != 0 &&
               global_functions_.count(t.text) == 0 && k + 1 < d.size() && d[k + 1].is_punct("("))
        piece = "mql5rt::" + t.text;
      text += (t.space_before || (k == 2 && !function_like) ? " " : "") + piece;
    }
    return text;
  }

  // #resource "path" as string NAME: the file's text as a constant string. '\' separates
  // folders; a path starting with one is in the MQL5 folder (the first include root's parent).
  // Other resources (images, sounds) are the terminal's: nothing here uses them.
  std::string resource(const std::vector<Token> &d, const std::string &file,
                       const std::string &where) {
    if (d.size() == 2)
      return "";
    if (d.size() != 5 || !d[3].is_identifier("string"))
      fail(where + ": only #resource \"file\" as string NAME is supported");
    std::string path = string_value(d[1]);
    std::replace(path.begin(), path.end(), '\\', '/');
    fs::path resolved = path.front() == '/'
                            ? fs::path(include_roots_.front()).parent_path() / path.substr(1)
                            : fs::path(file).parent_path() / path;
    return "const mql5rt::string " + d[4].text + " = mql5rt::string(R\"mql5rt(" +
           read_file(resolved.string()) + ")mql5rt\");";
  }

  // The nested struct for one #import module: each declaration, overloads included, as a static
  // function that calls the library's function through a pointer of the declared types.
  std::string imports(const std::string &module) {
    std::string scope = fs::path(module).stem().string();
    if (!modules_.insert(module).second)
      return "";
    std::string text = "struct " + scope + " {\n";
    for (const MqlFunction &f : program_.imports) {
      if (f.module != scope)
        continue;
      names_[module].insert(f.name);
      text += import_function(module, f);
    }
    return text + "};";
  }

  static std::string import_function(const std::string &module, const MqlFunction &f) {
    std::string params, pointer_types, arguments;
    for (size_t k = 0; k < f.params.size(); ++k) {
      const MqlParam &p = f.params[k];
      std::string name = p.name.empty() ? "p" + std::to_string(k) : p.name;
      std::string konst = p.is_const ? "const " : "";
      std::string type = renamed_type(p.type), param, pointer, argument;
      if (p.pointer)
        fail(f.where() + ": pointer parameters cannot be imported");
      if (p.type == "string" && p.reference) {
        param = "mql5rt::string &" + name;
        pointer = "char16_t *";
        argument = name + ".dll_buffer()";
      } else if (p.type == "string") {
        param = "const mql5rt::string &" + name;
        pointer = "const char16_t *";
        argument = name + ".dll_copy().c_str()";
      } else if (kMatrixElements.count(p.type) != 0) {
        if (!p.reference || p.array_dims > 0)
          fail(f.where() + ": a " + p.type + " goes to a DLL only as one reference");
        param = konst + type + " &" + name;
        pointer = konst + kMatrixElements.at(p.type) + " *";
        argument = name + ".dll_data()";
      } else if (p.array_dims > 0) {
        param = konst + "mql5rt::array<" + type + "> &" + name;
        pointer = konst + type + " *";
        argument = name + ".dll_data()";
      } else if (p.reference) {
        param = konst + type + " &" + name;
        pointer = konst + type + " *";
        argument = "&" + name;
      } else {
        param = type + " " + name;
        pointer = type;
        argument = name;
      }
      if (!p.default_text.empty())
        param += " = " + p.default_text;
      std::string comma = k == 0 ? "" : ", ";
      params += comma + param;
      pointer_types += comma + pointer;
      arguments += comma + argument;
    }
    std::string result = renamed_type(f.result);
    return "  static " + result + " " + f.name + "(" + params + ") {\n" +
           "    using F = " + result + " (*)(" + pointer_types + ");\n" +
           "    static const F f = mql5rt::import<F>(\"" + module + "\", \"" + f.name + "\");\n" +
           "    " + (result == "void" ? "" : "return ") + "f(" + arguments + ");\n  }\n";
  }

  // ---- the C++ file ---------------------------------------------------------------------------

  // The items for which `take` holds, with #line directives where the source jumps.
  std::string render(bool relocated) const {
    std::string body, current_file;
    int line = 0;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (relocated_[i] != relocated)
        continue;
      const Token &t = tok(i);
      std::string piece = text(i);
      if (piece.empty())
        continue;
      bool directive = t.kind == TokenKind::Directive;
      if (directive || items_[i].file != current_file || t.line < line || t.line > line + 8) {
        body += "\n#line " + std::to_string(t.line) + " \"" + items_[i].file + "\"\n";
        current_file = items_[i].file;
        line = t.line;
      }
      for (; line < t.line; ++line)
        body += "\n";
      body += piece + (directive ? "\n" : " ");
      if (directive)
        line = -1000; // force a #line before what follows
    }
    return body;
  }

  // A program's function that has a built-in's name overloads it: the built-in joins its
  // overload set through a forwarder (removed from the set where it does not apply).
  std::string forwarders() const {
    std::string text;
    for (const std::string &name : global_functions_)
      if (builtins_.count(name) != 0)
        text += "  template <class... A> static auto " + name +
                "(A &&...a) -> decltype(mql5rt::" + name +
                "(std::forward<A>(a)...)) {\n    return mql5rt::" + name +
                "(std::forward<A>(a)...);\n  }\n";
    return text;
  }

  std::string file(const std::string &script, const std::string &name) {
    std::string bind, inputs, start;
    for (const auto &[module, names] : names_) {
      bind += "  mql5rt::bind(\"" + module + "\", {";
      for (const std::string &n : names)
        bind += "\"" + n + "\", ";
      bind += "});\n";
    }
    for (const std::string &input : inputs_)
      inputs += "  if (auto it = inputs.find(\"" + input +
                "\"); it != inputs.end())\n    mql5rt::set_input(program->" + input +
                ", it->second);\n";
    if (global_functions_.count("OnStart") != 0)
      start = "  program->OnStart();\n";
    else if (global_functions_.count("OnInit") != 0)
      start = "  program->OnInit();\n";
    if (global_functions_.count("OnDeinit") != 0)
      start += "  program->OnDeinit(0);\n";
    return "// Generated by mql5-translate from " + script + " - do not edit.\n" +
           "#include \"mql5_runtime.hpp\"\n#include <memory>\n#include <utility>\n\n" +
           "namespace {\n\nstruct Program {\n" +
           "  static inline Program *mql5rt_self = nullptr; // for the methods of its classes\n" +
           "  bool mql5rt_bound = (mql5rt_self = this, true);\n" + forwarders() + render(false) +
           "\n};\n" + render(true) + "\n\nvoid run(const mql5rt::Inputs &inputs) {\n" +
           "  mql5rt::start_program();\n" + bind +
           "  auto program = std::make_unique<Program>();\n" + inputs + start + "}\n\n" +
           "const mql5rt::registration registered(\"" + name + "\", run);\n\n} // namespace\n";
  }

  std::vector<std::string> include_roots_;
  std::set<std::string> builtins_, constants_;
  std::map<std::string, std::string> defines_;
  Program program_;
  std::set<std::string> expanded_;
  std::vector<std::vector<size_t>> item_of_;
  std::vector<Item> items_;
  std::vector<bool> in_import_, relocated_;
  std::vector<std::string> out_, before_, after_;
  std::vector<std::string> inputs_;
  std::set<std::string> modules_;
  std::map<std::string, std::set<std::string>> names_;
  std::map<std::string, const Declarator *> global_declarators_, field_declarators_;
  std::map<std::string, std::map<std::string, const Declarator *>> local_declarators_;
  std::set<std::string> global_functions_, macros_, resource_names_;
  std::set<std::pair<size_t, size_t>> array_declarations_; // (file, specifiers) with an array
};

} // namespace

int main(int argc, char **argv) {
  try {
    std::string script, builtins, output, name;
    std::vector<std::string> includes;
    std::map<std::string, std::string> defines;
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc)
          fail(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--include")
        includes.push_back(value());
      else if (arg == "--builtins")
        builtins = value();
      else if (arg == "--output")
        output = value();
      else if (arg == "--name")
        name = value();
      else if (arg == "-D") {
        std::string define = value();
        size_t eq = define.find('=');
        if (eq == std::string::npos)
          fail("-D " + define + ": expected MACRO=VALUE");
        defines[define.substr(0, eq)] = define.substr(eq + 1);
      } else if (script.empty())
        script = arg;
      else
        fail("unexpected argument " + arg);
    }
    if (script.empty() || includes.empty() || builtins.empty() || output.empty() || name.empty())
      fail("usage: mql5-translate PROGRAM.mq5 --include DIR [--include DIR]... --builtins FILE "
           "--output FILE --name NAME [-D MACRO=VALUE]...");
    Translator translator(includes, builtins, defines);
    std::string text = translator.run(script, name);
    std::ofstream out(output);
    out << text;
    if (!out.flush())
      fail("cannot write " + output);
    return 0;
  } catch (const std::exception &e) {
    std::cerr << "mql5-translate: " << e.what() << std::endl;
    return 1;
  }
}
