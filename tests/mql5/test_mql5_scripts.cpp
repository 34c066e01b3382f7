// Every script under mql5/Scripts/mqlcl, with everything it includes, calls only what exists: its
// own functions, mqlcl.dll's imports (as mqlcl::CLxxx, with an argument count an overload takes)
// and MQL5 built-ins from mql5/builtins.txt. A call MetaEditor would reject, or an unqualified
// CLxxx that MQL5's built-in would silently take, fails here.
#define BOOST_TEST_MODULE mql5_scripts
#include <boost/test/unit_test.hpp>

#include "mql5_model.hpp"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace mql5check;

namespace {

const std::string kMql5 = MQLCL_MQL5_DIR;
const std::string kInclude = kMql5 + "/Include";
const std::string kTestScripts = MQLCL_MQL5_TEST_SCRIPTS_DIR;

const std::set<std::string> &builtins() {
  static const std::set<std::string> names = load_builtins(kMql5 + "/builtins.txt");
  return names;
}

std::vector<fs::path> scripts(const std::string &folder = kMql5 + "/Scripts/mqlcl") {
  std::vector<fs::path> found;
  for (const auto &entry : fs::directory_iterator(folder))
    if (entry.path().extension() == ".mq5")
      found.push_back(entry.path());
  std::sort(found.begin(), found.end());
  return found;
}

std::string lines(const std::vector<std::string> &problems) {
  std::string text;
  for (const std::string &p : problems)
    text += "\n  " + p;
  return text;
}

bool reported(const std::vector<std::string> &problems,
              std::initializer_list<std::string> fragments) {
  return std::any_of(problems.begin(), problems.end(), [&](const std::string &p) {
    return std::all_of(fragments.begin(), fragments.end(),
                       [&](const std::string &f) { return p.find(f) != std::string::npos; });
  });
}

} // namespace

BOOST_AUTO_TEST_CASE(the_builtins_list_is_read) {
  BOOST_TEST(builtins().count("Print") == 1u);
  BOOST_TEST(builtins().count("GetTickCount") == 1u);
  BOOST_TEST(builtins().count("https://www.mql5.com/en/docs/common/print") == 0u);
  BOOST_TEST(builtins().count("#") == 0u);
}

BOOST_AUTO_TEST_CASE(the_article_scripts_are_all_there) {
  std::set<std::string> names;
  for (const fs::path &script : scripts())
    names.insert(script.stem().string());
  // The article's ten files, the race-free col_local, the device caps of its Fig. 18, and the
  // product through the library's GEMM.
  for (const char *name :
       {"matr_mul_2dim", "matr_mul_1dim", "matr_mul_1dim_coalesced", "matr_mul_sum_local",
        "matr_mul_row_calc", "matr_mul_row_in_private", "matr_mul_col_local",
        "matr_mul_col_local_fixed", "matr_mul_vect", "matr_mul_vect_v2", "matr_mul_vect_v3",
        "mqlcl_device_info", "matr_mul_gemm"})
    BOOST_TEST(names.count(name) == 1u, name);
}

BOOST_AUTO_TEST_CASE(every_script_calls_only_what_exists) {
  std::vector<fs::path> all = scripts();
  for (const fs::path &script : scripts(kTestScripts))
    all.push_back(script); // the replay's own scripts are MQL5 too
  for (const fs::path &script : all) {
    Program program = load_program(script.string(), kInclude);
    std::vector<std::string> problems = check_calls(program, builtins());
    BOOST_TEST(problems.empty(), script.filename() << lines(problems));
    BOOST_TEST(!program.calls.empty(), script.filename());
  }
}

// The programs written as users write them, with their own Include folder after the package's.
BOOST_AUTO_TEST_CASE(every_test_program_calls_only_what_exists) {
  const std::string programs = MQLCL_MQL5_TEST_PROGRAMS_DIR;
  std::vector<fs::path> all = scripts(programs);
  BOOST_TEST(all.size() == 6u);
  for (const fs::path &program : all) {
    Program read = load_program(program.string(), {kInclude, programs + "/Include"});
    std::vector<std::string> problems = check_calls(read, builtins());
    BOOST_TEST(problems.empty(), program.filename() << lines(problems));
    BOOST_TEST(!read.calls.empty(), program.filename());
  }
}

