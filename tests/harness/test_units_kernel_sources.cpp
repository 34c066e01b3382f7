// Kernel files and their includes, as the harness inlines them and as the library embeds them.
#include "gemm/kernels.hpp"
#include "kernel_source.hpp"
#include "units_support.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace mqlcl::replay;
using namespace harness_units;

// Kernel files include their parts (kernels/nv/, kernels/tiles/) with `#include "relative/path"`
// lines, which the host inlines (kernel_source.hpp; cmake/KernelIncludes.cmake for the library's
// GEMM).
BOOST_AUTO_TEST_SUITE(kernel_sources)

namespace {

// The files are written as bytes, so their lines end in "\n" on Windows too.
std::filesystem::path kernel_tree() {
  const std::filesystem::path dir = std::filesystem::path(MQLCL_TEST_WORK_DIR) / "kernel-includes";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "parts" / "deeper");
  std::ofstream(dir / "entry.cl", std::ios::binary)
      << "// entry\n"
         "#include \"parts/a.cl\"\n"
         "  #  include \"parts/a.cl\"   // again: left out\n"
         "#include <stdio.h>\n"
         "// #include \"parts/missing.cl\"\n"
         "__kernel void k(void) {}\n";
  // Relative to the including file's folder, a part included from two places, and the entry.
  std::ofstream(dir / "parts" / "a.cl", std::ios::binary) << "a1\n#include \"deeper/b.cl\"\na2\n";
  std::ofstream(dir / "parts" / "deeper" / "b.cl", std::ios::binary)
      << "b1\n#include \"../../common.cl\"\n"
         "#include \"../../entry.cl\"\nb2\n";
  std::ofstream(dir / "common.cl", std::ios::binary) << "common, no newline at the end";
  return dir;
}

// A path as the inliner's messages name it: absolute, normalised (backslashes on Windows).
std::string shown(const std::filesystem::path &path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

} // namespace

BOOST_AUTO_TEST_CASE(includes_are_inlined_recursively_relative_to_their_file_and_once_each) {
  const std::filesystem::path dir = kernel_tree();
  const std::string text = read_kernel_source(dir / "entry.cl");
  BOOST_TEST(text == "// entry\n"
                     "a1\nb1\ncommon, no newline at the end\n\nb2\na2\n"
                     "\n"
                     "#include <stdio.h>\n"
                     "// #include \"parts/missing.cl\"\n"
                     "__kernel void k(void) {}\n");
  // Text read elsewhere (as Runner::read_kernel reads it), resolved against its file's folder.
  BOOST_TEST(inline_kernel_includes("x\n#include \"common.cl\"", dir / "entry.cl") ==
             "x\ncommon, no newline at the end");
  BOOST_TEST(inline_kernel_includes("no includes\r\n", dir / "nowhere.cl") == "no includes\r\n");
}

BOOST_AUTO_TEST_CASE(a_missing_include_names_the_including_file_and_the_missing_one) {
  const std::filesystem::path dir = kernel_tree();
  std::ofstream(dir / "parts" / "broken.cl", std::ios::binary)
      << "one\n#include \"../nv/gone.cl\"\n";
  std::ofstream(dir / "broken_entry.cl", std::ios::binary) << "#include \"parts/broken.cl\"\n";
  const std::string message = error_of([&] { read_kernel_source(dir / "broken_entry.cl"); });
  BOOST_TEST(contains(message, shown(dir / "parts" / "broken.cl") + " line 2"), message);
  BOOST_TEST(contains(message, "#include \"../nv/gone.cl\""), message);
  BOOST_TEST(contains(message, shown(dir / "nv" / "gone.cl") + " is missing"), message);
  BOOST_TEST(contains(error_of([&] { read_kernel_source(dir / "absent.cl"); }),
                      (dir / "absent.cl").string() + " is missing"));
}

// The library's GEMM embeds its kernels inlined by CMake at build time; the harness replays and
// tunes them inlined by kernel_source.cpp: the two texts must be the same.
BOOST_AUTO_TEST_CASE(the_embedded_gemm_kernels_are_the_harness_s_inlined_files) {
  BOOST_TEST_REQUIRE(mqlcl::gemm::kKernelFileCount > 0u);
  for (size_t i = 0; i < mqlcl::gemm::kKernelFileCount; ++i) {
    const std::string name = mqlcl::gemm::kKernelFiles[i].name;
    std::vector<std::filesystem::path> found;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(MQLCL_TEST_KERNELS))
      if (entry.path().filename() == name)
        found.push_back(entry.path());
    BOOST_TEST_REQUIRE(found.size() == 1u, name);
    BOOST_TEST(read_kernel_source(found[0]) == mqlcl::gemm::kKernelFiles[i].text, name);
  }
}

// Every part in kernels/nv/ and kernels/tiles/ is included by a kernel file, none ships unused:
// each starts with a comment line of its own, which some kernel file holds once inlined.
BOOST_AUTO_TEST_CASE(every_kernel_part_is_included_by_a_kernel_file) {
  const std::filesystem::path kernels = MQLCL_TEST_KERNELS;
  std::string all_entries;
  for (const auto &entry : std::filesystem::directory_iterator(kernels))
    if (entry.path().extension() == ".cl")
      all_entries += read_kernel_source(entry.path());
  size_t parts = 0;
  for (const char *folder : {"nv", "tiles"})
    for (const auto &entry : std::filesystem::recursive_directory_iterator(kernels / folder)) {
      if (entry.path().extension() != ".cl")
        continue;
      std::string first_line;
      std::getline(std::ifstream(entry.path()), first_line);
      BOOST_TEST(contains(all_entries, first_line), entry.path()
                                                        << " is included by no kernel file");
      ++parts;
    }
  BOOST_TEST(parts >= 6u); // nv/'s five and tiles/slice_copies.cl
}

BOOST_AUTO_TEST_SUITE_END()
