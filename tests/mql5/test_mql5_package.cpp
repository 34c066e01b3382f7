// The layout `mql5-package` (the install component mql5) produces, as MetaTrader's data folder
// expects it: every file there and nothing else, each include and #resource resolving inside it,
// and each embedded kernel being the text of kernels/ - the one source of kernel text, with the
// parts it includes inlined as the host inlines them (harness/src/kernel_source.cpp) - with the
// kernel the script asks CLKernelCreate for.
#define BOOST_TEST_MODULE mql5_package
#include <boost/test/unit_test.hpp>

#include "kernel_source.hpp"
#include "mql5_model.hpp"

#include <filesystem>
#include <map>

namespace fs = std::filesystem;
using namespace mql5check;

namespace {

const fs::path kPackage = fs::path(MQLCL_MQL5_PACKAGE_DIR) / "MQL5";
const fs::path kSource = MQLCL_MQL5_DIR;
const fs::path kKernels = MQLCL_KERNELS_DIR;

std::vector<fs::path> files_in(const fs::path &folder, const std::string &extension) {
  std::vector<fs::path> found;
  for (const auto &entry : fs::directory_iterator(folder))
    if (entry.is_regular_file() && entry.path().extension() == extension)
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

// The kernel functions an OpenCL C source defines: `[__]kernel [attributes] void [attributes]
// name(`.
std::set<std::string> kernel_functions(const std::string &source, const std::string &name) {
  std::vector<Token> tokens = tokenize(source, name);
  auto skip_attributes = [&](size_t i) {
    while (i + 1 < tokens.size() && tokens[i].is_identifier("__attribute__") &&
           tokens[i + 1].is_punct("(")) {
      int depth = 0;
      for (++i; i < tokens.size(); ++i) {
        if (tokens[i].is_punct("("))
          ++depth;
        else if (tokens[i].is_punct(")") && --depth == 0)
          break;
      }
      ++i;
    }
    return i;
  };
  std::set<std::string> kernels;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!tokens[i].is_identifier("__kernel") && !tokens[i].is_identifier("kernel"))
      continue;
    size_t j = skip_attributes(i + 1);
    if (j >= tokens.size() || !tokens[j].is_identifier("void"))
      continue;
    j = skip_attributes(j + 1);
    if (j + 1 < tokens.size() && tokens[j].is_identifier() && tokens[j + 1].is_punct("("))
      kernels.insert(tokens[j].text);
  }
  return kernels;
}

// MQL5 reads a string resource as ANSI, UTF-8 or UTF-16; kernels/ is UTF-8 (no BOM needed).
bool is_utf8(const std::string &text) {
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    size_t continuation = lead < 0x80           ? 0
                          : (lead >> 5) == 0x06 ? 1
                          : (lead >> 4) == 0x0E ? 2
                          : (lead >> 3) == 0x1E ? 3
                                                : 4; // 4: not a lead byte
    if (continuation == 4 || text.size() - i <= continuation)
      return false;
    for (size_t k = 0; k < continuation; ++k)
      if ((static_cast<unsigned char>(text[++i]) >> 6) != 0x02)
        return false;
  }
  return true;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_package_holds_exactly_the_sources) {
  // folder in the package -> where its files come from
  const std::map<fs::path, std::pair<fs::path, std::string>> folders = {
      {kPackage / "Include/mqlcl", {kSource / "Include/mqlcl", ".mqh"}},
      {kPackage / "Scripts/mqlcl", {kSource / "Scripts/mqlcl", ".mq5"}},
      {kPackage / "Scripts/mqlcl/Kernels", {kKernels, ".cl"}}};
  size_t expected = 0;
  for (const auto &[packaged, source] : folders) {
    BOOST_REQUIRE_MESSAGE(fs::is_directory(packaged), packaged << " is missing");
    for (const fs::path &file : files_in(source.first, source.second)) {
      fs::path copy = packaged / file.filename();
      BOOST_TEST(fs::exists(copy), copy << " is missing");
      const std::string text = source.second == ".cl" // a kernel: its parts (kernels/nv/) inlined
                                   ? mqlcl::replay::read_kernel_source(file)
                                   : read_file(file.string());
      if (fs::exists(copy))
        BOOST_TEST((read_file(copy.string()) == text), copy << " differs");
      ++expected;
    }
  }
  BOOST_TEST(fs::is_directory(kPackage / "Libraries"));
  size_t present = 0;
  for (const auto &entry : fs::recursive_directory_iterator(kPackage)) {
    if (!entry.is_regular_file())
      continue;
    if (entry.path() == kPackage / "Libraries/mqlcl.dll")
      continue; // the Windows build's, when there is one
    ++present;
    BOOST_TEST(folders.count(entry.path().parent_path()) == 1u, entry.path() << " is unexpected");
  }
  BOOST_TEST(present == expected);
  BOOST_TEST(expected >= 12u + 2u + 10u);
}