BOOST_AUTO_TEST_CASE(every_include_calls_only_what_exists) {
  for (const auto &entry : fs::directory_iterator(kInclude + "/mqlcl")) {
    if (entry.path().filename() == "matr_mul.mqh" || entry.path().filename() == "matr_mul_host.mqh")
      continue; // they call what each script defines (genMatrices, ...): checked with the scripts
    Program program = load_program(entry.path().string(), kInclude);
    std::vector<std::string> problems = check_calls(program, builtins());
    BOOST_TEST(problems.empty(), entry.path().filename() << lines(problems));
  }
}

BOOST_AUTO_TEST_CASE(the_opencl_scripts_call_the_dll_and_print_the_articles_lines) {
  for (const fs::path &script : scripts()) {
    if (script.stem() == "matr_mul_2dim")
      continue; // host only
    Program program = load_program(script.string(), kInclude);
    std::set<std::string> dll_calls;
    for (const Call &call : program.calls)
      if (call.scope == "mqlcl")
        dll_calls.insert(call.name);
    BOOST_TEST(dll_calls.count("CLGetLastError") == 1u, script.filename());
    if (script.stem() == "mqlcl_device_info")
      continue;
    if (script.stem() == "matr_mul_gemm") { // no kernel of its own: the library's GEMM
      for (const char *name :
           {"CLContextCreate", "CLBufferCreate", "CLBufferWrite", "CLGemm", "CLBufferRead",
            "CLGetInfoInteger", "CLGetInfoString", "CLBufferFree", "CLContextFree"})
        BOOST_TEST(dll_calls.count(name) == 1u, script.filename() << " calls mqlcl::" << name);
      continue;
    }
    for (const char *name :
         {"CLContextCreate", "CLProgramCreateEx", "CLKernelCreate", "CLBufferCreate",
          "CLSetKernelArgMem", "CLBufferWrite", "CLExecute", "CLBufferRead", "CLGetInfoInteger",
          "CLGetInfoString", "CLBufferFree", "CLKernelFree", "CLProgramFree", "CLContextFree"})
      BOOST_TEST(dll_calls.count(name) == 1u, script.filename() << " calls mqlcl::" << name);
  }
}

// The checker itself: each kind of wrong call must be reported, and what only looks like a call
// (in a comment, in a string) must not be.
BOOST_AUTO_TEST_CASE(wrong_calls_are_reported_and_comments_and_strings_skipped) {
  const std::string snippet = R"MQL(
#include <mqlcl/mqlcl.mqh>
#define TWICE(x) ((x)*2)
void OnStart()
  {
   // InComment(1);
   /* InBlockComment(2); */
   string s="InString(3)";
   int ctx=CLContextCreate(0);          // MQL5's built-in would win
   mqlcl::CLNoSuchImport(1);            // not imported
   mqlcl::CLContextCreate(0,1);         // no overload takes 2
   mqlcl::CLBufferWrite(1,s);           // no overload takes 2 (element_size is the only default)
   kernel32::Sleep(1);                  // no such module
   PrintFormatted("x");                 // not an MQL5 built-in
   helper(1,2);                         // defined with one parameter
   ::Print("fine");
   Print(TWICE(ctx));
   helper(ctx);
   uint none[1]={0};
   mqlclExecute(1,1,none,none);
  }
void helper(int a) { Print(a); }
)MQL";
  Program program = parse_program(snippet, "wrong.mq5", kInclude);
  BOOST_TEST(program.problems.empty(), lines(program.problems));
  std::vector<std::string> problems = check_calls(program, builtins());
  BOOST_TEST_MESSAGE("reported:" << lines(problems));
  BOOST_TEST(reported(problems, {"wrong.mq5:9", "CLContextCreate() calls an imported function "
                                                "without its module"}));
  BOOST_TEST(reported(problems, {"wrong.mq5:10", "mqlcl imports no CLNoSuchImport"}));
  BOOST_TEST(reported(problems, {"wrong.mq5:11", "CLContextCreate() with 2 arguments"}));
  BOOST_TEST(reported(problems, {"wrong.mq5:12", "CLBufferWrite() with 2 arguments"}));
  BOOST_TEST(reported(problems, {"wrong.mq5:13", "no module kernel32"}));
  BOOST_TEST(reported(problems, {"wrong.mq5:14", "PrintFormatted() is not defined"}));
  BOOST_TEST(reported(problems, {"wrong.mq5:15", "helper() with 2 arguments"}));
  for (const char *quiet : {"InComment", "InBlockComment", "InString", "TWICE", "wrong.mq5:16",
                            "wrong.mq5:17", "wrong.mq5:18", "mqlclExecute"})
    BOOST_TEST(!reported(problems, {quiet}), quiet << " must not be reported");
  BOOST_TEST(problems.size() == 7u, lines(problems));
}

