// The program cache (bridge/src/program_cache.hpp): a second build of the same source, options
// and device loads the entry, and the program works as the first did (arguments checked the same
// way); every damaged, foreign or unreadable entry is rebuilt from source; folders that cannot be
// written only mean no entry; threads filling one cache leave one whole entry; a build that
// includes a file is never cached; the entries keep within the cache's limit. On POSIX: a folder
// others could change is refused with one note, and no link, FIFO or other user's file in it is
// read or followed. Each case has a folder of its own (MQLCL_PROGRAM_CACHE). test_processes.cpp
// has processes filling one cache, and the folders' modes under any umask.
#define BOOST_TEST_MODULE bridge_program_cache
#include "opencl_device.hpp"
#include "program_cache.hpp"
#include "scoped_environment.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#ifndef _WIN32
#include "file_mode.hpp"

#include <sys/stat.h>
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
  // The entries (the folder also holds the lock files of build turns, build-NN.lock).
  std::vector<fs::path> entries() const { return entries_in(path); }
  static std::vector<fs::path> entries_in(const fs::path &folder) {
    std::vector<fs::path> found;
    std::error_code error;
    for (const auto &entry : fs::directory_iterator(folder, error))
      if (entry.path().extension() != ".lock")
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
  BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error);
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

// kScale with its factor from a header that an -I option's folder holds.
constexpr const char *kScaleIncluding =
    "#include \"factor.h\"\n"
    "__kernel void scale(__global float *x, float a) { x[get_global_id(0)] *= a * FACTOR; }";

std::u16string to_u16(const std::string &text) {
  return std::u16string(text.begin(), text.end()); // ASCII
}

// Builds `source` with `options` and runs its `scale` on {0, 1, ...} with a = 1: "<element 1's
// result> built" (or "loaded", by MQLCL_CL_PROGRAM_FROM_CACHE), or why the build failed.
std::string run_scale(int32_t context, const std::string &source, const std::string &options) {
  Program program(
      CLProgramCreateEx(context, to_u16(source).c_str(), to_u16(options).c_str(), nullptr, 0));
  if (program.get() == MQLCL_INVALID_HANDLE)
    return last_error_text();
  Kernel kernel = make_kernel(program, u"scale");
  Buffer buffer = make_buffer(context, 4 * sizeof(float));
  std::vector<float> data = {0, 1, 2, 3};
  const float one = 1.0f;
  const uint32_t global[1] = {4};
  BOOST_TEST(CLBufferWrite(buffer, data.data(), 0, 0, 4, sizeof(float)) == 4u);
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, buffer) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 1, &one, sizeof(one)) == 1);
  BOOST_TEST(CLExecute(kernel, 1, nullptr, global, nullptr) == 1);
  BOOST_TEST(CLBufferRead(buffer, data.data(), 0, 0, 4, sizeof(float)) == 4u);
  const bool loaded = CLGetInfoInteger(program, MQLCL_CL_PROGRAM_FROM_CACHE) == 1;
  return std::to_string(static_cast<int>(data[1])) + (loaded ? " loaded" : " built");
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
    BOOST_TEST_REQUIRE(CacheFolder::entries_in(taken).size() == 1u);
    const fs::path entry = CacheFolder::entries_in(taken).front();
    fs::remove(entry);
    fs::create_directories(entry / "inside");
    BOOST_TEST(build_and_check(context) == 0);
    BOOST_TEST(build_and_check(context) == 0);
    BOOST_TEST(fs::is_directory(entry));
    size_t files = 0;
    for (const fs::path &item : CacheFolder::entries_in(taken))
      files += item != entry;
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

BOOST_AUTO_TEST_CASE(a_build_that_includes_a_file_is_never_cached) {
  Context context = make_context();
  CacheFolder cache;
  const fs::path headers = cache.path.parent_path() / (cache.path.filename().string() + "-headers");
  fs::create_directories(headers);
  const std::string include = "-I" + headers.string();
#ifndef _WIN32 // under Wine the driver is the Linux host's PoCL, which cannot read a Windows path
  std::ofstream(headers / "factor.h") << "#define FACTOR 2.0f\n";
  BOOST_TEST(run_scale(context, kScaleIncluding, include) == "2 built");
  BOOST_TEST(run_scale(context, kScaleIncluding, include) == "2 built");
  // The header changed: the next build runs the new code.
  std::ofstream(headers / "factor.h", std::ios::trunc) << "#define FACTOR 3.0f\n";
  BOOST_TEST(run_scale(context, kScaleIncluding, include) == "3 built");
  BOOST_TEST(cache.entries().empty());
#endif
  // -I alone keeps a build out as well (the options could name a header a driver reads).
  const std::string body = kScaleIncluding;
  const std::string plain = "#define FACTOR 5.0f\n" + body.substr(body.find('\n') + 1);
  BOOST_TEST(run_scale(context, plain, include) == "5 built");
  BOOST_TEST(run_scale(context, plain, include) == "5 built");
  BOOST_TEST(cache.entries().empty());
  // A comment or a string that only mentions #include is cached like any other source.
  const std::string mentions = "// the factor was #included once\n" + plain;
  BOOST_TEST(run_scale(context, mentions, "") == "5 built");
  BOOST_TEST(run_scale(context, mentions, "") == "5 loaded");
  BOOST_TEST(cache.entries().size() == 1u);
  fs::remove_all(headers);
}

