// Every OpenCL call the bridge makes, failed on purpose: each export must return its MQL5 failure
// value with the documented code, keep the injected cl_int as CL_LAST_ERROR, name the failing
// call in CL_ERROR_DESCRIPTION, recover once the fault is gone, and give every OpenCL object it
// took back to the driver. The driver underneath is the real one (PoCL); only the chosen call of
// the chosen export fails, through the bridge's dispatch seam (fault_layer.hpp).
#define BOOST_TEST_MODULE reliability_faults
#include "devices.hpp"
#include "fault_layer.hpp"
#include "leak_check.hpp"
#include "opencl_device.hpp"
#include "scoped_environment.hpp"
#include "test_kernels.hpp"

#include <boost/test/unit_test.hpp>

#include <array>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

using namespace mqlcl_test;
using mqlcl_fault::Call;
using mqlcl_fault::Kind;
using mqlcl_fault::LeakCheck;

namespace {

using mqlcl_fault::InstallOverDriver;
BOOST_TEST_GLOBAL_FIXTURE(InstallOverDriver);

constexpr size_t kKinds = LeakCheck::kKinds;

// Everything an export needs, created (through the layer) before any fault is armed.
struct World {
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel axpy = make_kernel(program, u"axpy");
  Kernel reverse = make_kernel(program, u"reverse_in_group");
  Buffer x = make_buffer(context, 256 * 4);
  Buffer y = make_buffer(context, 256 * 4);
  std::vector<float> host = std::vector<float>(256, 1.0f);

