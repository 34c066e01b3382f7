// mql5-translate: one MQL5 script, with its includes and #resource files, as one C++ file that
// the replay test compiles and runs against the real library - a stand-in for MetaEditor plus
// the terminal, for the subset of MQL5 the scripts under mql5/ use.
//
//   mql5-translate SCRIPT.mq5 --include MQL5/Include --builtins builtins.txt --output OUT.cpp
//                  --name NAME [-D MACRO=VALUE]...
//
// -D replaces the value of a macro the script #defines (the sizes, for a quick run); a macro the
// script does not define is left alone.
//
// The whole program becomes the members of one C++ struct, so that, as in MQL5, a function may
// call one defined further down. Each #import block becomes a nested struct whose static
// functions load the library's function by name and call it with the parameter types of the MQL5
// declaration: `T &a[]` passes a pointer to the first element, `string` a copy of its UTF-16
// text, `string &` the string's own buffer, `matrixf &` and `matrix &` their row-major elements.
// The rest is a token-level rewrite: MQL5's types and built-ins come from mql5_runtime.hpp,
// arrays become mql5rt::array, string literals mql5rt::string, and #line directives keep
// compiler messages pointing at the MQL5 source.
#include "mql5_model.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace fs = std::filesystem;
using namespace mql5check;

namespace {

struct Item {
  Token token;
  std::string file;
};

const std::map<std::string, std::string> kTypes = {
    {"string", "mql5rt::string"},
    {"uchar", "mql5rt::uchar"},
    {"ushort", "mql5rt::ushort"},
    {"uint", "mql5rt::uint"},
    {"ulong", "mql5rt::ulong"},
    {"datetime", "mql5rt::datetime"},
    {"color", "mql5rt::color"},
    {"matrix", "mql5rt::matrix"},
    {"matrixf", "mql5rt::matrixf"},
    {"vector", "mql5rt::vector"},
    {"vectorf", "mql5rt::vectorf"},
    {"ENUM_OPENCL_PROPERTY_INTEGER", "mql5rt::ENUM_OPENCL_PROPERTY_INTEGER"}};
// The element type a DLL receives a pointer to for an MQL5 matrix or vector parameter.
const std::map<std::string, std::string> kMatrixElements = {
    {"matrix", "double"}, {"matrixf", "float"}, {"vector", "double"}, {"vectorf", "float"}};
// The terminal's own constants the runtime defines (mql5_runtime.hpp).
const std::set<std::string> kConstants = {"CL_USE_ANY",
                                          "CL_USE_CPU_ONLY",
                                          "CL_USE_GPU_ONLY",
                                          "CL_USE_GPU_DOUBLE_ONLY",
                                          "CL_MEM_READ_WRITE",
                                          "CL_MEM_WRITE_ONLY",
                                          "CL_MEM_READ_ONLY",
                                          "CL_MEM_ALLOC_HOST_PTR",
                                          "CL_DEVICE_COUNT",
                                          "CL_DEVICE_TYPE",
                                          "CL_DEVICE_VENDOR_ID",
                                          "CL_DEVICE_MAX_COMPUTE_UNITS",
                                          "CL_DEVICE_MAX_CLOCK_FREQUENCY",
                                          "CL_DEVICE_GLOBAL_MEM_SIZE",
                                          "CL_DEVICE_LOCAL_MEM_SIZE",
                                          "CL_BUFFER_SIZE",
                                          "CL_DEVICE_MAX_WORK_GROUP_SIZE",
                                          "CL_KERNEL_WORK_GROUP_SIZE",
                                          "CL_KERNEL_LOCAL_MEM_SIZE",
                                          "CL_KERNEL_PRIVATE_MEM_SIZE",
                                          "CL_LAST_ERROR"};
const std::set<std::string> kNotATypeBeforeName = {"return", "else",   "do",     "case",
                                                   "new",    "delete", "sizeof", "typename"};

[[noreturn]] void fail(const std::string &what) {
  throw std::runtime_error(what);
}

std::string renamed_type(const std::string &type) {
  auto found = kTypes.find(type);
  return found == kTypes.end() ? type : found->second;
}

class Translator {
public:
  Translator(std::string include_root, std::set<std::string> builtins,
             std::map<std::string, std::string> defines)
      : include_root_(std::move(include_root)), builtins_(std::move(builtins)),
        defines_(std::move(defines)) {}

