// Loads the built library by path with Boost.DLL, as a host program (or MetaTrader's #import)
// does, and checks that its export table is exactly the header's functions, undecorated.
#define BOOST_TEST_MODULE bridge_abi
#include <string>
#include <vector> // Boost 1.74's library_info.hpp uses std::vector without including it

#include <boost/dll/library_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

// Every `MQLCL_API <type> <Name>(` in the public header.
std::set<std::string> header_functions() {
  std::ifstream file(MQLCL_HEADER_PATH);
  std::stringstream text;
  text << file.rdbuf();
  std::string header = text.str();
  std::set<std::string> names;
  std::regex declaration(R"(MQLCL_API\s+[A-Za-z0-9_]+\s*\*?\s*(CL[A-Za-z0-9]+)\s*\()");
  for (auto it = std::sregex_iterator(header.begin(), header.end(), declaration);
       it != std::sregex_iterator(); ++it)
    names.insert((*it)[1]);
  return names;
}

} // namespace

BOOST_AUTO_TEST_CASE(header_declares_mql5s_functions) {
  std::set<std::string> names = header_functions();
  // MQL5's 19 OpenCL functions, plus CLProgramCreateEx (the build-log overload), last error
  // (read, reset, set), CLBufferTensorMap, CLGemm, CLMatMul, the three owner calls, the three
  // non-blocking read calls and the 64-bit buffer calls.
  BOOST_TEST(names.size() == 35u);
  for (const char *mql5 :
       {"CLHandleType", "CLGetInfoInteger", "CLGetInfoString", "CLContextCreate", "CLContextFree",
        "CLGetDeviceInfo", "CLProgramCreate", "CLProgramFree", "CLKernelCreate", "CLKernelFree",
        "CLSetKernelArg", "CLSetKernelArgMem", "CLSetKernelArgMemLocal", "CLBufferCreate",
        "CLBufferFree", "CLBufferWrite", "CLBufferRead", "CLExecute", "CLExecutionStatus"})
    BOOST_TEST(names.count(mql5) == 1u, mql5);
}

BOOST_AUTO_TEST_CASE(library_exports_exactly_the_header_functions) {
  boost::dll::library_info info(MQLCL_LIBRARY_PATH);
  std::vector<std::string> exported = info.symbols();
  std::set<std::string> ours;
  for (const std::string &symbol : exported)
    if (symbol.rfind("CL", 0) == 0 || symbol.find('@') != std::string::npos ||
        symbol.rfind("_Z", 0) == 0)
      ours.insert(symbol);
  BOOST_TEST(ours == header_functions(), "exports differ from the header");
  for (const std::string &symbol : exported) {
    BOOST_TEST(symbol.rfind("_Z", 0) != 0, "C++ symbol exported: " << symbol);
    BOOST_TEST(symbol.find('@') == std::string::npos, "decorated symbol exported: " << symbol);
  }
}

BOOST_AUTO_TEST_CASE(every_function_is_found_and_callable_through_the_loader) {
  boost::dll::shared_library library(MQLCL_LIBRARY_PATH);
  for (const std::string &name : header_functions())
    BOOST_TEST(library.has(name), name);
  auto &handle_type = library.get<int32_t(int32_t)>("CLHandleType");
  auto &last_error = library.get<int32_t()>("CLGetLastError");
  auto &reset = library.get<void()>("CLResetLastError");
  auto &context_free = library.get<void(int32_t)>("CLContextFree");
  reset();
  BOOST_TEST(handle_type(42) == 0);
  context_free(42);
  BOOST_TEST(last_error() == 5102);
}