  void set_arguments() {
    const float a = 2.0f;
    BOOST_TEST_REQUIRE(CLSetKernelArgMem(axpy, 0, x) == 1);
    BOOST_TEST_REQUIRE(CLSetKernelArgMem(axpy, 1, y) == 1);
    BOOST_TEST_REQUIRE(CLSetKernelArg(axpy, 2, &a, sizeof(a)) == 1);
  }
  void launch() {
    set_arguments();
    const uint32_t global[1] = {256};
    BOOST_TEST_REQUIRE(CLExecute(axpy, 1, nullptr, global, nullptr) == 1, last_error);
    BOOST_TEST_REQUIRE(CLBufferRead(y, host.data(), 0, 0, 256, 4) == 256u);
  }
};

// Frees whatever a successful create export returned.
void free_handle(int64_t handle) {
  auto h = static_cast<int32_t>(handle);
  switch (CLHandleType(h)) {
  case MQLCL_OPENCL_CONTEXT:
    CLContextFree(h);
    break;
  case MQLCL_OPENCL_PROGRAM:
    CLProgramFree(h);
    break;
  case MQLCL_OPENCL_KERNEL:
    CLKernelFree(h);
    break;
  case MQLCL_OPENCL_BUFFER:
    CLBufferFree(h);
    break;
  default:
    break;
  }
}

enum class Setup { none, arguments, launched };

struct Scenario {
  const char *what; // the export and what it was doing
  Call call;        // the OpenCL call that fails ...
  uint64_t nth;     // ... the nth time the export makes it (1 = the first)
  cl_int injected;  // ... with this code
  Setup setup;      // what the world needs before the export runs
  int64_t (*run)(World &);
  int64_t failure_value;    // MQL5's failure value of the export
  int32_t code;             // the MQLCL_ERR_* it must record
  bool writes_text = false; // fills g_text: it must be terminated even on failure
};

char16_t g_text[4096];
uint8_t g_raw[4096];
uint32_t g_size;

const Scenario kScenarios[] = {
    // CLContextCreate: the context, then its queue (the context must be released again).
    {"CLContextCreate: clCreateContext", Call::clCreateContext, 1, CL_OUT_OF_HOST_MEMORY,
     Setup::none, [](World &) -> int64_t { return CLContextCreate(device_under_test()); },
     MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_CONTEXT_CREATE},
    {"CLContextCreate: clCreateCommandQueue", Call::clCreateCommandQueue, 1, CL_OUT_OF_RESOURCES,
     Setup::none, [](World &) -> int64_t { return CLContextCreate(device_under_test()); },
     MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_QUEUE_CREATE},
    // CLProgramCreate(Ex): the program object, then the build (the program must be released).
    {"CLProgramCreate: clCreateProgramWithSource", Call::clCreateProgramWithSource, 1,
     CL_OUT_OF_HOST_MEMORY, Setup::none,
     [](World &w) -> int64_t { return CLProgramCreate(w.context, kTestKernels); },
     MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_PROGRAM_CREATE},
    // (CL_BUILD_PROGRAM_FAILURE is retried: a_build_that_fails_with_argument_information_...)
    {"CLProgramCreate: clBuildProgram", Call::clBuildProgram, 1, CL_COMPILER_NOT_AVAILABLE,
     Setup::none, [](World &w) -> int64_t { return CLProgramCreate(w.context, kTestKernels); },
     MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_PROGRAM_CREATE},
    {"CLProgramCreateEx: clBuildProgram", Call::clBuildProgram, 1, CL_OUT_OF_RESOURCES, Setup::none,
     [](World &w) -> int64_t {
       return CLProgramCreateEx(w.context, kTestKernels, u"-cl-mad-enable", g_text, 4096);
     },
     MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_PROGRAM_CREATE, true},
    // CLKernelCreate: the kernel, then what the bridge asks about it (the kernel must go back).
    {"CLKernelCreate: clCreateKernel", Call::clCreateKernel, 1, CL_OUT_OF_RESOURCES, Setup::none,
     [](World &w) -> int64_t { return CLKernelCreate(w.program, u"axpy"); }, MQLCL_INVALID_HANDLE,
     MQLCL_ERR_OPENCL_KERNEL_CREATE},
    {"CLKernelCreate: clGetKernelInfo", Call::clGetKernelInfo, 1, CL_OUT_OF_HOST_MEMORY,
     Setup::none, [](World &w) -> int64_t { return CLKernelCreate(w.program, u"axpy"); },
     MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_KERNEL_CREATE},
    {"CLKernelCreate: clGetKernelWorkGroupInfo", Call::clGetKernelWorkGroupInfo, 1,
     CL_OUT_OF_RESOURCES, Setup::none,
     [](World &w) -> int64_t { return CLKernelCreate(w.program, u"axpy"); }, MQLCL_INVALID_HANDLE,
     MQLCL_ERR_OPENCL_KERNEL_CREATE},
    {"CLKernelCreate: clGetKernelArgInfo (first argument)", Call::clGetKernelArgInfo, 1,
     CL_OUT_OF_HOST_MEMORY, Setup::none,
     [](World &w) -> int64_t { return CLKernelCreate(w.program, u"axpy"); }, MQLCL_INVALID_HANDLE,
     MQLCL_ERR_OPENCL_KERNEL_CREATE},
    {"CLKernelCreate: clGetKernelArgInfo (last argument's type name)", Call::clGetKernelArgInfo, 12,
     CL_OUT_OF_RESOURCES, Setup::none,
     [](World &w) -> int64_t { return CLKernelCreate(w.program, u"axpy"); }, MQLCL_INVALID_HANDLE,
     MQLCL_ERR_OPENCL_KERNEL_CREATE},
    // Kernel arguments.
    {"CLSetKernelArg: clSetKernelArg", Call::clSetKernelArg, 1, CL_OUT_OF_RESOURCES, Setup::none,
     [](World &w) -> int64_t {
       const float a = 1.0f;
       return CLSetKernelArg(w.axpy, 2, &a, sizeof(a));
     },
     0, MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER},
    {"CLSetKernelArgMem: clSetKernelArg", Call::clSetKernelArg, 1, CL_OUT_OF_HOST_MEMORY,
     Setup::none, [](World &w) -> int64_t { return CLSetKernelArgMem(w.axpy, 0, w.x); }, 0,
     MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER},
    {"CLSetKernelArgMemLocal: clSetKernelArg", Call::clSetKernelArg, 1, CL_OUT_OF_RESOURCES,
     Setup::none, [](World &w) -> int64_t { return CLSetKernelArgMemLocal(w.reverse, 2, 256); }, 0,
     MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER},
    // Buffers: the allocation, then the zero fill (the buffer must be released).
    {"CLBufferCreate: clCreateBuffer", Call::clCreateBuffer, 1, CL_MEM_OBJECT_ALLOCATION_FAILURE,
     Setup::none, [](World &w) -> int64_t { return CLBufferCreate(w.context, 1024, 0); },
     MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_BUFFER_CREATE},
    {"CLBufferCreate: clEnqueueFillBuffer", Call::clEnqueueFillBuffer, 1, CL_OUT_OF_RESOURCES,
     Setup::none, [](World &w) -> int64_t { return CLBufferCreate(w.context, 1024, 0); },
     MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_BUFFER_CREATE},
    {"CLBufferWrite: clEnqueueWriteBuffer", Call::clEnqueueWriteBuffer, 1, CL_OUT_OF_RESOURCES,
     Setup::none,
     [](World &w) -> int64_t { return CLBufferWrite(w.x, w.host.data(), 0, 0, 256, 4); }, 0,
     MQLCL_ERR_OPENCL_INTERNAL},
    // A kernel that failed on the device surfaces at the next blocking read.
    {"CLBufferRead: clEnqueueReadBuffer after a failed kernel", Call::clEnqueueReadBuffer, 1,
     CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, Setup::launched,
     [](World &w) -> int64_t { return CLBufferRead(w.y, w.host.data(), 0, 0, 256, 4); }, 0,
     MQLCL_ERR_OPENCL_EXECUTE},
    // CLExecute: the enqueue, then the flush after it (the launch event must not leak).
    {"CLExecute: clEnqueueNDRangeKernel", Call::clEnqueueNDRangeKernel, 1, CL_OUT_OF_RESOURCES,
     Setup::arguments,
     [](World &w) -> int64_t {
       const uint32_t global[1] = {256};
       return CLExecute(w.axpy, 1, nullptr, global, nullptr);
     },
     0, MQLCL_ERR_OPENCL_EXECUTE},
    {"CLExecute: clFlush", Call::clFlush, 1, CL_OUT_OF_HOST_MEMORY, Setup::arguments,
     [](World &w) -> int64_t {
       const uint32_t global[1] = {256};
       return CLExecute(w.axpy, 1, nullptr, global, nullptr);
     },
     0, MQLCL_ERR_OPENCL_EXECUTE},
    // CLExecutionStatus and the launch time: the event of the last launch.
    {"CLExecutionStatus: clRetainEvent", Call::clRetainEvent, 1, CL_OUT_OF_RESOURCES,
     Setup::launched, [](World &w) -> int64_t { return CLExecutionStatus(w.axpy); }, -1,
     MQLCL_ERR_OPENCL_INTERNAL},
    {"CLExecutionStatus: clGetEventInfo", Call::clGetEventInfo, 1, CL_OUT_OF_HOST_MEMORY,
     Setup::launched, [](World &w) -> int64_t { return CLExecutionStatus(w.axpy); }, -1,
     MQLCL_ERR_OPENCL_EXECUTE},
    {"CLGetInfoInteger(KERNEL_EXECUTION_TIME): clWaitForEvents", Call::clWaitForEvents, 1,
     CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, Setup::launched,
     [](World &w) -> int64_t { return CLGetInfoInteger(w.axpy, MQLCL_CL_KERNEL_EXECUTION_TIME); },
     -1, MQLCL_ERR_OPENCL_EXECUTE},
    {"CLGetInfoInteger(KERNEL_EXECUTION_TIME): clGetEventProfilingInfo",
     Call::clGetEventProfilingInfo, 2, CL_PROFILING_INFO_NOT_AVAILABLE, Setup::launched,
     [](World &w) -> int64_t { return CLGetInfoInteger(w.axpy, MQLCL_CL_KERNEL_EXECUTION_TIME); },
     -1, MQLCL_ERR_OPENCL_INTERNAL},
    // Information queries.
    {"CLGetInfoInteger(KERNEL_LOCAL_MEM_SIZE): clGetKernelWorkGroupInfo",
     Call::clGetKernelWorkGroupInfo, 1, CL_OUT_OF_RESOURCES, Setup::none,
     [](World &w) -> int64_t { return CLGetInfoInteger(w.axpy, MQLCL_CL_KERNEL_LOCAL_MEM_SIZE); },
     -1, MQLCL_ERR_OPENCL_INTERNAL},
    {"CLGetInfoInteger(DEVICE_MAX_COMPUTE_UNITS): clGetDeviceInfo", Call::clGetDeviceInfo, 1,
     CL_OUT_OF_HOST_MEMORY, Setup::none,
     [](World &w) -> int64_t {
       return CLGetInfoInteger(w.context, MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS);
     },
     -1, MQLCL_ERR_OPENCL_INTERNAL},
    {"CLGetInfoString(DEVICE_VENDOR): clGetDeviceInfo (size)", Call::clGetDeviceInfo, 1,
     CL_OUT_OF_RESOURCES, Setup::none,
     [](World &w) -> int64_t {
       return CLGetInfoString(w.context, MQLCL_CL_DEVICE_VENDOR, g_text, 4096);
     },
     0, MQLCL_ERR_OPENCL_INTERNAL, true},
    {"CLGetInfoString(DEVICE_VENDOR): clGetDeviceInfo (value)", Call::clGetDeviceInfo, 2,
     CL_OUT_OF_RESOURCES, Setup::none,
     [](World &w) -> int64_t {
       return CLGetInfoString(w.context, MQLCL_CL_DEVICE_VENDOR, g_text, 4096);
     },
     0, MQLCL_ERR_OPENCL_INTERNAL, true},
    {"CLGetInfoString(PLATFORM_VERSION): clGetPlatformInfo", Call::clGetPlatformInfo, 1,
     CL_OUT_OF_HOST_MEMORY, Setup::none,
     [](World &w) -> int64_t {
       return CLGetInfoString(w.context, MQLCL_CL_PLATFORM_VERSION, g_text, 4096);
     },
     0, MQLCL_ERR_OPENCL_INTERNAL, true},
    {"CLGetInfoString(DEVICE_LIST): clGetDeviceInfo", Call::clGetDeviceInfo, 1, CL_OUT_OF_RESOURCES,
     Setup::none,
     [](World &) -> int64_t { return CLGetInfoString(0, MQLCL_CL_DEVICE_LIST, g_text, 4096); }, 0,
     MQLCL_ERR_OPENCL_INTERNAL, true},
    {"CLGetDeviceInfo: clGetDeviceInfo (size)", Call::clGetDeviceInfo, 1, CL_OUT_OF_RESOURCES,
     Setup::none,
     [](World &w) -> int64_t {
       return CLGetDeviceInfo(w.context, CL_DEVICE_NAME, g_raw, &g_size, sizeof(g_raw));
     },
     0, MQLCL_ERR_OPENCL_INTERNAL},
    {"CLGetDeviceInfo: clGetDeviceInfo (value)", Call::clGetDeviceInfo, 2, CL_OUT_OF_HOST_MEMORY,
     Setup::none,
     [](World &w) -> int64_t {
       return CLGetDeviceInfo(w.context, CL_DEVICE_NAME, g_raw, &g_size, sizeof(g_raw));
     },
     0, MQLCL_ERR_OPENCL_INTERNAL},
    {"CLGetDeviceInfo: a property the driver refuses", Call::clGetDeviceInfo, 1, CL_INVALID_VALUE,
     Setup::none,
     [](World &w) -> int64_t {
       return CLGetDeviceInfo(w.context, CL_DEVICE_NAME, g_raw, &g_size, sizeof(g_raw));
     },
     0, MQLCL_ERR_INVALID_PARAMETER},
};

} // namespace

