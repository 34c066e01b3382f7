// mqlcl.dll as MetaTrader 5 uses it: loaded with LoadLibraryW by its full path, functions found
// with GetProcAddress, called from a program thread, a kernel round trip on the real device
// (PoCL through Wine's OpenCL.dll), and both ways out: FreeLibrary with objects still alive
// (everything is released, the process goes on; after staged transfers, once the lane threads
// have left) and process exit with objects alive (no crash, no hang, no OpenCL call).
#define BOOST_TEST_MODULE windows_loader
#include "loaded_bridge.hpp"
#include "opencl_counting.hpp"
#include "opencl_device.hpp" // device_required(), device_under_test(); nothing that calls the DLL

#include <boost/test/unit_test.hpp>

#include <array>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

using namespace mqlcl_windows;

namespace {

const std::wstring kBridgePath = bridge_path();
const std::wstring kCountingPath = executable_folder() + L"opencl_counting.dll";

bool bridge_is_loaded() {
  return GetModuleHandleW(L"mqlcl.dll") != nullptr;
}

// Runs `body` on a native thread of its own and waits for it to end, as MetaTrader runs each
// MQL5 program on a thread of its own.
template <class Body> auto on_own_thread(Body body) -> decltype(body()) {
  struct Call {
    Body &body;
    decltype(body()) result{};
  } call{body};
  HANDLE thread = CreateThread(
      nullptr, 0,
      [](void *argument) -> DWORD {
        auto *pending = static_cast<Call *>(argument);
        pending->result = pending->body();
        return 0;
      },
      &call, 0, nullptr);
  if (thread == nullptr)
    throw std::runtime_error("CreateThread failed");
  WaitForSingleObject(thread, INFINITE);
  CloseHandle(thread);
  return call.result;
}

// Checks made on a worker thread, reported by the test's own (Boost.Test is not thread-safe).
class Problems {
public:
  void check(bool ok, const std::string &what) {
    if (!ok)
      text_ += what + "\n";
  }
  // The same with the bridge's last error, read here, after the checked call: a message built
  // beside the call as an argument may be evaluated before it.
  void check(bool ok, const std::string &what, const LoadedBridge &bridge) {
    if (!ok)
      text_ += what + ": " + bridge.last_error_text() + "\n";
  }
  std::string text() const { return text_; }

private:
  std::string text_;
};

// opencl_counting.dll, loaded by the test too, to read its counters.
class Counting {
public:
  Counting() : module_(LoadLibraryW(kCountingPath.c_str())) {
    if (module_ != nullptr)
      live_ = reinterpret_cast<opencl_counting::LiveFunction>(
          reinterpret_cast<void *>(GetProcAddress(module_, "opencl_counting_live")));
  }
  ~Counting() {
    if (module_ != nullptr)
      FreeLibrary(module_);
  }
  Counting(const Counting &) = delete;
  Counting &operator=(const Counting &) = delete;
  bool loaded() const { return live_ != nullptr; }
  int64_t live(int kind) const { return live_(kind); }
  int64_t total() const {
    int64_t sum = 0;
    for (int kind = 0; kind < opencl_counting::kKinds; ++kind)
      sum += live(kind);
    return sum;
  }
  std::string describe() const {
    std::string text;
    for (int kind = 0; kind < opencl_counting::kKinds; ++kind)
      text +=
          std::string(opencl_counting::kKindNames[kind]) + "=" + std::to_string(live(kind)) + " ";
    return text;
  }

private:
  HMODULE module_;
  opencl_counting::LiveFunction live_ = nullptr;
};

// An environment variable set for as long as this lives (bridges loaded meanwhile read it;
// child processes inherit it).
class Environment {
public:
  Environment(const wchar_t *name, const std::wstring &value) : name_(name) {
    SetEnvironmentVariableW(name, value.c_str());
  }
  ~Environment() { SetEnvironmentVariableW(name_, nullptr); }
  Environment(const Environment &) = delete;
  Environment &operator=(const Environment &) = delete;

private:
  const wchar_t *name_;
};

// The full MQL5 sequence on 2^20 floats, checked element by element; frees everything.
std::string vector_add_round_trip(LoadedBridge &bridge) {
  const uint32_t n = 1u << 20;
  std::vector<float> a(n), b(n), sum(n, -1.0f);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000);
    b[i] = static_cast<float>(i % 7) * 0.5f;
  }
  int32_t context = bridge.CLContextCreate(mqlcl_test::device_under_test());
  if (context == MQLCL_INVALID_HANDLE)
    return "CLContextCreate: " + bridge.last_error_text();
  int32_t program = bridge.CLProgramCreate(context, kKernels);
  int32_t kernel = bridge.CLKernelCreate(program, u"add");
  std::array<int32_t, 3> buffers{};
  for (int32_t &buffer : buffers)
    buffer = bridge.CLBufferCreate(context, n * 4, MQLCL_MEM_READ_WRITE);
  Problems problems;
  problems.check(kernel != MQLCL_INVALID_HANDLE && buffers[2] != MQLCL_INVALID_HANDLE,
                 "creating the program, kernel or buffers", bridge);
  problems.check(bridge.CLBufferWrite(buffers[0], a.data(), 0, 0, n, 4) == n, "CLBufferWrite a");
  problems.check(bridge.CLBufferWrite(buffers[1], b.data(), 0, 0, n, 4) == n, "CLBufferWrite b");
  for (uint32_t arg = 0; arg < 3; ++arg)
    problems.check(bridge.CLSetKernelArgMem(kernel, arg, buffers[arg]) == 1, "CLSetKernelArgMem");
  const uint32_t global[1] = {n};
  problems.check(bridge.CLExecute(kernel, 1, nullptr, global, nullptr) == 1, "CLExecute");
  problems.check(bridge.CLBufferRead(buffers[2], sum.data(), 0, 0, n, 4) == n, "CLBufferRead");
  size_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i)
    wrong += sum[i] != a[i] + b[i] ? 1 : 0;
  problems.check(wrong == 0, std::to_string(wrong) + " of 2^20 sums are wrong");
  problems.check(bridge.CLExecutionStatus(kernel) == MQLCL_CL_COMPLETE, "CLExecutionStatus");
  for (int32_t buffer : buffers)
    bridge.CLBufferFree(buffer);
  bridge.CLKernelFree(kernel);
  bridge.CLProgramFree(program);
  bridge.CLContextFree(context);
  problems.check(bridge.CLGetLastError() == 0, "a CL*Free failed", bridge);
  problems.check(bridge.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == 0, "handles left alive");
  return problems.text();
}