// The entries keep within 256 MiB: past it the least recently used go, a load counting as a
// use. Entries of 130 MiB are planted (sparse files: nothing is written), older than any build.
BOOST_AUTO_TEST_CASE(the_entries_keep_within_the_limit_least_recently_used_first) {
  Context context = make_context();
  CacheFolder cache;
  fs::create_directories(cache.path);
  const auto now = fs::file_time_type::clock::now();
  auto plant = [&](const std::string &name, uint64_t bytes, std::chrono::hours age) {
    std::ofstream(cache.path / name).put('x');
    fs::resize_file(cache.path / name, bytes);
    fs::last_write_time(cache.path / name, now - age);
  };
  constexpr uint64_t kPlanted = uint64_t{130} << 20;
  const std::string oldest = std::string(32, 'a') + ".bin", older = std::string(32, 'b') + ".bin";
  plant(oldest, kPlanted, std::chrono::hours(48));
  plant(older, kPlanted, std::chrono::hours(24));
  plant(older + ".tmp-0123456789abcdef", 100, std::chrono::hours(2));  // a dead writer's
  plant(oldest + ".tmp-0123456789abcdef", 100, std::chrono::hours(0)); // a live writer's
  plant("notes.txt", 100, std::chrono::hours(72));                     // not the cache's

  BOOST_TEST(build_and_check(context) == 0); // 260 MiB and this entry: the oldest goes
  std::set<std::string> names;
  for (const auto &item : fs::directory_iterator(cache.path))
    if (item.path().extension() != ".lock")
      names.insert(item.path().filename().string());
  BOOST_TEST_REQUIRE(names.size() == 4u);
  BOOST_TEST(names.count(oldest) == 0u);
  BOOST_TEST(names.count(older) == 1u);
  BOOST_TEST(names.count(older + ".tmp-0123456789abcdef") == 0u);
  BOOST_TEST(names.count(oldest + ".tmp-0123456789abcdef") == 1u);
  BOOST_TEST(names.count("notes.txt") == 1u);
  fs::path scale;
  for (const std::string &name : names)
    if (name.size() == 36 && name != older)
      scale = cache.path / name;
  BOOST_TEST_REQUIRE(!scale.empty());

  // kScale's entry written three days ago but loaded now is kept over the planted one of a day.
  fs::last_write_time(scale, now - std::chrono::hours(72));
  BOOST_TEST(build_and_check(context) == 1);
  plant(std::string(32, 'c') + ".bin", kPlanted, std::chrono::hours(1));
  BOOST_TEST(build_and_check(context, kOther) == 0);
  BOOST_TEST(!fs::exists(cache.path / older));
  BOOST_TEST(fs::exists(cache.path / (std::string(32, 'c') + ".bin")));
  BOOST_TEST(build_and_check(context) == 1);
  BOOST_TEST(build_and_check(context, kOther) == 1);
}