BOOST_AUTO_TEST_CASE(method_calls_are_checked_against_the_matrix_methods_listed) {
  const std::string snippet = R"MQL(
#include <mqlcl/mqlcl.mqh>
void OnStart()
  {
   matrixf m;
   int buffers[3]={-1,-1,-1};
   Print(m.Rows()+m.Cols());
   m.Trace();                           // a real MQL5 method, but not in builtins.txt
   buffers.Rows();                      // not a matrix
   helper(m);
  }
void helper(const matrix &d) { Print(d.Rows()); d.NoSuchMethod(); }
)MQL";
  Program program = parse_program(snippet, "methods.mq5", kInclude);
  std::vector<std::string> problems = check_calls(program, builtins());
  BOOST_TEST_MESSAGE("reported:" << lines(problems));
  BOOST_TEST(reported(problems, {"methods.mq5:8", "matrixf.Trace is not an MQL5 method"}));
  BOOST_TEST(
      reported(problems, {"methods.mq5:9", ".Rows(): a method call on what is not a matrix"}));
  BOOST_TEST(reported(problems, {"methods.mq5:12", "matrix.NoSuchMethod is not an MQL5 method"}));
  BOOST_TEST(!reported(problems, {"methods.mq5:7"}));
  BOOST_TEST(problems.size() == 3u, lines(problems));
}

// Classes: a method call on an object is checked against the methods its class declares, a plain
// call inside a method may be to a method of its own class, and what MetaEditor refuses - a
// literal or an expression for a reference parameter - is reported.
BOOST_AUTO_TEST_CASE(classes_methods_and_reference_arguments_are_checked) {
  const std::string snippet = R"MQL(
#include <mqlcl/OpenCL.mqh>
class CCounter
  {
private:
   int               m_count;
   void              Bump(int &by) { m_count+=by; Helper(); }
public:
                     CCounter(void) : m_count(0) {}
   int               Count(void) const { return(m_count); }
   void              Add(int &by) { Bump(by); Nope(); }
  };
void OnStart()
  {
   CCounter counter;
   COpenCL cl;
   int one=1;
   counter.Add(one);
   counter.Add(1);
   counter.Add(one+1);
   counter.Missing();
   counter.Count(1);
   cl.SetArgument(0,1,0.5);
   cl.SetArgument(0,1,(float)0.5);
   float f=0.5;
   mqlcl::CLSetKernelArg(1,2,f);
   mqlcl::CLSetKernelArg(1,2,0.5);
   mqlcl::CLSetKernelArg(1,2,(float)f);
  }
)MQL";
  Program program = parse_program(snippet, "classes.mq5", kInclude);
  BOOST_TEST(program.problems.empty(), lines(program.problems));
  BOOST_TEST(program.classes.count("CCounter") == 1u);
  BOOST_TEST(program.classes.count("COpenCL") == 1u);
  std::vector<std::string> problems = check_calls(program, builtins());
  BOOST_TEST_MESSAGE("reported:" << lines(problems));
  BOOST_TEST(reported(problems, {"classes.mq5:7", "Helper() is not defined"}));
  BOOST_TEST(reported(problems, {"classes.mq5:11", "Nope() is not defined"}));
  BOOST_TEST(reported(problems, {"classes.mq5:19", "argument 1 (1)",
                                 "parameter passed as reference, variable expected"}));
  BOOST_TEST(reported(problems, {"classes.mq5:20", "argument 1 (one+1)", "variable expected"}));
  BOOST_TEST(reported(problems, {"classes.mq5:21", "class CCounter declares no method Missing"}));
  BOOST_TEST(reported(problems, {"classes.mq5:22", "counter.Count() with 1 arguments"}));
  BOOST_TEST(reported(problems, {"classes.mq5:27", "argument 3 (0.5)", "variable expected"}));
  BOOST_TEST(reported(problems, {"classes.mq5:28", "argument 3 ((float)f)", "variable expected"}));
  BOOST_TEST(problems.size() == 8u, lines(problems));
}