BOOST_AUTO_TEST_CASE(every_include_and_resource_resolves_inside_the_package) {
  std::map<std::string, std::string> kernel_users; // kernels/ file -> the script embedding it
  for (const fs::path &script : files_in(kPackage / "Scripts/mqlcl", ".mq5")) {
    Program program = load_program(script.string(), (kPackage / "Include").string());
    BOOST_TEST(program.problems.empty(), script.filename() << lines(program.problems));
    std::map<std::string, std::string> embedded; // variable -> text
    for (const Resource &resource : program.resources) {
      std::string where = resource.file + ":" + std::to_string(resource.line);
      const std::string &path = resource.path;
      // MQL5 resolves a relative path against the script's folder; keep it inside MQL5/.
      bool relative = !path.empty() && path[0] != '/' && path[0] != '\\' &&
                      path.find(':') == std::string::npos && path.find("..") == std::string::npos;
      BOOST_TEST(relative, where << ": #resource \"" << path << "\" must be a plain relative path");
      fs::path file = fs::path(resource.file).parent_path() / path;
      BOOST_TEST(fs::is_regular_file(file),
                 where << ": #resource \"" << path << "\" -> " << file << " does not exist");
      if (!fs::is_regular_file(file))
        continue;
      BOOST_TEST(resource.type == "string", where);
      std::string text = read_file(file.string());
      BOOST_TEST(is_utf8(text), file << " is not UTF-8 text");
      // The embedded text is kernels/'s, byte for byte once its parts are inlined, and each
      // kernel has one script.
      fs::path original = kKernels / file.filename();
      BOOST_TEST(fs::exists(original), file << " does not come from kernels/");
      if (fs::exists(original))
        BOOST_TEST((text == mqlcl::replay::read_kernel_source(original)),
                   file << " differs from " << original);
      BOOST_TEST(file.stem() == script.stem(), where << ": the kernel is named after its script");
      auto [user, fresh] = kernel_users.emplace(file.filename().string(), script.stem().string());
      BOOST_TEST(fresh, file.filename()
                            << " is embedded by " << user->second << " and " << script.stem());
      BOOST_TEST(program.identifiers.count(resource.variable) == 1u,
                 where << ": " << resource.variable << " is never used");
      embedded[resource.variable] = text;
    }
    // The kernel named in CLKernelCreate(program, "name") is in the embedded source. The COpenCL
    // class (OpenCL.mqh) passes on the name its caller gives: only the scripts' own calls count.
    for (const Call &call : program.calls) {
      if (call.scope != "mqlcl" || call.name != "CLKernelCreate" ||
          fs::path(call.file).filename() == "OpenCL.mqh")
        continue;
      BOOST_REQUIRE(call.arguments.size() == 2u);
      const auto &name = call.arguments[1];
      BOOST_REQUIRE_MESSAGE(name.size() == 1u && name[0].kind == TokenKind::String,
                            call.where() << ": the kernel name is not a literal");
      bool found = false;
      for (const auto &[variable, text] : embedded)
        found = found || kernel_functions(text, variable).count(string_value(name[0])) == 1u;
      BOOST_TEST(found, script.filename()
                            << ": no embedded kernel defines " << string_value(name[0]));
    }
  }
  // Each OpenCL script of the article embeds the kernel of its own name; kernels/ may hold more.
  // matr_mul_gemm has none: its kernels are inside the DLL.
  for (const fs::path &script : files_in(kPackage / "Scripts/mqlcl", ".mq5")) {
    std::string stem = script.stem().string();
    if (stem == "matr_mul_gemm")
      BOOST_TEST(load_program(script.string(), (kPackage / "Include").string()).resources.empty());
    else if (stem.rfind("matr_mul_", 0) == 0 && stem != "matr_mul_2dim")
      BOOST_TEST(kernel_users.count(stem + ".cl") == 1u,
                 script.filename() << " embeds no kernels/" << stem << ".cl");
  }
  for (const fs::path &kernel : files_in(kKernels, ".cl"))
    if (kernel_users.count(kernel.filename().string()) == 0)
      BOOST_TEST_MESSAGE(kernel.filename() << " is embedded by no script");
}

BOOST_AUTO_TEST_CASE(the_utf8_check_tells_text_from_bytes) {
  BOOST_TEST(is_utf8("__kernel void f() {} // 2000 \xC3\x97 2000"));
  BOOST_TEST(is_utf8("\xE2\x80\x94 \xF0\x9F\x98\x80"));
  BOOST_TEST(!is_utf8("\xC3")); // cut short
  BOOST_TEST(!is_utf8("a\x97"
                      "b"));        // a continuation byte alone
  BOOST_TEST(!is_utf8("\xFF\xFE")); // UTF-16's byte order mark
}

BOOST_AUTO_TEST_CASE(the_kernel_parser_finds_kernels_and_only_kernels) {
  std::set<std::string> found =
      kernel_functions("// __kernel void commented(\ninline float helper(float x) { return x; }\n"
                       "__kernel void first(__global float *a) {}\nkernel void second() {}\n"
                       "__kernel __attribute__((reqd_work_group_size(16, 1, 1))) void third() {}\n"
                       "__kernel void __attribute__((vec_type_hint(float4))) fourth() {}\n"
                       "__kernel int not_a_kernel() {}\n",
                       "sample.cl");
  BOOST_TEST((found == std::set<std::string>{"first", "second", "third", "fourth"}));
}