BOOST_AUTO_TEST_SUITE(faults, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(every_failing_call_returns_the_documented_code_and_leaks_nothing) {
  for (const Scenario &scenario : kScenarios) {
    BOOST_TEST_CONTEXT(scenario.what) {
      LeakCheck leaks;
      {
        World world;
        if (scenario.setup == Setup::arguments)
          world.set_arguments();
        if (scenario.setup == Setup::launched)
          world.launch();
        uint64_t injected_before = mqlcl_fault::faults_injected(scenario.call);
        g_text[0] = u'#';

        mqlcl_fault::fail_call(scenario.call, scenario.nth, scenario.injected);
        CLResetLastError();
        int64_t result = scenario.run(world);
        int32_t code = CLGetLastError();
        int64_t cl_status = CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR);
        std::string description = last_error_text();
        mqlcl_fault::clear_faults();

        BOOST_TEST(mqlcl_fault::faults_injected(scenario.call) == injected_before + 1,
                   "the export never made call #" << scenario.nth << " of "
                                                  << mqlcl_fault::name_of(scenario.call));
        BOOST_TEST(result == scenario.failure_value);
        BOOST_TEST(code == scenario.code, description);
        BOOST_TEST(cl_status == scenario.injected);
        if (scenario.code != MQLCL_ERR_INVALID_PARAMETER) // else the bridge's own wording
          BOOST_TEST(description.find(mqlcl_fault::name_of(scenario.call)) != std::string::npos,
                     description);
        if (scenario.writes_text)
          BOOST_TEST(g_text[0] != u'#', "output strings are terminated even on failure");

        // The same call succeeds once the driver behaves again: no state was left half-done.
        CLResetLastError();
        int64_t again = scenario.run(world);
        BOOST_TEST(again != scenario.failure_value, last_error);
        BOOST_TEST(CLGetLastError() == 0);
        if (scenario.failure_value == MQLCL_INVALID_HANDLE)
          free_handle(again);
      }
      leaks.verify();
    }
  }
}