BOOST_AUTO_TEST_CASE(a_missing_include_is_reported) {
  Program program =
      parse_program("#include <mqlcl/nothing.mqh>\nvoid OnStart() {}\n", "missing.mq5", kInclude);
  BOOST_TEST(reported(check_calls(program, builtins()),
                      {"missing.mq5:1", "#include <mqlcl/nothing.mqh> does not resolve"}));
}

BOOST_AUTO_TEST_CASE(an_unterminated_string_is_reported) {
  Program program = parse_program("void OnStart() { Print(\"oops); }\n", "broken.mq5", kInclude);
  BOOST_TEST(
      reported(check_calls(program, builtins()), {"broken.mq5:1", "unterminated string literal"}));
}

// What real programs write, which MetaEditor takes: declarations with sizes and several names,
// methods defined outside their class, a subclass calling its base's methods, a program's own
// overloads of built-in names, a const array given to a template's T &a[], object pointers.
BOOST_AUTO_TEST_CASE(real_programs_constructs_are_read) {
  const std::string snippet = R"MQL(
#include <mqlcl/OpenCL.mqh>
matrixf g_weights(16,8);
bool MathSin(const double &array[],double &result[]) { return(ArraySize(array)==ArraySize(result)); }
template<typename T> T First(T &values[]) { return(values[0]); }
class CWavelet
  {
private:
   int               m_levels;
public:
   bool              Run(const float &data[],const int levels=3);
   int               Levels(void) const { return(m_levels); }
  };
bool CWavelet::Run(const float &data[],const int levels)
  {
   m_levels=levels;
   return(First(data)>0 && Levels()>0);
  }
class CNet : public COpenCL
  {
public:
   bool              Add(const uint bytes)
     {
      return(BufferCreate(0,bytes,CL_MEM_READ_WRITE) && this.BufferFree(0) && this.GetContext()>=0);
     }
  };
void OnStart()
  {
   matrixf m(16,8);
   float x[],y[],z[];
   matrixf a,b,c;
   double d[];
   CNet *net=new CNet;
   CWavelet wavelet;
   Print(m.Rows(),b.Cols(),c.Transpose().Rows(),matrixf::Zeros(2,2).Cols(),MathSin(0.5),
         MathSin(d,d),wavelet.Run(z),net.Add(16));
   delete net;
  }
)MQL";
  Program program = parse_program(snippet, "real.mq5", kInclude);
  BOOST_TEST(program.problems.empty(), lines(program.problems));
  std::vector<std::string> problems = check_calls(program, builtins());
  BOOST_TEST(problems.empty(), lines(problems));
  BOOST_TEST(program.matrix_names.count("b") == 1u);
  BOOST_TEST(program.matrix_names.count("c") == 1u);
  BOOST_TEST(program.classes.at("CNet").bases == std::vector<std::string>{"COpenCL"});
  BOOST_TEST(program.globals.count("g_weights") == 1u);
}

