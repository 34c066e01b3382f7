// The program cache (bridge/src/program_cache.hpp): a second build of the same source, options
// and device loads the entry, and the program works as the first did (arguments checked the same
// way); every damaged, foreign or unreadable entry is rebuilt from source; folders that cannot be
// written only mean no entry; threads filling one cache leave one whole entry. Each case has a
// folder of its own (MQLCL_PROGRAM_CACHE). test_processes.cpp has processes filling one cache.
#define BOOST_TEST_MODULE bridge_program_cache
#include "opencl_device.hpp"
#include "program_cache.hpp"
#include "scoped_environment.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#ifndef _WIN32
#include <unistd.h>
#endif

using namespace mqlcl_test;
namespace fs = std::filesystem;

namespace {

constexpr const char16_t *kScale =
    u"__kernel void scale(__global float *x, float a) { x[get_global_id(0)] *= a; }";
constexpr const char16_t *kOther =
    u"__kernel void shift(__global float *x, float a) { x[get_global_id(0)] += a; }";

// A cache folder of the case's own, set as MQLCL_PROGRAM_CACHE, removed at the end.
struct CacheFolder {
  fs::path path = fs::temp_directory_path() /
                  ("mqlcl-program-cache-test-" + std::to_string(std::random_device{}()));
  ScopedEnvironment setting{"MQLCL_PROGRAM_CACHE", path.string()};
  CacheFolder() { fs::remove_all(path); }
  ~CacheFolder() {
    std::error_code error;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, error);
    fs::remove_all(path, error);
  }
  std::vector<fs::path> entries() const {
    std::vector<fs::path> found;
    std::error_code error;
    for (const auto &entry : fs::directory_iterator(path, error))
      found.push_back(entry.path());
    return found;
  }
};

std::string read_bytes(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
}

std::string build_log(int32_t program) {
  std::vector<char16_t> text(1 << 16);
  BOOST_TEST(CLGetInfoString(program, MQLCL_CL_PROGRAM_BUILD_LOG, text.data(),
                             static_cast<uint32_t>(text.size())) == 1);
  return to_utf8(text.data());
}

// Builds kScale (or `source`) and checks the program: its kernel scales a buffer, and setting a
// value where a buffer goes is refused as on a source build. Returns MQLCL_CL_PROGRAM_FROM_CACHE.
int64_t build_and_check(int32_t context, const char16_t *source = kScale,
                        const char16_t *options = u"") {
  Program program(CLProgramCreateEx(context, source, options, nullptr, 0));
  BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error_text());
  const bool scale = source == kScale;
  Kernel kernel = make_kernel(program, scale ? u"scale" : u"shift");
  const float factor = 3.0f;
  MQLCL_CHECK_FAILS(CLSetKernelArg(kernel, 0, &factor, sizeof(factor)), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  Buffer buffer = make_buffer(context, 64 * sizeof(float));
  std::vector<float> data(64);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<float>(i);
  BOOST_TEST(CLBufferWrite(buffer, data.data(), 0, 0, 64, sizeof(float)) == 64u);
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, buffer) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 1, &factor, sizeof(factor)) == 1);
  const uint32_t global[1] = {64};
  BOOST_TEST(CLExecute(kernel, 1, nullptr, global, nullptr) == 1);
  BOOST_TEST(CLBufferRead(buffer, data.data(), 0, 0, 64, sizeof(float)) == 64u);
  for (size_t i = 0; i < data.size(); ++i)
    BOOST_TEST(data[i] ==
               (scale ? static_cast<float>(i) * factor : static_cast<float>(i) + factor));
  return CLGetInfoInteger(program, MQLCL_CL_PROGRAM_FROM_CACHE);
}

// The key stored in an entry file: its first field, after the 8-byte magic.
std::string key_in(const std::string &entry) {
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i)
    length |= uint64_t{static_cast<unsigned char>(entry[8 + i])} << (8 * i);
  return entry.substr(16, length);
}

} // namespace