// A driver without argument information: the kernel is created, its arguments are Unknown and
// every setter is left to the driver's own checks.
BOOST_AUTO_TEST_CASE(argument_information_not_available_leaves_checks_to_the_driver) {
  LeakCheck leaks;
  {
    World world;
    mqlcl_fault::fail_every(Call::clGetKernelArgInfo, CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    Kernel kernel = make_kernel(world.program, u"axpy");
    mqlcl_fault::clear_faults();
    BOOST_TEST(CLGetInfoInteger(kernel, MQLCL_CL_KERNEL_NUM_ARGS) == 3);
    const float a = 3.0f;
    BOOST_TEST(CLSetKernelArgMem(kernel, 0, world.x) == 1);
    BOOST_TEST(CLSetKernelArgMem(kernel, 1, world.y) == 1);
    BOOST_TEST(CLSetKernelArg(kernel, 2, &a, sizeof(a)) == 1);
    // The driver still refuses what it can see is wrong: a 2-byte value for a float.
    MQLCL_CHECK_FAILS(CLSetKernelArg(kernel, 2, &a, 2), 0, MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == CL_INVALID_ARG_SIZE);
    BOOST_TEST(CLBufferWrite(world.x, world.host.data(), 0, 0, 256, 4) == 256u); // x = 1
    const uint32_t global[1] = {256};
    BOOST_TEST(CLExecute(kernel, 1, nullptr, global, nullptr) == 1);
    BOOST_TEST(CLBufferRead(world.y, world.host.data(), 0, 0, 256, 4) == 256u);
    BOOST_TEST(world.host[255] == 3.0f); // y = 3 * 1 + 0
  }
  leaks.verify();
}

// -mqlcl-nv-sm90a reads the program's binary after the source build: a failure there fails the
// create, names the call in the description and the log, and gives the source build back.
BOOST_AUTO_TEST_CASE(sm90a_binary_queries_that_fail_leave_nothing_behind) {
  LeakCheck leaks;
  {
    World world;
    for (uint64_t nth : {1, 2}) { // the binary's size, then the binary
      BOOST_TEST_CONTEXT("clGetProgramInfo call #" << nth) {
        uint64_t injected_before = mqlcl_fault::faults_injected(Call::clGetProgramInfo);
        mqlcl_fault::fail_call(Call::clGetProgramInfo, nth, CL_OUT_OF_RESOURCES);
        MQLCL_CHECK_FAILS(
            CLProgramCreateEx(world.context, kTestKernels, u"-mqlcl-nv-sm90a", g_text, 4096),
            MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_PROGRAM_CREATE);
        mqlcl_fault::clear_faults();
        BOOST_TEST(mqlcl_fault::faults_injected(Call::clGetProgramInfo) == injected_before + 1);
        BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == CL_OUT_OF_RESOURCES);
        BOOST_TEST(last_error_text().find("clGetProgramInfo") != std::string::npos, last_error);
        BOOST_TEST(to_utf8(g_text).find("-mqlcl-nv-sm90a: clGetProgramInfo") != std::string::npos,
                   to_utf8(g_text));
      }
    }
  }
  leaks.verify();
}