  std::string run(const std::string &script, const std::string &name) {
    program_ = load_program(script, include_root_);
    if (!program_.problems.empty())
      fail(script + ": " + program_.problems.front());
    // What MetaEditor would refuse: calls to nothing, wrong counts, literals for references.
    std::vector<std::string> refused = check_calls(program_, builtins_);
    if (!refused.empty())
      fail(refused.front());
    expand(script);
    out_.resize(items_.size());
    before_.resize(items_.size());
    after_.resize(items_.size());
    rewrite();
    return file(script, name);
  }

private:
  // The script with each #include replaced by the included file's tokens (each file once).
  void expand(const std::string &path) {
    if (!included_.insert(fs::weakly_canonical(path).string()).second)
      return;
    for (Token &t : tokenize(read_file(path), path)) {
      if (t.kind == TokenKind::Directive && !t.directive.empty() &&
          t.directive[0].is_identifier("include")) {
        std::string target = join_tokens(t.directive, 1);
        if (target.front() == '<')
          expand((fs::path(include_root_) / target.substr(1, target.size() - 2)).string());
        else
          expand((fs::path(path).parent_path() / string_value(t.directive[1])).string());
        continue;
      }
      items_.push_back(Item{std::move(t), path});
    }
  }

  const Token &tok(size_t i) const { return items_[i].token; }
  bool is_code(size_t i) const {
    return i < items_.size() && tok(i).kind != TokenKind::Directive && !in_import_[i];
  }

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
    int depth = 0;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (!is_code(i))
        continue;
      const Token &t = tok(i);
      if (t.is_punct("{"))
        ++depth;
      else if (t.is_punct("}"))
        --depth;
      else if (t.kind == TokenKind::String &&
               !(i > 0 && is_code(i - 1) && tok(i - 1).kind == TokenKind::String)) {
        size_t last = i;
        while (is_code(last + 1) && tok(last + 1).kind == TokenKind::String)
          ++last;
        before_[i] += "mql5rt::string(";
        after_[last] += ")";
      } else if (t.is_identifier()) {
        identifier(i, depth);
      }
    }
    for (size_t i = 0; i < items_.size(); ++i)
      if (is_code(i) && tok(i).is_identifier() && i + 1 < items_.size() && is_code(i + 1) &&
          tok(i + 1).is_punct("["))
        array_declarator(i);
  }

  void identifier(size_t i, int depth) {
    const Token &t = tok(i);
    bool qualified =
        i > 0 && is_code(i - 1) && (tok(i - 1).is_punct(".") || tok(i - 1).is_punct("->"));
    bool scoped = i > 0 && is_code(i - 1) && tok(i - 1).is_punct("::");
    bool global_scope = scoped && !(i > 1 && is_code(i - 2) && tok(i - 2).is_identifier());
    if (depth == 0 && (t.text == "input" || t.text == "sinput")) {
      out_[i] = "";
      // input TYPE NAME [= value];
      if (is_code(i + 2) && tok(i + 2).is_identifier())
        inputs_.push_back(tok(i + 2).text);
      return;
    }
    if (!qualified && !scoped && kTypes.count(t.text) != 0) {
      out_[i] = renamed_type(t.text);
      return;
    }
    if (!qualified && !scoped && kConstants.count(t.text) != 0) {
      out_[i] = "mql5rt::" + t.text;
      return;
    }
    bool call = is_code(i + 1) && tok(i + 1).is_punct("(");
    if (call && builtins_.count(t.text) != 0 && !qualified && (!scoped || global_scope)) {
      if (global_scope)
        out_[i - 1] = "";
      out_[i] = "mql5rt::" + t.text;
    }
  }

  // TYPE NAME[...] and (, TYPE &NAME[] -> mql5rt::array<TYPE>; T a[R][C] stays a C array.
  void array_declarator(size_t name) {
    size_t type = name - 1;
    bool parameter = false;
    if (is_code(type) && tok(type).is_punct("&") && name >= 3 && is_code(name - 2) &&
        tok(name - 2).is_identifier() && is_code(name - 3) &&
        (tok(name - 3).is_punct("(") || tok(name - 3).is_punct(",") ||
         tok(name - 3).is_identifier("const"))) {
      type = name - 2;
      parameter = true;
    } else if (!(is_code(type) && tok(type).is_identifier() &&
                 kNotATypeBeforeName.count(tok(type).text) == 0 &&
                 !(type > 0 && is_code(type - 1) &&
                   (tok(type - 1).is_punct(".") || tok(type - 1).is_punct("::"))))) {
      return; // an expression: a[i]
    }
    std::vector<std::pair<size_t, size_t>> groups;
    size_t next = name + 1;
    while (is_code(next) && tok(next).is_punct("[")) {
      size_t close = next;
      int depth = 0;
      for (; close < items_.size(); ++close) {
        if (tok(close).is_punct("["))
          ++depth;
        else if (tok(close).is_punct("]") && --depth == 0)
          break;
      }
      groups.emplace_back(next, close);
      next = close + 1;
    }
    std::string where = items_[name].file + ":" + std::to_string(tok(name).line);
    if (groups.size() > 1) {
      if (parameter)
        fail(where + ": multi-dimensional array parameters are not supported by the replay");
      return;
    }
    std::string element = out_[type];
    std::string array = "mql5rt::array<" + element + ">";
    out_[type] = array;
    auto [open, close] = groups[0];
    std::string size;
    for (size_t k = open + 1; k < close; ++k)
      size += out_[k] + " ";
    for (size_t k = open; k <= close; ++k)
      out_[k] = "";
    bool initialized = is_code(next) && tok(next).is_punct("=") && is_code(next + 1) &&
                       tok(next + 1).is_punct("{");
    if (parameter && (initialized || !size.empty()))
      fail(where + ": an array parameter is always T &a[]");
    if (initialized) {
      size_t brace = next + 1, end = brace;
      for (int depth = 0; end < items_.size(); ++end) {
        if (tok(end).is_punct("{"))
          ++depth;
        else if (tok(end).is_punct("}") && --depth == 0)
          break;
      }
      before_[brace] += size.empty() ? array + "::of(" : array + "::fixed(" + size + ", ";
      after_[end] += ")";
    } else if (!size.empty()) {
      after_[name] += " = " + array + "::fixed(" + size + ")";
    }
  }

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
      if (d.size() != 5 || !d[3].is_identifier("string"))
        fail(where + ": only #resource \"file\" as string NAME is supported");
      fs::path file = fs::path(items_[i].file).parent_path() / string_value(d[1]);
      out_[i] = "const mql5rt::string " + d[4].text + " = mql5rt::string(R\"mql5rt(" +
                read_file(file.string()) + ")mql5rt\");";
    } else if (kind == "define" && d.size() >= 2 && defines_.count(d[1].text) != 0) {
      out_[i] = "#define " + d[1].text + " " + defines_.at(d[1].text);
    } else if (kind == "define" || kind == "undef" || kind == "ifdef" || kind == "ifndef" ||
               kind == "else" || kind == "endif") {
      out_[i] = tok(i).text;
    } else {
      fail(where + ": " + tok(i).text + " is not supported by the replay");
    }
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
      text += "  static " + result + " " + f.name + "(" + params + ") {\n" +
              "    using F = " + result + " (*)(" + pointer_types + ");\n" +
              "    static const F f = mql5rt::import<F>(\"" + module + "\", \"" + f.name +
              "\");\n" + "    " + (result == "void" ? "" : "return ") + "f(" + arguments +
              ");\n  }\n";
    }
    return text + "};";
  }

  std::string file(const std::string &script, const std::string &name) {
    std::string body;
    std::string current_file;
    int line = 0;
    for (size_t i = 0; i < items_.size(); ++i) {
      const Token &t = tok(i);
      std::string text = before_[i] + out_[i] + after_[i];
      if (text.empty())
        continue;
      bool directive = t.kind == TokenKind::Directive;
      if (directive || items_[i].file != current_file || t.line < line || t.line > line + 8) {
        body += "\n#line " + std::to_string(t.line) + " \"" + items_[i].file + "\"\n";
        current_file = items_[i].file;
        line = t.line;
      }
      for (; line < t.line; ++line)
        body += "\n";
      body += text + (directive ? "\n" : " ");
      if (directive) {
        line = -1000; // force a #line before what follows
      }
    }
    std::string bind, inputs;
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
    return "// Generated by mql5-translate from " + script + " - do not edit.\n" +
           "#include \"mql5_runtime.hpp\"\n#include <memory>\n\n" +
           "namespace {\n\nstruct Program {\n" + body + "\n};\n\n" +
           "void run(const mql5rt::Inputs &inputs) {\n" + bind +
           "  auto program = std::make_unique<Program>();\n" + inputs +
           "  program->OnStart();\n}\n\n" + "const mql5rt::registration registered(\"" + name +
           "\", run);\n\n} // namespace\n";
  }

  std::string include_root_;
  std::set<std::string> builtins_;
  std::map<std::string, std::string> defines_;
  Program program_;
  std::set<std::string> included_;
  std::vector<Item> items_;
  std::vector<bool> in_import_;
  std::vector<std::string> out_, before_, after_;
  std::vector<std::string> inputs_;
  std::set<std::string> modules_;
  std::map<std::string, std::set<std::string>> names_;
};

} // namespace

int main(int argc, char **argv) {
  try {
    std::string script, include, builtins, output, name;
    std::map<std::string, std::string> defines;
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc)
          fail(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--include")
        include = value();
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
    if (script.empty() || include.empty() || builtins.empty() || output.empty() || name.empty())
      fail("usage: mql5-translate SCRIPT.mq5 --include DIR --builtins FILE --output FILE "
           "--name NAME [-D MACRO=VALUE]...");
    Translator translator(include, load_builtins(builtins), defines);
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