// C = 1.5 * op(A) * op(B) - 0.5 * C, 37 x 64 with K 23, through the DLL's own kernels, checked
// element by element: small integers, so every product and sum is exact in float and double.
template <class Real>
std::string gemm_round_trip(LoadedBridge &bridge, int32_t element_type, int32_t transpose_a,
                            int32_t transpose_b) {
  const uint32_t m = 37, n = 64, k = 23;
  const std::string name = element_type == MQLCL_GEMM_DOUBLE ? "double" : "float";
  std::vector<Real> a(m * k), b(k * n), c(m * n), result(m * n);
  for (uint32_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<Real>(static_cast<int>(i * 7 % 13) - 6);
  for (uint32_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<Real>(static_cast<int>(i * 5 % 11) - 5);
  for (uint32_t i = 0; i < c.size(); ++i)
    c[i] = static_cast<Real>(static_cast<int>(i % 9) - 4);
  int32_t context = bridge.CLContextCreate(mqlcl_test::device_under_test());
  if (context == MQLCL_INVALID_HANDLE)
    return "CLContextCreate: " + bridge.last_error_text();
  Problems problems;
  const auto size = static_cast<uint32_t>(sizeof(Real));
  std::array<int32_t, 3> buffers{};
  const std::array<const std::vector<Real> *, 3> data{&a, &b, &c};
  for (size_t i = 0; i < 3; ++i) {
    const auto count = static_cast<uint32_t>(data[i]->size());
    buffers[i] = bridge.CLBufferCreate(context, count * size, MQLCL_MEM_READ_WRITE);
    problems.check(bridge.CLBufferWrite(buffers[i], data[i]->data(), 0, 0, count, size) == count,
                   name + ": creating or writing a buffer", bridge);
  }
  if (element_type == MQLCL_GEMM_DOUBLE &&
      bridge.CLGetInfoInteger(context, MQLCL_CL_DEVICE_DOUBLE_SUPPORT) != 1) {
    problems.check(bridge.CLGemm(buffers[0], buffers[1], buffers[2], element_type, MQLCL_GEMM_EXACT,
                                 transpose_a, transpose_b, m, n, k, 1.5, -0.5, 0, 0, 0, 0, 0, 0, 1,
                                 0, 0, 0) == 0 &&
                       bridge.CLGetLastError() == MQLCL_ERR_OPENCL_NOT_SUPPORTED,
                   "double on a device without fp64: not refused with 5100");
  } else {
    problems.check(bridge.CLGemm(buffers[0], buffers[1], buffers[2], element_type, MQLCL_GEMM_EXACT,
                                 transpose_a, transpose_b, m, n, k, 1.5, -0.5, 0, 0, 0, 0, 0, 0, 1,
                                 0, 0, 0) == 1,
                   name + ": CLGemm", bridge);
    problems.check(bridge.CLBufferRead(buffers[2], result.data(), 0, 0, m * n, size) == m * n,
                   name + ": CLBufferRead");
    size_t wrong = 0;
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        double sum = 0;
        for (uint32_t l = 0; l < k; ++l)
          sum += double(transpose_a ? a[l * m + i] : a[i * k + l]) *
                 double(transpose_b ? b[j * k + l] : b[l * n + j]);
        wrong += double(result[i * n + j]) != 1.5 * sum - 0.5 * double(c[i * n + j]) ? 1 : 0;
      }
    problems.check(wrong == 0, name + ": " + std::to_string(wrong) + " of C's " +
                                   std::to_string(m * n) + " elements are wrong");
    problems.check(bridge.CLGetInfoInteger(context, MQLCL_CL_GEMM_EXECUTION_TIME) >= 0,
                   name + ": CL_GEMM_EXECUTION_TIME", bridge);
  }
  for (int32_t buffer : buffers)
    bridge.CLBufferFree(buffer);
  bridge.CLContextFree(context);
  problems.check(bridge.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == 0, "handles left alive");
  return problems.text();
}

// Leaves a context, program, kernel and two buffers alive, with a long launch in flight.
std::string leave_objects_alive(LoadedBridge &bridge) {
  // A first call that needs no OpenCL, as scripts often make: the bridge's registry is then
  // created before its OpenCL table, so it is destroyed after it.
  bridge.CLResetLastError();
  Problems problems;
  problems.check(bridge.CLHandleType(12345) == MQLCL_OPENCL_INVALID, "CLHandleType(12345)");
  int32_t context = bridge.CLContextCreate(mqlcl_test::device_under_test());
  int32_t program = bridge.CLProgramCreate(context, kKernels);
  int32_t kernel = bridge.CLKernelCreate(program, u"spin");
  int32_t out = bridge.CLBufferCreate(context, kSpinItems * 4, MQLCL_MEM_READ_WRITE);
  int32_t spare = bridge.CLBufferCreate(context, 1 << 20, MQLCL_MEM_READ_ONLY);
  problems.check(spare != MQLCL_INVALID_HANDLE && kernel != MQLCL_INVALID_HANDLE,
                 "creating objects", bridge);
  problems.check(bridge.CLSetKernelArgMem(kernel, 0, out) == 1, "CLSetKernelArgMem");
  problems.check(bridge.CLSetKernelArg(kernel, 1, &kSpinIterations, sizeof kSpinIterations) == 1,
                 "CLSetKernelArg");
  const uint32_t global[1] = {kSpinItems};
  problems.check(bridge.CLExecute(kernel, 1, nullptr, global, nullptr) == 1, "CLExecute", bridge);
  problems.check(bridge.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == 5, "5 live handles");
  return problems.text();
}

// What opencl_counting.dll must count while leave_objects_alive's objects live.
void check_counted_alive(const Counting &counting) {
  using namespace opencl_counting;
  for (int kind : {kContext, kQueue, kProgram, kKernel})
    BOOST_TEST(counting.live(kind) == 1, kKindNames[kind]);
  BOOST_TEST(counting.live(kMemory) == 2);
  BOOST_TEST(counting.live(kEvent) >= 1); // the launch the kernel holds
}

struct ChildResult {
  DWORD exit_code = 0;
  bool finished = false;
};

// Runs mqlcl_exit_with_live_objects.exe (from this folder) and waits for it.
ChildResult run_child(DWORD timeout_ms) {
  std::wstring command = L"\"" + executable_folder() + L"mqlcl_exit_with_live_objects.exe\"";
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION process{};
  ChildResult result;
  if (!CreateProcessW(nullptr, command.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr,
                      &startup, &process)) {
    BOOST_ERROR("CreateProcessW failed with error " << GetLastError());
    return result;
  }
  result.finished = WaitForSingleObject(process.hProcess, timeout_ms) == WAIT_OBJECT_0;
  if (!result.finished)
    TerminateProcess(process.hProcess, 99);
  GetExitCodeProcess(process.hProcess, &result.exit_code);
  CloseHandle(process.hThread);
  CloseHandle(process.hProcess);
  return result;
}

std::string read_file(const std::wstring &path) {
  std::ifstream file(narrow(path));
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Boost.Test precondition: a device is there (asked of a bridge loaded for the purpose).
struct needs_device {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    int64_t devices = 0;
    {
      LoadedBridge bridge(kBridgePath);
      if (bridge.loaded())
        devices = on_own_thread([&] { return bridge.CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT); });
    }
    if (mqlcl_test::device_required() || devices > 0)
      return true;
    std::cout << "SKIPPED: no OpenCL platform or device is present (install pocl-opencl-icd)"
              << std::endl;
    boost::test_tools::assertion_result result(false);
    result.message() << "no OpenCL platform or device is present";
    return result;
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(loader, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(loadlibraryw_finds_every_function_and_runs_a_kernel) {
  BOOST_TEST_REQUIRE(!bridge_is_loaded());
  LoadedBridge bridge(kBridgePath);
  BOOST_TEST_REQUIRE(bridge.loaded(), bridge.load_error());
  std::vector<wchar_t> loaded_from(32768);
  DWORD length = GetModuleFileNameW(GetModuleHandleW(L"mqlcl.dll"), loaded_from.data(),
                                    static_cast<DWORD>(loaded_from.size()));
  BOOST_TEST_MESSAGE("loaded " << narrow(std::wstring(loaded_from.data(), length)));
  BOOST_TEST(CompareStringOrdinal(loaded_from.data(), static_cast<int>(length), kBridgePath.c_str(),
                                  static_cast<int>(kBridgePath.size()), TRUE) == CSTR_EQUAL);
  std::string devices = on_own_thread([&] {
    std::vector<char16_t> text(4096);
    bridge.CLGetInfoString(0, MQLCL_CL_DEVICE_LIST, text.data(), 4096);
    return to_utf8(text.data());
  });
  BOOST_TEST_MESSAGE("devices through OpenCL.dll: " << devices);
  BOOST_TEST(!devices.empty());
  std::string problems = on_own_thread([&] { return vector_add_round_trip(bridge); });
  BOOST_TEST(problems.empty(), problems);
  BOOST_TEST(bridge.unload());
  BOOST_TEST(!bridge_is_loaded(), "FreeLibrary left mqlcl.dll loaded");
}

// The GEMM's kernels are compiled into mqlcl.dll: nothing but the DLL is needed to run them.
BOOST_AUTO_TEST_CASE(clgemm_multiplies_float_and_double_through_the_loaded_dll) {
  LoadedBridge bridge(kBridgePath);
  BOOST_TEST_REQUIRE(bridge.loaded(), bridge.load_error());
  std::string problems = on_own_thread([&] {
    return gemm_round_trip<float>(bridge, MQLCL_GEMM_FLOAT, 0, 1) +
           gemm_round_trip<double>(bridge, MQLCL_GEMM_DOUBLE, 1, 0);
  });
  BOOST_TEST(problems.empty(), problems);
  BOOST_TEST(bridge.unload());
  BOOST_TEST(!bridge_is_loaded(), "FreeLibrary left mqlcl.dll loaded");
}

BOOST_AUTO_TEST_CASE(freelibrary_with_live_objects_releases_them) {
  Counting counting;
  BOOST_TEST_REQUIRE(counting.loaded());
  BOOST_TEST_REQUIRE(counting.total() == 0);
  Environment through(L"MQLCL_OPENCL_LIBRARY", kCountingPath);
  LoadedBridge bridge(kBridgePath);
  BOOST_TEST_REQUIRE(bridge.loaded(), bridge.load_error());
  std::string problems = on_own_thread([&] { return leave_objects_alive(bridge); });
  BOOST_TEST_REQUIRE(problems.empty(), problems);
  check_counted_alive(counting);
  BOOST_TEST(bridge.unload());
  BOOST_TEST(!bridge_is_loaded(), "FreeLibrary left mqlcl.dll loaded");
  BOOST_TEST(counting.total() == 0, "left alive by FreeLibrary: " << counting.describe());

  // The process goes on: the DLL loads again, fresh, and works.
  LoadedBridge again(kBridgePath);
  BOOST_TEST_REQUIRE(again.loaded(), again.load_error());
  problems = on_own_thread([&] {
    return again.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == 0 ? vector_add_round_trip(again)
                                                                 : "handles survived the unload";
  });
  BOOST_TEST(problems.empty(), problems);
  BOOST_TEST(again.unload());
  BOOST_TEST(counting.total() == 0, counting.describe());
}

// Staged transfers leave the bridge's lane threads parked, each holding the DLL loaded
// (bridge/src/lane_pool.hpp): after FreeLibrary the DLL stays until they have been idle for a
// second, then unloads by itself, its objects released; it loads again and works.
BOOST_AUTO_TEST_CASE(freelibrary_after_staged_transfers_unloads_once_the_lane_threads_leave) {
  BOOST_TEST_REQUIRE(!bridge_is_loaded());
  Environment staged(L"MQLCL_STAGING", L"on"); // staged on PoCL too
  Environment chunks(L"MQLCL_STAGING_CHUNK_KIB", L"256");
  {
    LoadedBridge bridge(kBridgePath);
    BOOST_TEST_REQUIRE(bridge.loaded(), bridge.load_error());
    const std::string problems = on_own_thread([&] { return vector_add_round_trip(bridge); });
    BOOST_TEST_REQUIRE(problems.empty(), problems);
    BOOST_TEST(bridge.unload());
  }
  SYSTEM_INFO system{};
  GetSystemInfo(&system);
  if (system.dwNumberOfProcessors > 1) // else one lane: no thread of the bridge's own
    BOOST_TEST(bridge_is_loaded(), "no lane thread held mqlcl.dll after FreeLibrary");
  const auto unloaded_within_10_s = [] {
    const ULONGLONG deadline = GetTickCount64() + 10000;
    while (bridge_is_loaded() && GetTickCount64() < deadline)
      Sleep(20);
    return !bridge_is_loaded();
  };
  BOOST_TEST_REQUIRE(unloaded_within_10_s(), "mqlcl.dll still loaded 10 s after FreeLibrary");

  LoadedBridge again(kBridgePath);
  BOOST_TEST_REQUIRE(again.loaded(), again.load_error());
  const std::string problems = on_own_thread([&] {
    return again.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == 0 ? vector_add_round_trip(again)
                                                                 : "handles survived the unload";
  });
  BOOST_TEST(problems.empty(), problems);
  BOOST_TEST(again.unload());
  BOOST_TEST(unloaded_within_10_s(), "mqlcl.dll still loaded 10 s after FreeLibrary");
}

// MetaTrader may unload a program's DLLs while a thread that called them lives on (a chart's
// thread). The DLL must go at once, with its objects, and the thread must later end cleanly:
// a C++ thread_local with a destructor in the DLL would instead keep it loaded and deadlock
// that thread's exit (bridge/src/errors.cpp).
BOOST_AUTO_TEST_CASE(freelibrary_while_a_calling_thread_lives) {
  Counting counting;
  BOOST_TEST_REQUIRE(counting.loaded());
  BOOST_TEST_REQUIRE(counting.total() == 0);
  Environment through(L"MQLCL_OPENCL_LIBRARY", kCountingPath);
  LoadedBridge bridge(kBridgePath);
  BOOST_TEST_REQUIRE(bridge.loaded(), bridge.load_error());
  struct Shared {
    explicit Shared(LoadedBridge &loaded) : bridge(loaded) {}
    LoadedBridge &bridge;
    HANDLE created = CreateEventW(nullptr, TRUE, FALSE, nullptr);
    HANDLE may_end = CreateEventW(nullptr, TRUE, FALSE, nullptr);
    std::string problems;
  } shared(bridge);
  HANDLE chart_thread = CreateThread(
      nullptr, 0,
      [](void *argument) -> DWORD {
        auto *state = static_cast<Shared *>(argument);
        state->problems = leave_objects_alive(state->bridge);
        state->bridge.CLContextFree(-7); // a failure: this thread now has a last-error record
        SetEvent(state->created);
        WaitForSingleObject(state->may_end, INFINITE);
        return 0;
      },
      &shared, 0, nullptr);
  BOOST_TEST_REQUIRE(chart_thread != nullptr);
  WaitForSingleObject(shared.created, INFINITE);
  BOOST_TEST(shared.problems.empty(), shared.problems);
  check_counted_alive(counting);
  BOOST_TEST(bridge.unload());
  BOOST_TEST(!bridge_is_loaded(), "FreeLibrary left mqlcl.dll loaded");
  BOOST_TEST(counting.total() == 0, "left alive by FreeLibrary: " << counting.describe());
  SetEvent(shared.may_end);
  BOOST_TEST(WaitForSingleObject(chart_thread, 60000) == WAIT_OBJECT_0,
             "the thread did not end within 60 s after the DLL was unloaded");
  DWORD exit_code = 1;
  GetExitCodeThread(chart_thread, &exit_code);
  BOOST_TEST(exit_code == 0u);
  CloseHandle(chart_thread);
  CloseHandle(shared.created);
  CloseHandle(shared.may_end);
}

BOOST_AUTO_TEST_CASE(process_exit_with_live_objects_neither_crashes_nor_hangs) {
  ChildResult child = run_child(120000); // through the real OpenCL.dll
  BOOST_TEST(child.finished, "the child did not exit within 120 s");
  BOOST_TEST(child.exit_code == 0u, "exit code " << child.exit_code);
}

BOOST_AUTO_TEST_CASE(process_exit_makes_no_opencl_call) {
  wchar_t temp[MAX_PATH];
  GetTempPathW(MAX_PATH, temp);
  std::wstring log =
      std::wstring(temp) + L"opencl_counting_" + std::to_wstring(GetCurrentProcessId()) + L".log";
  DeleteFileW(log.c_str());
  {
    Environment through(L"MQLCL_OPENCL_LIBRARY", kCountingPath);
    Environment logged(opencl_counting::kLogVariable, log);
    ChildResult child = run_child(120000);
    BOOST_TEST(child.finished, "the child did not exit within 120 s");
    BOOST_TEST(child.exit_code == 0u, "exit code " << child.exit_code);
  }
  std::string text = read_file(log);
  DeleteFileW(log.c_str());
  // The objects were alive when the exit began (else this test would prove nothing) ...
  BOOST_TEST(text.find("live at process exit: context=1 queue=1 program=1 kernel=1 memory=2") !=
                 std::string::npos,
             text);
  // ... and the bridge left them to the OS: no OpenCL call after the driver's detach.
  BOOST_TEST(text.find("late call") == std::string::npos, text);
}

BOOST_AUTO_TEST_SUITE_END()
