// Several processes on one machine, as MetaTrader's tester agents are: mqlcl_agent_child
// (agent_child.cpp) started four at a time. They spread over the devices (MQLCL_USE_SPREAD) two
// per device on two, whatever order they start in; a killed agent's slot is free at once; four
// agents filling one program cache at the same moment leave whole entries that the next four
// load; sixteen building one program at once build it once. The bridge's folders are private
// under any umask; a runtime folder others could change, a link in it or a choosing lock held
// for good only make an agent take the fallback device. Each agent verifies its products. ctest
// runs this with POCL_DEVICES="pthread pthread", so that PoCL shows two CPU devices; with one
// device the spread checks say so and stop.
#define BOOST_TEST_MODULE bridge_processes
#include "file_mode.hpp"
#include "opencl_device.hpp"
#include "scoped_environment.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace mqlcl_test;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the system's temporary folder, removed with its contents at the end.
struct TemporaryFolder {
  fs::path path;
  explicit TemporaryFolder(const std::string &what) {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("mqlcl-" + what + "-" + std::to_string(getpid()) + "-" + std::to_string(++counter));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TemporaryFolder() {
    std::error_code error;
    fs::remove_all(path, error);
  }
};

struct Agent {
  pid_t pid = 0;
  fs::path output;
};

Agent start_agent(const fs::path &out_folder, const std::vector<std::string> &arguments) {
  static int counter = 0;
  Agent agent;
  agent.output = out_folder / ("agent-" + std::to_string(++counter) + ".txt");
  std::vector<std::string> args{MQLCL_AGENT_CHILD};
  args.insert(args.end(), arguments.begin(), arguments.end());
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, agent.output.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  int spawned = posix_spawn(&agent.pid, MQLCL_AGENT_CHILD, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  BOOST_TEST_REQUIRE(spawned == 0, "posix_spawn " << MQLCL_AGENT_CHILD << ": error " << spawned);
  return agent;
}

// The agent's line as name=value pairs, after it exited 0; empty (and a failed check) otherwise.
std::map<std::string, std::string> finish(const Agent &agent) {
  int status = 0;
  waitpid(agent.pid, &status, 0);
  std::ifstream in(agent.output);
  std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  BOOST_TEST(ok, "agent " << agent.pid << " ended with status " << status << ": " << line);
  std::map<std::string, std::string> fields;
  if (!ok)
    return fields;
  std::istringstream words(line);
  for (std::string word; words >> word;)
    if (size_t equals = word.find('='); equals != std::string::npos)
      fields[word.substr(0, equals)] = word.substr(equals + 1);
  BOOST_TEST(fields["verified"] == "1", line);
  return fields;
}

// The ordinals MQLCL_USE_SPREAD chooses among: device 0's kind on device 0's platform.
std::vector<int> spread_candidates() {
  std::vector<int> candidates;
  int64_t count = CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT);
  auto kind = [](int32_t d) { return CLGetInfoInteger(d, MQLCL_CL_DEVICE_TYPE) & (2 | 4 | 8); };
  for (int32_t d = 0; d < count; ++d)
    if (kind(d) == kind(0) && CLGetInfoInteger(d, MQLCL_CL_DEVICE_PLATFORM_INDEX) ==
                                  CLGetInfoInteger(0, MQLCL_CL_DEVICE_PLATFORM_INDEX))
      candidates.push_back(d);
  return candidates;
}

// The candidates of a test that needs two devices to spread over; none, with a message saying
// why, when there is one (the test then has nothing to check).
std::vector<int> candidates_to_spread_over() {
  std::vector<int> candidates = spread_candidates();
  if (candidates.size() < 2) {
    BOOST_TEST_MESSAGE("one device: nothing to spread (set POCL_DEVICES=\"pthread pthread\")");
    candidates.clear();
  }
  return candidates;
}

// Four agents holding their devices at once, started `apart` ms after each other: the ordinal
// each landed on.
std::vector<int> run_four(const fs::path &folder, int apart_ms) {
  TemporaryFolder meeting("meeting");
  std::vector<Agent> agents;
  for (int i = 0; i < 4; ++i) {
    agents.push_back(
        start_agent(folder, {"--rendezvous", meeting.path.string(), "--processes", "4"}));
    std::this_thread::sleep_for(std::chrono::milliseconds(apart_ms));
  }
  std::vector<int> ordinals;
  std::string landed;
  for (const Agent &agent : agents) {
    auto fields = finish(agent);
    ordinals.push_back(fields.count("ordinal") ? std::stoi(fields["ordinal"]) : -1);
    landed += " " + std::to_string(ordinals.back()) + " (" + fields["device"] + ")";
  }
  BOOST_TEST_MESSAGE("started " << apart_ms << " ms apart, the agents took" << landed);
  return ordinals;
}

// The names of the files in `folder` (none when it cannot be listed).
std::vector<std::string> names_in(const fs::path &folder) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto &entry : fs::directory_iterator(folder, error))
    names.push_back(entry.path().filename().string());
  return names;
}