// Still refused: a method no class of the lineage declares, called plainly, through this. or on
// an object; a call to a name defined nowhere inside a method defined outside its class.
BOOST_AUTO_TEST_CASE(methods_of_subclasses_are_checked_against_their_lineage) {
  const std::string snippet = R"MQL(
#include <mqlcl/OpenCL.mqh>
class CNet : public COpenCL
  {
public:
   bool              Add(void);
  };
bool CNet::Add(void)
  {
   return(BufferCreated(0) || this.NoSuchMethod() || Missing());
  }
void OnStart()
  {
   CNet net;
   net.Add();
   net.Absent(1);
  }
)MQL";
  Program program = parse_program(snippet, "lineage.mq5", kInclude);
  std::vector<std::string> problems = check_calls(program, builtins());
  BOOST_TEST_MESSAGE("reported:" << lines(problems));
  BOOST_TEST(reported(problems, {"lineage.mq5:10", "BufferCreated() is not defined"}));
  BOOST_TEST(reported(problems, {"lineage.mq5:10", "class CNet declares no method NoSuchMethod"}));
  BOOST_TEST(reported(problems, {"lineage.mq5:10", "Missing() is not defined"}));
  BOOST_TEST(reported(problems, {"lineage.mq5:16", "class CNet declares no method Absent"}));
  BOOST_TEST(problems.size() == 4u, lines(problems));
}

// A handle of the COpenCL class given to MQL5's built-in CL* function: directly, through a
// variable, and inside a subclass; mqlcl::CL* on the same handles is right.
BOOST_AUTO_TEST_CASE(class_handles_given_to_built_in_cl_functions_are_reported) {
  const std::string snippet = R"MQL(
#include <mqlcl/OpenCL.mqh>
class CNet : public COpenCL
  {
public:
   long              Group(void) { return(CLGetInfoInteger(GetKernel(0),CL_KERNEL_WORK_GROUP_SIZE)); }
   long              Local(void) { return(CLGetInfoInteger(m_context,CL_DEVICE_LOCAL_MEM_SIZE)); }
  };
void OnStart()
  {
   COpenCL cl;
   int kernel=cl.GetKernel(0);
   Print(CLGetInfoInteger(cl.GetKernel(0),CL_KERNEL_WORK_GROUP_SIZE));
   Print(CLGetInfoInteger(kernel,CL_KERNEL_WORK_GROUP_SIZE));
   Print(mqlcl::CLGetInfoInteger(cl.GetKernel(0),MQLCL_CL_KERNEL_WORK_GROUP_SIZE));
   Print(cl.GetKernelInfoInteger(0,CL_KERNEL_WORK_GROUP_SIZE));
  }
)MQL";
  Program program = parse_program(snippet, "handles.mq5", kInclude);
  std::vector<std::string> problems = check_calls(program, builtins());
  BOOST_TEST_MESSAGE("reported:" << lines(problems));
  for (const char *where : {"handles.mq5:6", "handles.mq5:7", "handles.mq5:13", "handles.mq5:14"})
    BOOST_TEST(reported(problems, {where, "argument 1", "is a handle of the COpenCL class"}),
               where);
  BOOST_TEST(problems.size() == 4u, lines(problems));
}

// MetaQuotes' include files are UTF-16LE with a byte-order mark and CRLF lines, included with
// backslashes; they read as UTF-8 ones do.
BOOST_AUTO_TEST_CASE(utf16_files_and_backslash_includes_are_read) {
  fs::path folder = fs::temp_directory_path() / "mql5_utf16_test";
  fs::create_directories(folder / "Include" / "Lib");
  std::string bytes = "\xFF\xFE";
  for (char32_t c : std::u32string(U"string Greeting(void) { return(\"Grüße\"); }\r\n")) {
    bytes += static_cast<char>(c & 0xFF);
    bytes += static_cast<char>(c >> 8);
  }
  std::ofstream(folder / "Include" / "Lib" / "Greeting.mqh", std::ios::binary) << bytes;
  BOOST_TEST(read_file((folder / "Include" / "Lib" / "Greeting.mqh").string()) ==
             "string Greeting(void) { return(\"Gr\xC3\xBC\xC3\x9F"
             "e\"); }\r\n");
  Program program =
      parse_program("#include <Lib\\Greeting.mqh>\r\nvoid OnStart() { Print(Greeting()); }\r\n",
                    "utf16.mq5", (folder / "Include").string());
  BOOST_TEST(program.problems.empty(), lines(program.problems));
  BOOST_TEST(check_calls(program, builtins()).empty(), lines(check_calls(program, builtins())));
  BOOST_TEST(program.files.size() == 2u);
  fs::remove_all(folder);
}