// The program cache over a failing driver: a load that fails anywhere builds from source, a store
// that fails keeps no entry, neither leaves an object behind; and a driver without argument
// information for a loaded binary (NVIDIA's) still gets the bridge's argument checks, from what
// the entry kept of the source build.
BOOST_AUTO_TEST_CASE(program_cache_faults_fall_back_to_source_builds) {
  const std::string folder = (std::filesystem::temp_directory_path() /
                              ("mqlcl-fault-cache-" + std::to_string(std::random_device{}())))
                                 .string();
  ScopedEnvironment cache("MQLCL_PROGRAM_CACHE", folder);
  LeakCheck leaks;
  {
    World world; // builds kTestKernels: the entry
    struct Fault {
      Call call;
      cl_int injected;
    };
    for (Fault fault : {Fault{Call::clCreateProgramWithBinary, CL_INVALID_BINARY},
                        Fault{Call::clBuildProgram, CL_BUILD_PROGRAM_FAILURE}}) {
      BOOST_TEST_CONTEXT(mqlcl_fault::name_of(fault.call)) {
        uint64_t injected_before = mqlcl_fault::faults_injected(fault.call);
        mqlcl_fault::fail_call(fault.call, 1, fault.injected); // the load's
        Program program(CLProgramCreate(world.context, kTestKernels));
        mqlcl_fault::clear_faults();
        BOOST_TEST(mqlcl_fault::faults_injected(fault.call) == injected_before + 1);
        BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error);
        BOOST_TEST(CLGetInfoInteger(program, MQLCL_CL_PROGRAM_FROM_CACHE) == 0);
        make_kernel(program, u"axpy");
      }
    }
    Program loaded(CLProgramCreate(world.context, kTestKernels));
    BOOST_TEST(CLGetInfoInteger(loaded, MQLCL_CL_PROGRAM_FROM_CACHE) == 1);
    mqlcl_fault::fail_every(Call::clGetKernelArgInfo, CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    Kernel kernel = make_kernel(loaded, u"axpy");
    mqlcl_fault::clear_faults();
    const float a = 3.0f;
    MQLCL_CHECK_FAILS(CLSetKernelArg(kernel, 0, &a, sizeof(a)), 0,
                      MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == CL_INVALID_ARG_VALUE);
    // A store whose binary query fails: the program is fine, no entry is written.
    ScopedEnvironment empty("MQLCL_PROGRAM_CACHE", folder + "-empty");
    mqlcl_fault::fail_call(Call::clGetProgramInfo, 1, CL_OUT_OF_RESOURCES);
    Program unstored(CLProgramCreate(world.context, kTestKernels));
    mqlcl_fault::clear_faults();
    BOOST_TEST(unstored.get() != MQLCL_INVALID_HANDLE, last_error);
    std::error_code error;
    for (const auto &item : std::filesystem::directory_iterator(folder + "-empty", error))
      BOOST_TEST(item.path().extension() != ".bin", item.path()); // the build turn's lock only
  }
  leaks.verify();
  std::error_code error;
  std::filesystem::remove_all(folder, error);
  std::filesystem::remove_all(folder + "-empty", error);
}

// A kernel that fails on the device: the launch was accepted, its event reports the failure.
BOOST_AUTO_TEST_CASE(a_failed_launch_is_reported_by_execution_status) {
  LeakCheck leaks;
  {
    World world;
    world.launch();
    mqlcl_fault::report_failed_launches(CL_OUT_OF_RESOURCES);
    MQLCL_CHECK_FAILS(CLExecutionStatus(world.axpy), -1, MQLCL_ERR_OPENCL_EXECUTE);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == CL_OUT_OF_RESOURCES);
    mqlcl_fault::clear_faults();
    BOOST_TEST(CLExecutionStatus(world.axpy) == MQLCL_CL_COMPLETE);
  }
  leaks.verify();
}

// A driver that refuses to release: the handle is gone all the same, nothing is reported (there
// is no caller left to tell), and exactly that one object stays with the driver.
BOOST_AUTO_TEST_CASE(a_refused_release_retires_the_handle_without_an_error) {
  LeakCheck leaks;
  Context context = make_context();
  int32_t buffer = CLBufferCreate(context, 64, 0);
  BOOST_TEST_REQUIRE(buffer != MQLCL_INVALID_HANDLE);
  mqlcl_fault::fail_every(Call::clReleaseMemObject, CL_INVALID_MEM_OBJECT);
  CLResetLastError();
  CLBufferFree(buffer);
  mqlcl_fault::clear_faults();
  BOOST_TEST(CLGetLastError() == 0);
  BOOST_TEST(CLHandleType(buffer) == MQLCL_OPENCL_INVALID);
  MQLCL_CHECK_FREE_FAILS(CLBufferFree(buffer), MQLCL_ERR_OPENCL_INVALID_HANDLE);

  // clFinish failing while a context goes: the queue and context are still released.
  mqlcl_fault::fail_every(Call::clFinish, CL_OUT_OF_RESOURCES);
  CLResetLastError();
  CLContextFree(context.release());
  mqlcl_fault::clear_faults();
  BOOST_TEST(CLGetLastError() == 0);
  std::array<int64_t, kKinds> growth{};
  growth[static_cast<size_t>(Kind::memory)] = 1; // the one the driver was not given back
  leaks.verify(growth);
  BOOST_TEST(mqlcl_fault::release_refused() == 1);
  leaks.verify();
}

