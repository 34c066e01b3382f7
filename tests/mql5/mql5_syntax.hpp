// The declarations of one MQL5 file, read from its tokens: classes and their bases, functions
// and methods (declared in a class body or defined outside it as CLASS::NAME), and every
// declarator - global, member, parameter or local - with its type, so that the checks and the
// translator know a declaration from a call (`matrixf m(16,8);`), each name of `float x[],y[];`
// and what a name inside a method body refers to.
#pragma once

#include "mql5_lexer.hpp"

#include <set>
#include <string>
#include <vector>

namespace mql5check {

enum class DeclScope { File, Member, Parameter, Local };

// One declared name: `static const float x[4]={...}` is specifiers "static const", type
// "float", name "x", one array dimension and an initializer.
struct Declarator {
  DeclScope scope = DeclScope::Local;
  size_t specifiers = 0; // first token of the declaration (static, const, ... or the type)
  size_t type = 0;       // the type's name token
  size_t type_end = 0;   // one past the type, past its <...> template arguments
  size_t name = 0;
  size_t end = 0; // the token after the declarator: ',' ';' ')' or the end of a parameter
  std::string type_name;
  bool is_const = false;
  bool reference = false;
  bool pointer = false;
  int array_dims = 0;
  size_t dims_first = 0;  // the first '[', when array_dims > 0
  size_t initializer = 0; // the '=' or the '(' of constructor arguments; 0 for none
  bool first = true;      // not after a comma of its declaration
  int function = -1;      // the FunctionSyntax whose parameter or local it is
  std::string in_class;   // the class whose member it is, or whose method declares it
};

// A function or method: declared (`int f(int);`) or defined with a body.
struct FunctionSyntax {
  size_t first = 0;         // first token of the declaration (template, specifiers or the result)
  size_t name = 0;          // the name token
  size_t open = 0;          // '(' of the parameter list
  size_t close = 0;         // its ')'
  size_t body_open = 0;     // '{' of the body, 0 when only declared
  size_t body_close = 0;    // its '}'
  std::string class_name;   // the class it belongs to: declared in its body or as CLASS::NAME
  size_t qualifier = 0;     // the CLASS token of an out-of-class definition, else 0
  bool constructor = false; // a constructor or destructor: no result type
  bool in_class_body = false;
};

struct ClassSyntax {
  std::string name;
  size_t keyword = 0; // class or struct (or template, for a class template)
  size_t body_open = 0;
  size_t body_close = 0;
  std::vector<std::string> bases;
  bool is_template = false;
};

// `TYPE CLASS::member = value;` outside the class: a static member's definition.
struct MemberDefinition {
  size_t first = 0;
  size_t qualifier = 0; // the CLASS token
  size_t end = 0;       // the ';'
};

struct FileSyntax {
  std::vector<Declarator> declarators;
  std::vector<FunctionSyntax> functions;
  std::vector<ClassSyntax> classes;
  std::vector<MemberDefinition> member_definitions;
  std::vector<int> declarator_at; // by token: the declarator it names, or -1
  std::vector<int> function_at;   // by token: the function whose name it is, or -1
  std::vector<int> body_of;       // by token: the innermost function body holding it, or -1
  std::vector<size_t> member_initializers; // m_x of `: m_x(0)` in a constructor: not calls
};

// The names a file gives to types: classes, structs, enums, and template parameters.
std::set<std::string> type_names(const std::vector<Token> &tokens);

// Reads the declarations of a file. `types` are the type names known where it is read (those of
// the files it includes and its own, from type_names); MQL5's own type keywords are always known.
FileSyntax read_syntax(const std::vector<Token> &tokens, const std::set<std::string> &types);

// MQL5's built-in type names: void, bool, char ... double, string, color, datetime, matrix ...
bool is_builtin_type(const std::string &name);

// Words that start statements or expressions and are never a type (return, if, new, ...).
bool is_statement_word(const std::string &name);

} // namespace mql5check