#ifndef _WIN32
// A folder others could change is not used: every build from source, nothing written there, and
// the first build's log (only the first, per folder) says why.
BOOST_AUTO_TEST_CASE(folders_others_could_change_are_refused_with_one_note) {
  Context context = make_context();
  CacheFolder cache;
  auto private_folder = [&](const std::string &name) {
    fs::create_directories(cache.path / name);
    fs::permissions(cache.path / name, fs::perms::owner_all);
    return cache.path / name;
  };
  struct Case {
    fs::path folder;
    std::string why;
  };
  std::vector<Case> cases;
  const fs::path open_to_all = private_folder("open-to-all");
  fs::permissions(open_to_all, fs::perms::all);
  cases.push_back({open_to_all, "writable by others (mode 0777"});
  const fs::path open_to_group = private_folder("open-to-group");
  fs::permissions(open_to_group, fs::perms::group_all, fs::perm_options::add);
  cases.push_back({open_to_group, "writable by others (mode 0770"});
  const fs::path linked = cache.path / "linked";
  fs::create_directory_symlink(private_folder("link-target"), linked);
  cases.push_back({linked, "is a symbolic link"});
  // A trailing slash makes open() follow the link: the folder is opened without it.
  const fs::path linked_slash = cache.path / "linked-slash";
  fs::create_directory_symlink(private_folder("link-target-slash"), linked_slash);
  cases.push_back({linked_slash.string() + "/", "is a symbolic link"});
  if (geteuid() == 0) {
    const fs::path foreign = private_folder("foreign");
    BOOST_TEST_REQUIRE(chown(foreign.c_str(), 65534, 65534) == 0);
    cases.push_back({foreign, "is owned by user 65534, not by this user (0)"});
  } else {
    cases.push_back({"/", "is owned by user 0"});
  }
  for (const Case &refused : cases) {
    BOOST_TEST_CONTEXT(refused.folder) {
      ScopedEnvironment folder("MQLCL_PROGRAM_CACHE", refused.folder.string());
      std::vector<char16_t> log(1 << 16);
      Program first(
          CLProgramCreateEx(context, kScale, u"", log.data(), static_cast<uint32_t>(log.size())));
      BOOST_TEST_REQUIRE(first.get() != MQLCL_INVALID_HANDLE);
      BOOST_TEST(CLGetInfoInteger(first, MQLCL_CL_PROGRAM_FROM_CACHE) == 0);
      const std::string note = to_utf8(log.data());
      BOOST_TEST(note.find("mqlcl: the program cache folder " + refused.folder.string()) == 0u,
                 note);
      BOOST_TEST(note.find(refused.why) != std::string::npos, note);
      BOOST_TEST(build_log(first) == note);
      Program second(CLProgramCreate(context, kScale));
      BOOST_TEST(CLGetInfoInteger(second, MQLCL_CL_PROGRAM_FROM_CACHE) == 0);
      BOOST_TEST(build_log(second).find("mqlcl:") == std::string::npos);
      BOOST_TEST(build_and_check(context) == 0);
      if (refused.folder != "/")
        BOOST_TEST(CacheFolder::entries_in(fs::canonical(refused.folder)).empty());
    }
  }
  fs::permissions(open_to_all, fs::perms::owner_all);
}

// In a private folder, an entry's name taken by a link, a FIFO or another user's file is neither
// read nor followed (nor does it block the build): built from source, and the entry written in
// its place. Links at the build turns' lock files leave their targets alone.
BOOST_AUTO_TEST_CASE(links_fifos_and_other_users_files_are_never_read) {
  Context context = make_context();
  CacheFolder cache;
  BOOST_TEST(build_and_check(context) == 0);
  BOOST_TEST_REQUIRE(cache.entries().size() == 1u);
  const fs::path entry = cache.entries().front();
  const std::string whole = read_bytes(entry);
  const fs::path elsewhere = cache.path.string() + "-elsewhere";
  write_bytes(elsewhere, whole);

  fs::remove(entry);
  fs::create_symlink(elsewhere, entry);
  BOOST_TEST(build_and_check(context) == 0);
  BOOST_TEST(fs::is_regular_file(fs::symlink_status(entry)));
  BOOST_TEST(read_bytes(elsewhere) == whole);

  fs::remove(entry);
  BOOST_TEST_REQUIRE(mkfifo(entry.c_str(), 0600) == 0);
  BOOST_TEST(build_and_check(context) == 0);
  BOOST_TEST(fs::is_regular_file(fs::symlink_status(entry)));
  BOOST_TEST(build_and_check(context) == 1);

  if (geteuid() == 0) {
    BOOST_TEST_REQUIRE(chown(entry.c_str(), 65534, 65534) == 0);
    BOOST_TEST(build_and_check(context) == 0);
    BOOST_TEST(build_and_check(context) == 1);
  }

  const std::string victim_text = "a file of the user's own\n";
  write_bytes(elsewhere, victim_text);
  const std::string victim_mode = mode_of(elsewhere);
  for (const auto &item : fs::directory_iterator(cache.path))
    if (item.path().extension() == ".lock")
      fs::remove(item.path());
  for (int turn = 0; turn < 64; ++turn) {
    char name[32];
    std::snprintf(name, sizeof(name), "build-%02x.lock", turn);
    fs::create_symlink(elsewhere, cache.path / name);
  }
  fs::remove(entry);
  BOOST_TEST(build_and_check(context) == 0);
  BOOST_TEST(build_and_check(context) == 1);
  BOOST_TEST(read_bytes(elsewhere) == victim_text);
  BOOST_TEST(mode_of(elsewhere) == victim_mode);
  fs::remove(elsewhere);
}
#endif

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