// A device whose driver has ended the process's work on it, as NVIDIA's does after a kernel
// faulted (played by the layer): the next transfer fails with CL_OUT_OF_RESOURCES and a new context
// with -9999. That call and every later one on the device's objects, in any context, fail with
// 65539; their frees work; once no context is left, CLContextCreate tries the device again.
void lose_the_device(World &world) {
  mqlcl_fault::fail_call(Call::clEnqueueReadBuffer, 1, CL_OUT_OF_RESOURCES);
  mqlcl_fault::fail_call(Call::clCreateContext, 1, -9999); // the bridge's probe
  MQLCL_CHECK_FAILS(CLBufferRead(world.y, world.host.data(), 0, 0, 256, 4), 0u,
                    MQLCL_ERR_OPENCL_DEVICE_LOST);
  mqlcl_fault::clear_faults();
  BOOST_TEST(last_error_text().find("is lost (CLBufferRead: clEnqueueReadBuffer") !=
                 std::string::npos,
             last_error);
}

BOOST_AUTO_TEST_CASE(a_device_that_faults_is_lost_until_its_contexts_are_freed) {
  LeakCheck leaks;
  {
    World world, other; // two programs' contexts on the device
    world.launch();
    lose_the_device(world);
    const float value = 1;
    MQLCL_CHECK_FAILS(CLBufferWrite(other.x, &value, 0, 0, 1, 4), 0u, MQLCL_ERR_OPENCL_DEVICE_LOST);
    const uint32_t global[1] = {256};
    MQLCL_CHECK_FAILS(CLExecute(other.axpy, 1, nullptr, global, nullptr), 0,
                      MQLCL_ERR_OPENCL_DEVICE_LOST);
    MQLCL_CHECK_FAILS(CLBufferCreate(world.context, 64, 0), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_DEVICE_LOST);
    MQLCL_CHECK_FAILS(CLProgramCreate(other.context, kTestKernels), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_DEVICE_LOST);
    MQLCL_CHECK_FAILS(CLContextCreate(device_under_test()), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_DEVICE_LOST);
    BOOST_TEST(last_error_text().find("still holds 2 context(s)") != std::string::npos, last_error);
  }
  {
    World again; // every context freed: a new one, and work on it
    BOOST_TEST_REQUIRE(CLBufferWrite(again.x, again.host.data(), 0, 0, 256, 4) == 256u);
    again.launch();
    BOOST_TEST(again.host[0] == 2.0f); // y = 2 x + y
  }
  leaks.verify();
}

BOOST_AUTO_TEST_CASE(a_lost_device_whose_driver_still_refuses_a_context_stays_lost) {
  LeakCheck leaks;
  {
    World world;
    lose_the_device(world);
  }
  mqlcl_fault::fail_call(Call::clCreateContext, 1, -9999);
  MQLCL_CHECK_FAILS(CLContextCreate(device_under_test()), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_DEVICE_LOST);
  BOOST_TEST(last_error_text().find("only a restart of the process") != std::string::npos,
             last_error);
  mqlcl_fault::clear_faults();
  {
    World again; // the next CLContextCreate tries once more
    again.launch();
  }
  leaks.verify();
}

// CL_OUT_OF_RESOURCES from a device that still gives a new context is an ordinary failure.
BOOST_AUTO_TEST_CASE(a_failure_like_a_fault_on_a_healthy_device_keeps_its_code) {
  LeakCheck leaks;
  {
    World world;
    mqlcl_fault::fail_call(Call::clEnqueueReadBuffer, 1, CL_OUT_OF_RESOURCES);
    MQLCL_CHECK_FAILS(CLBufferRead(world.y, world.host.data(), 0, 0, 256, 4), 0u,
                      MQLCL_ERR_OPENCL_EXECUTE);
    mqlcl_fault::clear_faults();
    world.launch();
  }
  leaks.verify();
}

// A compile failure is retried once without the bridge's -cl-kernel-arg-info, which NVIDIA's
// compiler cannot honour for a kernel without arguments; the program then reports the options it
// was built with, and its kernels work.
BOOST_AUTO_TEST_CASE(a_build_that_fails_with_argument_information_is_retried_without_it) {
  LeakCheck leaks;
  {
    World world;
    const uint64_t builds = mqlcl_fault::calls(Call::clBuildProgram);
    mqlcl_fault::fail_call(Call::clBuildProgram, 1, CL_BUILD_PROGRAM_FAILURE);
    Program program(CLProgramCreate(world.context, kTestKernels));
    mqlcl_fault::clear_faults();
    BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error);
    BOOST_TEST(mqlcl_fault::calls(Call::clBuildProgram) == builds + 2);
    char16_t options[256] = {};
    BOOST_TEST_REQUIRE(CLGetInfoString(program, MQLCL_CL_PROGRAM_BUILD_OPTIONS, options, 256) == 1);
    BOOST_TEST(to_utf8(options).find("-cl-kernel-arg-info") == std::string::npos, to_utf8(options));
    world.axpy = make_kernel(program, u"axpy");
    BOOST_TEST_REQUIRE(CLBufferWrite(world.x, world.host.data(), 0, 0, 256, 4) == 256u);
    world.launch();
    BOOST_TEST(world.host[0] == 2.0f); // y = 2 x + y
    mqlcl_fault::fail_every(Call::clBuildProgram, CL_BUILD_PROGRAM_FAILURE);
    MQLCL_CHECK_FAILS(CLProgramCreate(world.context, kTestKernels), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_PROGRAM_CREATE);
    mqlcl_fault::clear_faults();
  }
  leaks.verify();
}