// One agent that spreads with MQLCL_RUNTIME_DIR=`runtime`: verified, on a candidate.
void run_one_spreading_agent(const fs::path &runtime, const fs::path &outputs,
                             const std::vector<int> &candidates) {
  ScopedEnvironment folder("MQLCL_RUNTIME_DIR", runtime.string());
  auto fields = finish(start_agent(outputs, {}));
  const int ordinal = fields.count("ordinal") ? std::stoi(fields["ordinal"]) : -1;
  BOOST_TEST((std::find(candidates.begin(), candidates.end(), ordinal) != candidates.end()));
}

} // namespace

BOOST_AUTO_TEST_SUITE(processes, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(four_agents_spread_evenly_whatever_their_start_order) {
  std::vector<int> candidates = spread_candidates();
  BOOST_TEST_MESSAGE(candidates.size() << " device(s) to spread over");
  TemporaryFolder runtime("runtime"), outputs("outputs");
  ScopedEnvironment folder("MQLCL_RUNTIME_DIR", runtime.path.string());
  for (int apart_ms : {0, 300}) {
    std::map<int, int> per_device;
    for (int ordinal : run_four(outputs.path, apart_ms))
      ++per_device[ordinal];
    for (int candidate : candidates) {
      const size_t fair = 4 / candidates.size();
      BOOST_TEST(per_device[candidate] >= static_cast<int>(fair),
                 "device " << candidate << " got " << per_device[candidate] << " of 4 agents ("
                           << apart_ms << " ms apart)");
      BOOST_TEST(per_device[candidate] <= static_cast<int>(fair + (4 % candidates.size() != 0)));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_killed_agents_slot_is_free_at_once) {
  const std::vector<int> candidates = candidates_to_spread_over();
  if (candidates.empty())
    return;
  TemporaryFolder runtime("runtime"), outputs("outputs"), meeting("meeting");
  ScopedEnvironment folder("MQLCL_RUNTIME_DIR", runtime.path.string());
  auto hold = [&] {
    return start_agent(outputs.path,
                       {"--rendezvous", meeting.path.string(), "--processes", "1", "--hold"});
  };
  auto ready_count = [&] {
    size_t count = 0;
    for (const auto &entry : fs::directory_iterator(meeting.path))
      count += entry.path().filename().string().rfind("ready-", 0) == 0;
    return count;
  };
  Agent first = hold(); // takes candidate 0
  for (int tries = 0; tries < 600 && ready_count() < 1; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Agent second = hold(); // takes candidate 1
  for (int tries = 0; tries < 600 && ready_count() < 2; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  BOOST_TEST_REQUIRE(ready_count() == 2u);
  kill(second.pid, SIGKILL);
  int status = 0;
  waitpid(second.pid, &status, 0);
  // Candidate 1's only slot was the killed agent's: the next agent goes there, not to 0, while
  // the first still holds 0.
  Agent next = start_agent(outputs.path, {});
  auto fields = finish(next);
  BOOST_TEST(fields["ordinal"] == std::to_string(candidates[1]));
  std::ofstream(meeting.path / "release").put('\n');
  finish(first);
}

BOOST_AUTO_TEST_CASE(four_agents_fill_one_program_cache_at_once) {
  TemporaryFolder cache("cache"), runtime("runtime"), outputs("outputs");
  ScopedEnvironment cache_folder("MQLCL_PROGRAM_CACHE", cache.path.string());
  ScopedEnvironment runtime_folder("MQLCL_RUNTIME_DIR", runtime.path.string());
  run_four(outputs.path, 0);
  size_t entries = 0;
  for (const auto &entry : fs::directory_iterator(cache.path)) {
    const std::string name = entry.path().filename().string();
    BOOST_TEST(name.find(".tmp-") == std::string::npos, "a write left " << name);
    entries += entry.path().extension() == ".bin";
  }
  BOOST_TEST(entries >= 2u); // the agent's program and the GEMM's
  // The next four load the agent's program from the cache, and their products are right.
  TemporaryFolder meeting("meeting");
  std::vector<Agent> agents;
  for (int i = 0; i < 4; ++i)
    agents.push_back(
        start_agent(outputs.path, {"--rendezvous", meeting.path.string(), "--processes", "4"}));
  for (const Agent &agent : agents)
    BOOST_TEST(finish(agent)["from_cache"] == "1");
}

// Sixteen agents building one program into an empty cache at once, with PoCL's own cache empty
// too: one builds it, fifteen load its entry, all verified. Without turns they all built it, and
// PoCL's cache races failed some (5105, 3 of 144 agents).
BOOST_AUTO_TEST_CASE(sixteen_agents_build_one_program_at_once) {
  TemporaryFolder cache("cache"), pocl("pocl"), runtime("runtime"), outputs("outputs"),
      meeting("meeting");
  ScopedEnvironment cache_folder("MQLCL_PROGRAM_CACHE", cache.path.string());
  ScopedEnvironment pocl_cache("POCL_CACHE_DIR", pocl.path.string());
  ScopedEnvironment runtime_folder("MQLCL_RUNTIME_DIR", runtime.path.string());
  std::vector<Agent> agents;
  for (int i = 0; i < 16; ++i)
    agents.push_back(start_agent(outputs.path, {"--selector", "-1", "--size", "32", "--rendezvous",
                                                meeting.path.string(), "--processes", "16"}));
  int built = 0, loaded = 0;
  for (const Agent &agent : agents) {
    auto fields = finish(agent);
    built += fields["from_cache"] == "0";
    loaded += fields["from_cache"] == "1";
  }
  BOOST_TEST(built == 1);
  BOOST_TEST(loaded == 15);
}

// An agent started under umask 000 or 022 makes its cache and runtime folders (and their
// parents) 0700 and its files 0600: no kernel's source readable, no entry writable by others.
BOOST_AUTO_TEST_CASE(the_folders_are_private_whatever_the_umask) {
  const bool spreads = spread_candidates().size() > 1;
  for (mode_t mask : {mode_t{0}, mode_t{022}}) {
    BOOST_TEST_CONTEXT("umask " << std::oct << mask) {
      TemporaryFolder base("umask"), pocl("pocl"), outputs("outputs");
      const fs::path cache = base.path / "made" / "programs", runtime = base.path / "run";
      ScopedEnvironment cache_folder("MQLCL_PROGRAM_CACHE", cache.string());
      ScopedEnvironment runtime_folder("MQLCL_RUNTIME_DIR", runtime.string());
      ScopedEnvironment pocl_cache("POCL_CACHE_DIR", pocl.path.string()); // not the user's
      const mode_t before = umask(mask);
      Agent agent = start_agent(outputs.path, {"--size", "32"});
      umask(before);
      finish(agent);
      BOOST_TEST(mode_of(base.path / "made") == "0700");
      BOOST_TEST(mode_of(cache) == "0700");
      size_t entries = 0;
      for (const std::string &name : names_in(cache)) {
        BOOST_TEST(mode_of(cache / name) == "0600", name);
        entries += fs::path(name).extension() == ".bin";
      }
      BOOST_TEST(entries >= 2u); // the agent's program and the GEMM's
      if (!spreads)
        continue;
      BOOST_TEST(mode_of(runtime) == "0700");
      BOOST_TEST(names_in(runtime).size() >= 2u); // choose.lock and a slot
      for (const std::string &name : names_in(runtime))
        BOOST_TEST(mode_of(runtime / name) == "0600", name);
    }
  }
}

// A runtime folder another user owns or others may write is not used (the agent takes the
// fallback device and makes no file there); a link at the choosing lock is not followed.
BOOST_AUTO_TEST_CASE(runtime_folders_others_could_change_are_not_used) {
  const std::vector<int> candidates = candidates_to_spread_over();
  if (candidates.empty())
    return;
  TemporaryFolder base("runtime"), outputs("outputs");
  const fs::path open_to_all = base.path / "open-to-all";
  fs::create_directory(open_to_all);
  fs::permissions(open_to_all, fs::perms::all);
  std::vector<fs::path> refused = {open_to_all};
  if (geteuid() == 0) {
    const fs::path foreign = base.path / "foreign";
    fs::create_directory(foreign);
    fs::permissions(foreign, fs::perms::owner_all);
    BOOST_TEST_REQUIRE(chown(foreign.c_str(), 65534, 65534) == 0);
    refused.push_back(foreign);
  }
  for (const fs::path &folder : refused) {
    BOOST_TEST_CONTEXT(folder) {
      run_one_spreading_agent(folder, outputs.path, candidates);
      BOOST_TEST(names_in(folder).empty());
    }
  }

  const fs::path linked = base.path / "linked", victim = base.path / "victim";
  fs::create_directory(linked);
  fs::permissions(linked, fs::perms::owner_all);
  std::ofstream(victim) << "the user's own file\n";
  const std::string victim_mode = mode_of(victim);
  fs::create_symlink(victim, linked / "choose.lock");
  run_one_spreading_agent(linked, outputs.path, candidates);
  BOOST_TEST(fs::is_symlink(linked / "choose.lock"));
  BOOST_TEST(names_in(linked).size() == 1u); // no slot taken
  std::ifstream in(victim);
  BOOST_TEST(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()) ==
             "the user's own file\n");
  BOOST_TEST(mode_of(victim) == victim_mode);
}

// A choosing lock that someone holds for good (a stuck process; a file another user planted)
// delays a spreading agent by a bounded wait (10 s), then it takes the fallback device.
BOOST_AUTO_TEST_CASE(a_choosing_lock_held_for_good_is_waited_for_a_bounded_time) {
  const std::vector<int> candidates = candidates_to_spread_over();
  if (candidates.empty())
    return;
  TemporaryFolder runtime("runtime"), outputs("outputs");
  fs::permissions(runtime.path, fs::perms::owner_all);
  int held = open((runtime.path / "choose.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  BOOST_TEST_REQUIRE(held >= 0);
  BOOST_TEST_REQUIRE(flock(held, LOCK_EX) == 0);
  run_one_spreading_agent(runtime.path, outputs.path, candidates);
  BOOST_TEST(names_in(runtime.path) == std::vector<std::string>{"choose.lock"}); // no slot
  close(held);
}

BOOST_AUTO_TEST_SUITE_END()
