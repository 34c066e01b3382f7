// What the MQL5 checks read: the C declarations of include/mqlcl/mqlcl.h, and MQL5 programs
// (a script or include with everything it includes) as imports, definitions, calls, defines and
// resources. Parsers, not patterns: each declaration is split into typed parameters, and each
// call is found by walking the token stream with comments and strings already out of the way.
#pragma once

#include "mql5_lexer.hpp"
#include "mql5_syntax.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mql5check {

// ---- C ------------------------------------------------------------------------------------------

struct CType {
  bool is_const = false; // of the pointee, for a pointer
  std::string base;      // int32_t, char16_t, void, ...
  int pointers = 0;
  std::string text() const;
};

struct CParam {
  CType type;
  std::string name;
};

struct CFunction {
  std::string name;
  CType result;
  std::vector<CParam> params;
  int line = 0;
};

struct CHeader {
  std::vector<CFunction> functions;           // every MQLCL_API declaration, in order
  std::map<std::string, long long> constants; // every #define MQLCL_* with an integer value
  const CFunction *find(const std::string &name) const;
};

// Throws SyntaxError when an MQLCL_API declaration cannot be parsed.
CHeader parse_c_header(const std::string &text, const std::string &file_name);

// ---- MQL5 ---------------------------------------------------------------------------------------

struct MqlParam {
  bool is_const = false;
  std::string type;       // int, uint, string, float, T, ...
  bool reference = false; // &
  bool pointer = false;   // * (object pointers; never allowed for a DLL)
  int array_dims = 0;     // [] count
  std::string name;
  std::string default_text; // empty when the parameter has no default
  std::optional<long long> default_value;
  std::string text() const; // "const float &data[]=4"
};

struct MqlFunction {
  std::string name;
  std::string result;
  std::vector<MqlParam> params;
  std::string module; // the #import module's scope ("mqlcl" for "mqlcl.dll"); empty if defined
  bool is_template = false;
  std::string file;
  int line = 0;
  size_t required() const; // parameters without a default
  std::string where() const { return file + ":" + std::to_string(line); }
  std::string signature() const; // "CLBufferWrite(int buffer,const float &data[],...)"
};

struct Define {
  std::string name;
  bool function_like = false;
  std::vector<Token> value;
  std::string file;
  int line = 0;
  std::optional<long long> integer() const; // 5, -1, (-1), 0x10
};

struct Resource {
  std::string path;     // as written: "Kernels/x.cl"
  std::string type;     // "string", or empty for a plain resource
  std::string variable; // clSrc
  std::string file;     // the file holding the #resource
  int line = 0;
};

struct Call {
  std::string scope;  // "mqlcl" for mqlcl::F(...), "::" for ::F(...), "." for obj.F(), "" plain
  std::string object; // obj of obj.F(), when it is a plain name
  std::string object_type; // obj's declared type where the call is (a local, member or global)
  std::string in_class;    // the class whose method body holds the call, if any
  std::string name;
  std::vector<std::vector<Token>> arguments;
  std::string file;
  int line = 0;
  std::string where() const { return file + ":" + std::to_string(line); }
};

struct SourceFile {
  std::string path;
  std::vector<Token> tokens;
  FileSyntax syntax;
};

// A class (or struct) the program defines.
struct MqlClass {
  std::vector<MqlFunction> methods; // declared in its body, or defined outside it only
  std::vector<std::string> bases;
  std::map<std::string, std::string> fields; // data members and their types
  std::string file;
};

struct Program {
  std::vector<SourceFile> files; // the main file, then each included file once
  std::vector<MqlFunction> imports;
  std::vector<MqlFunction> functions; // defined or declared by the program itself
  std::vector<Define> defines;
  std::vector<Resource> resources;
  std::vector<Call> calls;
  std::set<std::string> identifiers; // every identifier used outside declarations' names
  // Names declared with a matrix or vector type (a variable or parameter), and those types.
  std::map<std::string, std::set<std::string>> matrix_names;
  // Classes (and structs) the program defines, and names declared with a class type (a
  // variable, member or parameter) with those classes.
  std::map<std::string, MqlClass> classes;
  std::map<std::string, std::set<std::string>> object_names;
  std::map<std::string, std::string> globals; // file-scope variables and resources, their types
  std::set<std::string> types;                // classes, structs, enums, template parameters
  // Variables initialized or assigned from a handle of the COpenCL class (cl.GetKernel(0), ...).
  std::set<std::string> class_handle_names;
  std::vector<std::string> problems; // what could not be read: a missing include, a bad import
};

// Loads main_file with everything it includes (UTF-8 or, with its byte-order mark, UTF-16). See
// resolve_include. Never throws: what cannot be read or parsed becomes a problem.
Program load_program(const std::string &main_file, const std::vector<std::string> &include_roots);
Program load_program(const std::string &main_file, const std::string &include_root);
// The same for text in memory (a snippet in a test); its includes are read from disk.
Program parse_program(const std::string &text, const std::string &name,
                      const std::string &include_root);

// The file an #include directive names: <x.mqh> in the include roots (MQL5's Include folders)
// in order, "x.mqh" beside the including file and then in the roots; '\\' separates folders as
// '/' does. Empty when it is nowhere.
std::string resolve_include(const std::vector<Token> &directive, const std::string &file,
                            const std::vector<std::string> &include_roots);

// Whether class_name is base or derives from it, directly or not.
bool derives_from(const Program &program, const std::string &class_name, const std::string &base);
// The methods called `name` of a class and of the classes it derives from.
std::vector<const MqlFunction *>
class_methods(const Program &program, const std::string &class_name, const std::string &name);
// Whether tokens[first, last) use a handle of the COpenCL class: cl.GetKernel(0), GetContext()
// or m_context inside a class derived from it (in_class), or a variable that holds one.
bool holds_class_handle(const Program &program, const std::vector<Token> &tokens, size_t first,
                        size_t last, const std::string &in_class);

// sizeof() of an MQL5 scalar type, or 0 for a type that is not one.
size_t mql5_size_of(const std::string &type);
// The size of one element a DLL receives: a scalar's, or a matrix's or vector's element's.
size_t element_size_of(const std::string &type);

// ---- checks: each returns the problems found, one readable sentence each ------------------------

// The #import blocks of an .mqh against the header and the library's export table.
std::vector<std::string> check_imports(const CHeader &header,
                                       const std::vector<MqlFunction> &imports,
                                       const std::set<std::string> &exports);

// The .mqh's #defines against the header's MQLCL_* constants: same names, same values, and
// nothing unprefixed (MQL5 already has CL_* names, with other values).
std::vector<std::string> check_constants(const CHeader &header, const std::vector<Define> &defines,
                                         const std::string &mqh_file);

// Every call in the program is to a function it defines, a function it imports (qualified with
// the module, with an argument count one overload accepts), or an MQL5 built-in from the list;
// a method call is on a name declared with a matrix or vector type, and the list names it as
// "type.Method" (argument counts of methods are not checked), or on a name declared with a class
// the program defines, which declares the method (with an argument count one overload takes);
// inside a method body, a plain call may also be to a method of its own class.
std::vector<std::string> check_calls(const Program &program, const std::set<std::string> &builtins);

// Reads mql5/builtins.txt: one function name at the start of each non-comment line.
std::set<std::string> load_builtins(const std::string &path);

} // namespace mql5check