// Failing every call of a kind, many times over: repeated failures do not accumulate anything.
BOOST_AUTO_TEST_CASE(repeated_failures_do_not_accumulate) {
  LeakCheck leaks;
  {
    World world;
    mqlcl_fault::fail_every(Call::clEnqueueFillBuffer, CL_OUT_OF_RESOURCES);
    mqlcl_fault::fail_every(Call::clCreateCommandQueue, CL_OUT_OF_RESOURCES);
    mqlcl_fault::fail_every(Call::clBuildProgram, CL_BUILD_PROGRAM_FAILURE);
    for (int i = 0; i < 100; ++i) {
      MQLCL_CHECK_FAILS(CLBufferCreate(world.context, 64, 0), MQLCL_INVALID_HANDLE,
                        MQLCL_ERR_OPENCL_BUFFER_CREATE);
      MQLCL_CHECK_FAILS(CLContextCreate(device_under_test()), MQLCL_INVALID_HANDLE,
                        MQLCL_ERR_OPENCL_QUEUE_CREATE);
      MQLCL_CHECK_FAILS(CLProgramCreate(world.context, kTestKernels), MQLCL_INVALID_HANDLE,
                        MQLCL_ERR_OPENCL_PROGRAM_CREATE);
    }
    mqlcl_fault::clear_faults();
  }
  leaks.verify();
}

// The Ozaki scheme's double product, small integers so that every product is exact.
struct OzakiWorld {
  static constexpr uint32_t kSide = 24;
  Context context = make_context();
  std::vector<double> a = values(1), b = values(2), want = product(a, b);
  Buffer buffer_a = filled(a), buffer_b = filled(b),
         buffer_c = filled(std::vector<double>(a.size()));
  ScopedEnvironment ozaki{"MQLCL_GEMM_KERNEL", "ozaki"};

  static std::vector<double> values(uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> value(-8, 8);
    std::vector<double> v(kSide * kSide);
    for (double &x : v)
      x = value(random);
    return v;
  }
  static std::vector<double> product(const std::vector<double> &x, const std::vector<double> &y) {
    std::vector<double> c(kSide * kSide);
    for (uint32_t i = 0; i < kSide; ++i)
      for (uint32_t j = 0; j < kSide; ++j)
        for (uint32_t h = 0; h < kSide; ++h)
          c[i * kSide + j] += x[i * kSide + h] * y[h * kSide + j];
    return c;
  }
  Buffer filled(const std::vector<double> &v) {
    Buffer buffer = make_buffer(context, uint32_t(v.size() * 8));
    BOOST_TEST_REQUIRE(CLBufferWrite(buffer, v.data(), 0, 0, uint32_t(v.size()), 8) == v.size());
    return buffer;
  }
  int32_t gemm() {
    return CLGemm(buffer_a, buffer_b, buffer_c, MQLCL_GEMM_DOUBLE, MQLCL_GEMM_ACCURATE, 0, 0, kSide,
                  kSide, kSide, 1.0, 0.0, 0, kSide, 0, kSide, 0, kSide, 1, 0, 0, 0);
  }
  // C as read back is the exact product, and the scheme computed it.
  void verify(const char *what) {
    std::vector<double> c(want.size());
    BOOST_TEST_REQUIRE(CLBufferRead(buffer_c, c.data(), 0, 0, uint32_t(c.size()), 8) == c.size());
    BOOST_TEST((c == want), what);
    BOOST_TEST(info_string(context, MQLCL_CL_GEMM_PLAN).rfind("ozaki.cl MODULI=", 0) == 0, what);
  }
};

// The scheme reads its statistics back on a second queue of its own: made once per context and
// given back with it; where the driver refuses it, the context's queue reads them, with the
// same products. A read that fails fails the call with the documented code, and the next runs.
BOOST_AUTO_TEST_CASE(the_ozaki_schemes_reads_have_a_queue_of_their_own_or_the_contexts) {
  for (const bool refused : {false, true}) {
    BOOST_TEST_CONTEXT("second queue refused: " << refused) {
      LeakCheck leaks;
      {
        OzakiWorld world;
        if (!has_double(world.context)) {
          BOOST_TEST_MESSAGE("the device has no FP64: the scheme does not run");
          return;
        }
        if (refused)
          mqlcl_fault::fail_every(Call::clCreateCommandQueue, CL_OUT_OF_RESOURCES);
        const uint64_t queues = mqlcl_fault::calls(Call::clCreateCommandQueue),
                       refusals = mqlcl_fault::faults_injected(Call::clCreateCommandQueue),
                       failed_reads = mqlcl_fault::faults_injected(Call::clEnqueueReadBuffer);
        // Three calls of one shape: the third begins its products while its reads run.
        for (int call = 0; call < 3; ++call) {
          BOOST_TEST_REQUIRE(world.gemm() == 1, last_error);
          world.verify("a call");
        }
        BOOST_TEST(mqlcl_fault::calls(Call::clCreateCommandQueue) == queues + 1);
        BOOST_TEST(mqlcl_fault::faults_injected(Call::clCreateCommandQueue) ==
                   refusals + (refused ? 1 : 0));
        mqlcl_fault::fail_call(Call::clEnqueueReadBuffer, 2, CL_OUT_OF_RESOURCES);
        MQLCL_CHECK_FAILS(world.gemm(), 0, MQLCL_ERR_OPENCL_EXECUTE);
        BOOST_TEST(mqlcl_fault::faults_injected(Call::clEnqueueReadBuffer) == failed_reads + 1);
        mqlcl_fault::clear_faults();
        BOOST_TEST_REQUIRE(world.gemm() == 1, last_error);
        world.verify("the call after the failed read");
      }
      leaks.verify();
    }
  }
}