BOOST_AUTO_TEST_SUITE(program_cache, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(a_second_build_loads_the_entry) {
  CacheFolder cache;
  Context context = make_context();
  Program first(CLProgramCreate(context, kScale));
  const std::string log = build_log(first);
  BOOST_TEST(CLGetInfoInteger(first, MQLCL_CL_PROGRAM_FROM_CACHE) == 0);
  BOOST_TEST(cache.entries().size() == 1u);
  BOOST_TEST(build_and_check(context) == 1);
  Program second(CLProgramCreate(context, kScale));
  BOOST_TEST(build_log(second) == log);
  // Other options, another source: entries of their own.
  BOOST_TEST(build_and_check(context, kScale, u"-DUNUSED=1") == 0);
  BOOST_TEST(build_and_check(context, kScale, u"-DUNUSED=1") == 1);
  BOOST_TEST(build_and_check(context, kOther) == 0);
  BOOST_TEST(build_and_check(context, kOther) == 1);
  BOOST_TEST(cache.entries().size() == 3u);
}

BOOST_AUTO_TEST_CASE(off_builds_from_source_and_keeps_nothing) {
  CacheFolder cache;
  Context context = make_context();
  ScopedEnvironment off("MQLCL_PROGRAM_CACHE", std::string("off"));
  BOOST_TEST(build_and_check(context) == 0);
  BOOST_TEST(build_and_check(context) == 0);
  BOOST_TEST(!fs::exists(cache.path));
}

#ifndef _WIN32
BOOST_AUTO_TEST_CASE(the_default_folder_is_the_xdg_cache_except_on_pocl) {
  CacheFolder home;
  ScopedEnvironment unset("MQLCL_PROGRAM_CACHE", std::nullopt);
  ScopedEnvironment xdg("XDG_CACHE_HOME", home.path.string());
  Context context = make_context();
  std::vector<char16_t> platform(256);
  BOOST_TEST_REQUIRE(CLGetInfoString(context, MQLCL_CL_PLATFORM_NAME, platform.data(), 256) == 1);
  const bool pocl = to_utf8(platform.data()) == "Portable Computing Language";
  BOOST_TEST(build_and_check(context) == 0);
  BOOST_TEST(build_and_check(context) == (pocl ? 0 : 1));
  BOOST_TEST(fs::exists(home.path / "mqlcl" / "programs") == !pocl);
}
#endif

BOOST_AUTO_TEST_CASE(damaged_entries_are_rebuilt) {
  const std::vector<std::pair<const char *, std::function<std::string(std::string)>>> damages = {
      {"cut to half", [](std::string e) { return e.substr(0, e.size() / 2); }},
      {"cut to 12 bytes", [](std::string e) { return e.substr(0, 12); }},
      {"emptied", [](std::string) { return std::string(); }},
      {"one byte added", [](std::string e) { return e + 'x'; }},
      {"a byte of the binary changed",
       [](std::string e) {
         e[e.size() / 2] = static_cast<char>(e[e.size() / 2] ^ 0x40);
         return e;
       }},
      {"the checksum changed",
       [](std::string e) {
         e.back() = static_cast<char>(e.back() ^ 1);
         return e;
       }},
      {"another magic", [](std::string e) { return "MQLCLPC9" + e.substr(8); }},
  };
  Context context = make_context();
  for (const auto &[what, damage] : damages) {
    BOOST_TEST_CONTEXT(what) {
      CacheFolder cache;
      BOOST_TEST(build_and_check(context) == 0);
      BOOST_TEST_REQUIRE(cache.entries().size() == 1u);
      const fs::path entry = cache.entries().front();
      write_bytes(entry, damage(read_bytes(entry)));
      BOOST_TEST(build_and_check(context) == 0); // rebuilt, and stored again whole
      BOOST_TEST(build_and_check(context) == 1);
    }
  }
}

BOOST_AUTO_TEST_CASE(foreign_entries_are_rebuilt) {
  Context context = make_context();
  CacheFolder cache;
  BOOST_TEST(build_and_check(context, kOther) == 0);
  const std::string other = read_bytes(cache.entries().front());
  fs::remove(cache.entries().front());
  BOOST_TEST(build_and_check(context) == 0);
  const fs::path entry = cache.entries().front();
  const std::string key = key_in(read_bytes(entry));
  BOOST_TEST_REQUIRE(key.find("source:") != std::string::npos);

  // A whole entry of another program under this one's name.
  write_bytes(entry, other);
  BOOST_TEST(build_and_check(context) == 0);
  // An entry whose key names another driver, checksum and all.
  mqlcl::program_cache::Entry foreign;
  foreign.binary = "not this driver's binary";
  std::string other_driver = key;
  other_driver.replace(other_driver.find("driver "), 7, "driver 0.0-another ");
  write_bytes(entry, mqlcl::program_cache::encode(other_driver, foreign));
  BOOST_TEST(build_and_check(context) == 0);
  // The right key and checksum, but a binary the driver refuses.
  write_bytes(entry, mqlcl::program_cache::encode(key, foreign));
  BOOST_TEST(build_and_check(context) == 0);
  BOOST_TEST(build_and_check(context) == 1);
  BOOST_TEST(mqlcl::program_cache::decode(read_bytes(entry), key).has_value());
  BOOST_TEST(!mqlcl::program_cache::decode(read_bytes(entry), other_driver).has_value());
}

BOOST_AUTO_TEST_CASE(folders_that_cannot_be_written_fall_back_to_building) {
  Context context = make_context();
  CacheFolder cache;
  fs::create_directories(cache.path);
  write_bytes(cache.path / "a-file", "x");
  {
    // The cache folder would be inside a file.
    ScopedEnvironment inside_a_file("MQLCL_PROGRAM_CACHE",
                                    (cache.path / "a-file" / "programs").string());
    BOOST_TEST(build_and_check(context) == 0);
    BOOST_TEST(build_and_check(context) == 0);
  }
  {
    // The entry's name is taken by a folder, which no write replaces.
    const fs::path taken = cache.path / "taken";
    ScopedEnvironment folder("MQLCL_PROGRAM_CACHE", taken.string());
    BOOST_TEST(build_and_check(context) == 0);
    const fs::path entry = fs::directory_iterator(taken)->path();
    fs::remove(entry);
    fs::create_directories(entry / "inside");
    BOOST_TEST(build_and_check(context) == 0);
    BOOST_TEST(build_and_check(context) == 0);
    BOOST_TEST(fs::is_directory(entry));
    size_t files = 0;
    for (const auto &item : fs::directory_iterator(taken))
      files += item.path() != entry;
    BOOST_TEST(files == 0u, "a failed write left a file behind");
  }
#ifndef _WIN32
  if (geteuid() == 0) {
    BOOST_TEST_MESSAGE("running as root: a read-only folder cannot be tried");
    return;
  }
  const fs::path read_only = cache.path / "read-only";
  fs::create_directories(read_only);
  fs::permissions(read_only, fs::perms::owner_read | fs::perms::owner_exec);
  ScopedEnvironment folder("MQLCL_PROGRAM_CACHE", read_only.string());
  BOOST_TEST(build_and_check(context) == 0);
  BOOST_TEST(build_and_check(context) == 0);
  fs::permissions(read_only, fs::perms::owner_all);
#endif
}

BOOST_AUTO_TEST_CASE(threads_filling_one_cache_leave_one_whole_entry) {
  Context context = make_context();
  CacheFolder cache;
  std::vector<int64_t> from_cache(6, -1);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < from_cache.size(); ++i)
    threads.emplace_back([&, i] {
      Program program(CLProgramCreate(context, kScale));
      if (program.get() != MQLCL_INVALID_HANDLE)
        from_cache[i] = CLGetInfoInteger(program, MQLCL_CL_PROGRAM_FROM_CACHE);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int64_t loaded : from_cache)
    BOOST_TEST((loaded == 0 || loaded == 1));
  BOOST_TEST_REQUIRE(cache.entries().size() == 1u);
  BOOST_TEST(cache.entries().front().extension() == ".bin");
  BOOST_TEST(build_and_check(context) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
