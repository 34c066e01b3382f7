// mql5/Include/mqlcl/mqlcl.mqh against include/mqlcl/mqlcl.h and the built library's export
// table: what MetaTrader would find out only when a script stops with "Cannot find 'CLxxx' in
// 'mqlcl.dll'", or corrupts memory because a declaration passes the wrong types.
#define BOOST_TEST_MODULE mql5_abi
#include <string>
#include <vector> // Boost 1.74's library_info.hpp uses std::vector without including it

#include <boost/dll/library_info.hpp>
#include <boost/test/unit_test.hpp>

#include "mql5_model.hpp"

#include <filesystem>
#include <map>

using namespace mql5check;

namespace {

const std::string kMql5 = MQLCL_MQL5_DIR;
const std::string kMqh = kMql5 + "/Include/mqlcl/mqlcl.mqh";

const CHeader &header() {
  static const CHeader parsed = parse_c_header(read_file(MQLCL_HEADER_PATH), "mqlcl.h");
  return parsed;
}

std::set<std::string> exports_of(const std::string &library) {
  // Not only the host's format: the MinGW DLL is read on Linux too.
  boost::dll::library_info info(library, /*throw_if_not_native_format=*/false);
  std::set<std::string> names;
  for (const std::string &symbol : info.symbols())
    if (symbol.rfind("CL", 0) == 0)
      names.insert(symbol);
  return names;
}

std::string lines(const std::vector<std::string> &problems) {
  std::string text;
  for (const std::string &p : problems)
    text += "\n  " + p;
  return text;
}

// True when some problem contains every one of the fragments.
bool reported(const std::vector<std::string> &problems,
              std::initializer_list<std::string> fragments) {
  for (const std::string &p : problems) {
    bool all = true;
    for (const std::string &f : fragments)
      all = all && p.find(f) != std::string::npos;
    if (all)
      return true;
  }
  return false;
}

const Program &mqh() {
  static const Program program = load_program(kMqh, kMql5 + "/Include");
  return program;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_header_parses_into_its_functions_and_constants) {
  const CHeader &h = header();
  BOOST_TEST(h.functions.size() == 35u);
  const CFunction *write64 = h.find("CLBufferWrite64");
  BOOST_REQUIRE(write64 != nullptr);
  BOOST_TEST(write64->result.text() == "uint64_t");
  BOOST_REQUIRE(write64->params.size() == 6u);
  BOOST_TEST(write64->params[4].type.text() == "uint64_t");
  const CFunction *write = h.find("CLBufferWrite");
  BOOST_REQUIRE(write != nullptr);
  BOOST_TEST(write->result.text() == "uint32_t");
  BOOST_REQUIRE(write->params.size() == 6u);
  BOOST_TEST(write->params[1].type.text() == "const void *");
  BOOST_TEST(write->params[5].name == "element_size");
  const CFunction *execute = h.find("CLExecute");
  BOOST_REQUIRE(execute != nullptr);
  BOOST_TEST(execute->params[4].type.text() == "const uint32_t *");
  BOOST_TEST(h.find("CLResetLastError")->params.empty());
  const CFunction *gemm = h.find("CLGemm");
  BOOST_REQUIRE(gemm != nullptr);
  BOOST_REQUIRE(gemm->params.size() == 22u);
  BOOST_TEST(gemm->params[10].type.text() == "double");
  BOOST_TEST(gemm->params[12].type.text() == "uint64_t");
  BOOST_TEST(h.constants.at("MQLCL_USE_ANY") == -1);
  BOOST_TEST(h.constants.at("MQLCL_ERR_OPENCL_SELECTDEVICE") == 5114);
  BOOST_TEST(h.constants.count("MQLCL_API") == 0u); // not an integer: not a constant
  BOOST_TEST(h.constants.size() > 90u);
}

BOOST_AUTO_TEST_CASE(the_mqh_reads_without_problems) {
  BOOST_TEST(mqh().problems.empty(), lines(mqh().problems));
  // 35 functions; CLSetKernelArg once per element type, CLBufferWrite and CLBufferRead once per
  // element type and per matrix and vector type (float, double, complex: COpenCL's templates),
  // CLBufferReadTake per float and double matrix and vector type, the 64-bit forms once per
  // element type and per float and double matrix type.
  std::map<std::string, int> overloads;
  for (const MqlFunction &f : mqh().imports) {
    BOOST_TEST(f.module == "mqlcl");
    ++overloads[f.name];
  }
  BOOST_TEST(overloads.size() == 35u);
  BOOST_TEST(overloads["CLMatMul"] == 2); // matrixf, matrix
  BOOST_TEST(overloads["CLSetKernelArg"] == 10);
  BOOST_TEST(overloads["CLBufferWrite"] == 16);
  BOOST_TEST(overloads["CLBufferRead"] == 16);
  BOOST_TEST(overloads["CLBufferReadTake"] == 14);
  BOOST_TEST(overloads["CLBufferWrite64"] == 12);
  BOOST_TEST(overloads["CLBufferRead64"] == 12);
  BOOST_TEST(overloads["CLGemm"] == 1);
  BOOST_TEST(overloads["CLExecute"] == 1);
}

BOOST_AUTO_TEST_CASE(every_import_matches_the_header_and_the_built_library) {
  std::set<std::string> exports = exports_of(MQLCL_LIBRARY_PATH);
  BOOST_TEST(exports.size() == 35u);
  std::vector<std::string> problems = check_imports(header(), mqh().imports, exports);
  BOOST_TEST(problems.empty(), "mqlcl.mqh against " << MQLCL_LIBRARY_PATH << lines(problems));
}

BOOST_AUTO_TEST_CASE(every_constant_matches_the_header) {
  std::vector<std::string> problems = check_constants(header(), mqh().defines, kMqh);
  BOOST_TEST(problems.empty(), lines(problems));
}

BOOST_AUTO_TEST_CASE(the_windows_dll_when_one_was_built) {
  // The MinGW preset's DLL, read on Linux: Boost.DLL parses PE export tables on any host.
  std::filesystem::path dll = std::filesystem::path(MQLCL_SOURCE_DIR) / "build-mingw/bin/mqlcl.dll";
  if (!std::filesystem::exists(dll)) {
    BOOST_TEST_MESSAGE("no " << dll << ": only the Linux library was checked");
    return;
  }
  std::vector<std::string> problems =
      check_imports(header(), mqh().imports, exports_of(dll.string()));
  BOOST_TEST(problems.empty(), "mqlcl.mqh against " << dll << lines(problems));
}

// The checker itself: a deliberately wrong import block must be reported, problem by problem.
BOOST_AUTO_TEST_CASE(a_wrong_import_block_is_reported_problem_by_problem) {
  const std::string snippet = R"MQL(
#import "mqlcl.dll"
int  CLHandleType(int handle);
long CLContextCreate(int device);                               // returns int32_t
void CLContextFree(int context,int extra);                      // one parameter too many
int  CLGetInfoString(int handle,int prop,string value,uint capacity); // must be string &
int  CLKernelCreate(uint program,string kernel_name);           // handle is int32_t
int  CLSetKernelArg(int kernel,uint arg_index,const float &value,uint size=8);   // 4
int  CLSetKernelArg(int kernel,uint arg_index,const double &value,uint size);    // no default
uint CLBufferRead(int buffer,const float &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferRead(int buffer,matrixf &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=8); // 4
uint CLBufferRead(int buffer,matrix &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=8); // one
int  CLExecutionStatus(int *kernel);                            // a pointer
int  CLSetKernelArgMem(int kernel=0,uint arg_index,int buffer); // defaults must trail
int  CLNoSuchFunction(int handle);                              // exported by nobody
int  CLProgramCreate(int context,string &source);               // a copy, not a reference
#import
)MQL";
  Program program = parse_program(snippet, "wrong.mqh", kMql5 + "/Include");
  BOOST_TEST(program.problems.empty(), lines(program.problems));
  std::vector<std::string> problems =
      check_imports(header(), program.imports, exports_of(MQLCL_LIBRARY_PATH));
  BOOST_TEST_MESSAGE("reported:" << lines(problems));

  BOOST_TEST(reported(problems, {"CLContextCreate", "must return int"}));
  BOOST_TEST(reported(problems, {"CLContextFree", "has 2 parameters", "has 1"}));
  BOOST_TEST(reported(problems, {"CLGetInfoString", "parameter 3", "must be `string &`"}));
  BOOST_TEST(reported(problems, {"CLKernelCreate", "parameter 1", "must be int"}));
  BOOST_TEST(reported(problems, {"CLSetKernelArg", "const float &value", "default to 4"}));
  BOOST_TEST(reported(problems, {"CLSetKernelArg", "const double &value", "default to 8"}));
  BOOST_TEST(reported(problems, {"CLBufferRead", "parameter 2", "must not be const"}));
  BOOST_TEST(reported(problems, {"CLBufferRead", "matrixf &data", "default to 4"}));
  BOOST_TEST(reported(problems, {"CLBufferRead", "parameter 2", "an array of matrix"}));
  BOOST_TEST(reported(problems, {"CLExecutionStatus", "is a pointer"}));
  BOOST_TEST(reported(problems, {"CLSetKernelArgMem", "parameter 2", "trailing"}));
  BOOST_TEST(reported(problems, {"CLNoSuchFunction", "exports no CLNoSuchFunction"}));
  BOOST_TEST(reported(problems, {"CLNoSuchFunction", "declares no CLNoSuchFunction"}));
  BOOST_TEST(reported(problems, {"CLProgramCreate", "must be `string`"}));
  // Missing imports and overloads.
  BOOST_TEST(reported(problems, {"CLResetLastError has no #import declaration"}));
  BOOST_TEST(reported(problems, {"CLBufferWrite has no #import declaration"}));
  BOOST_TEST(reported(problems, {"CLSetKernelArg has no overload for int"}));
  BOOST_TEST(reported(problems, {"CLBufferRead has no overload for double"}));
  BOOST_TEST(reported(problems, {"exports CLExecute, which no #import declares"}));
  // What is right stays quiet.
  BOOST_TEST(!reported(problems, {"CLHandleType"}));
}

BOOST_AUTO_TEST_CASE(a_parameter_the_parser_cannot_read_is_a_problem_not_a_pass) {
  Program program = parse_program("#import \"mqlcl.dll\"\nint CLHandleType(int handle = );\n"
                                  "#import\n",
                                  "bad.mqh", kMql5 + "/Include");
  BOOST_TEST(reported(program.problems, {"bad.mqh:2", "cannot read parameter"}));
  Program unclosed = parse_program("#import \"mqlcl.dll\"\nint CLHandleType(int handle);\n",
                                   "unclosed.mqh", kMql5 + "/Include");
  BOOST_TEST(reported(unclosed.problems, {"not closed"}));
}

BOOST_AUTO_TEST_CASE(wrong_constants_are_reported) {
  const std::string snippet = "#define MQLCL_ERR_OPENCL_EXECUTE 5110\n"
                              "#define MQLCL_USE_ANY (-1)\n"
                              "#define CL_USE_ANY (-1)\n";
  Program program = parse_program(snippet, "wrong.mqh", kMql5 + "/Include");
  std::vector<std::string> problems = check_constants(header(), program.defines, "wrong.mqh");
  BOOST_TEST(reported(problems, {"MQLCL_ERR_OPENCL_EXECUTE is 5110; mqlcl.h has 5109"}));
  BOOST_TEST(reported(problems, {"CL_USE_ANY lacks the MQLCL_ prefix"}));
  BOOST_TEST(reported(problems, {"no #define MQLCL_CL_KERNEL_EXECUTION_TIME"}));
  BOOST_TEST(!reported(problems, {"MQLCL_USE_ANY is"}));
}