// Device enumeration, once per process and never cached when it fails.
struct EnumerationFault {
  const char *what;
  Call call;
  uint64_t nth; // 0: every call
  cl_int injected;
  int32_t context_code; // what CLContextCreate records
  int64_t device_count; // what CLGetInfoInteger(0, CL_DEVICE_COUNT) returns
  cl_int last_error;    // CL_LAST_ERROR after CLContextCreate
  int32_t query_code;   // what a query of device 0 records
};

const EnumerationFault kEnumerationFaults[] = {
    {"clGetPlatformIDs (count) fails", Call::clGetPlatformIDs, 1, CL_OUT_OF_HOST_MEMORY,
     MQLCL_ERR_OPENCL_NOT_SUPPORTED, 0, CL_OUT_OF_HOST_MEMORY, MQLCL_ERR_OPENCL_NOT_SUPPORTED},
    {"clGetPlatformIDs finds no platform", Call::clGetPlatformIDs, 0, -1001 /* KHR */,
     MQLCL_ERR_OPENCL_NOT_SUPPORTED, 0, -1001, MQLCL_ERR_OPENCL_NOT_SUPPORTED},
    {"clGetPlatformIDs (list) fails", Call::clGetPlatformIDs, 2, CL_OUT_OF_RESOURCES,
     MQLCL_ERR_OPENCL_NOT_SUPPORTED, 0, CL_OUT_OF_RESOURCES, MQLCL_ERR_OPENCL_NOT_SUPPORTED},
    {"clGetDeviceIDs fails", Call::clGetDeviceIDs, 0, CL_OUT_OF_HOST_MEMORY,
     MQLCL_ERR_OPENCL_NOT_SUPPORTED, 0, CL_OUT_OF_HOST_MEMORY, MQLCL_ERR_OPENCL_NOT_SUPPORTED},
    // Platforms but no device: device 0 does not exist, as any ordinal past the last.
    {"no platform has a device", Call::clGetDeviceIDs, 0, CL_DEVICE_NOT_FOUND,
     MQLCL_ERR_OPENCL_NOT_SUPPORTED, 0, CL_SUCCESS, MQLCL_ERR_OPENCL_INVALID_HANDLE},
    {"a device cannot be described", Call::clGetDeviceInfo, 0, CL_OUT_OF_RESOURCES,
     MQLCL_ERR_OPENCL_INTERNAL, -1, CL_OUT_OF_RESOURCES, MQLCL_ERR_OPENCL_INTERNAL},
    {"a platform cannot be named", Call::clGetPlatformInfo, 0, CL_OUT_OF_HOST_MEMORY,
     MQLCL_ERR_OPENCL_INTERNAL, -1, CL_OUT_OF_HOST_MEMORY, MQLCL_ERR_OPENCL_INTERNAL},
};

BOOST_AUTO_TEST_CASE(device_enumeration_failures_are_reported_and_not_cached) {
  for (const EnumerationFault &fault : kEnumerationFaults) {
    BOOST_TEST_CONTEXT(fault.what) {
      LeakCheck leaks;
      mqlcl::reset_device_list_for_testing();
      if (fault.nth == 0)
        mqlcl_fault::fail_every(fault.call, fault.injected);
      else
        mqlcl_fault::fail_call(fault.call, fault.nth, fault.injected);
      MQLCL_CHECK_FAILS(CLContextCreate(device_under_test()), MQLCL_INVALID_HANDLE,
                        fault.context_code);
      BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == fault.last_error);
      if (fault.nth == 0) { // still failing: every device query sees the same
        CLResetLastError();
        BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT) == fault.device_count);
        BOOST_TEST(CLGetLastError() == (fault.device_count == 0 ? 0 : fault.context_code));
        MQLCL_CHECK_FAILS(CLGetInfoInteger(0, MQLCL_CL_DEVICE_TYPE), int64_t{-1}, fault.query_code);
        MQLCL_CHECK_FAILS(CLGetInfoString(0, MQLCL_CL_DEVICE_NAME, g_text, 4096), 0,
                          fault.query_code);
      }
      mqlcl_fault::clear_faults();
      // The failure was not cached: the devices are there again.
      BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT) >= 1);
      Context context = make_context();
      BOOST_TEST(CLGetInfoInteger(context, MQLCL_CL_DEVICE_ORDINAL) >= 0);
      context = Context();
      leaks.verify();
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
