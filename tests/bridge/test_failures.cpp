// Every export's failure paths, each with its exact MQL5 failure value and error code.
#define BOOST_TEST_MODULE bridge_failures
#include "opencl_device.hpp"
#include "scoped_environment.hpp"
#include "test_kernels.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

using namespace mqlcl_test;

namespace {

struct Fixture {
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel axpy = make_kernel(program, u"axpy");
  Kernel reverse = make_kernel(program, u"reverse_in_group");
  Buffer buffer = make_buffer(context, 256);
};

std::u16string repeated(char16_t c, size_t n) {
  return std::u16string(n, c);
}

} // namespace

BOOST_AUTO_TEST_SUITE(failures, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(context_create) {
  int64_t devices = CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT);
  MQLCL_CHECK_FAILS(CLContextCreate(static_cast<int32_t>(devices)), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_SELECTDEVICE);
  MQLCL_CHECK_FAILS(CLContextCreate(1 << 20), MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_SELECTDEVICE);
  MQLCL_CHECK_FAILS(CLContextCreate(-5), MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_SELECTDEVICE);
  MQLCL_CHECK_FAILS(CLContextCreate(INT32_MIN), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_SELECTDEVICE);
  // A selector with no matching device: whichever of CPU / GPU this machine lacks.
  bool has_cpu = false, has_gpu = false;
  for (int32_t d = 0; d < devices; ++d) {
    int64_t type = CLGetInfoInteger(d, MQLCL_CL_DEVICE_TYPE);
    has_cpu = has_cpu || (type & 2) != 0;
    has_gpu = has_gpu || (type & (4 | 8)) != 0;
  }
  if (!has_gpu)
    MQLCL_CHECK_FAILS(CLContextCreate(MQLCL_USE_GPU_ONLY), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_SELECTDEVICE);
  if (!has_cpu)
    MQLCL_CHECK_FAILS(CLContextCreate(MQLCL_USE_CPU_ONLY), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_SELECTDEVICE);
  for (int32_t selector : {MQLCL_USE_ANY, MQLCL_USE_CPU_ONLY, MQLCL_USE_GPU_ONLY}) {
    if ((selector == MQLCL_USE_CPU_ONLY && !has_cpu) ||
        (selector == MQLCL_USE_GPU_ONLY && !has_gpu))
      continue;
    Context context(CLContextCreate(selector));
    BOOST_TEST(context.get() != MQLCL_INVALID_HANDLE, "selector " << selector);
  }
  MQLCL_CHECK_FREE_FAILS(CLContextFree(0), MQLCL_ERR_OPENCL_INVALID_HANDLE);
}

BOOST_AUTO_TEST_CASE(spread_policies_that_name_missing_devices) {
  const int64_t devices = CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT);
  const std::string missing = std::to_string(devices);
  for (const std::string &list : {missing, "0," + missing, std::string("0,x"), std::string("-1"),
                                  std::string(","), std::string("0;1")}) {
    ScopedEnvironment spread("MQLCL_SPREAD_DEVICES", list);
    MQLCL_CHECK_FAILS(CLContextCreate(MQLCL_USE_SPREAD), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_SELECTDEVICE);
    BOOST_TEST(last_error_text().find("MQLCL_SPREAD_DEVICES") != std::string::npos);
    {
      // The policy makes MQLCL_USE_ANY spread, and fail the same way.
      ScopedEnvironment policy("MQLCL_DEVICE_POLICY", std::string("spread"));
      MQLCL_CHECK_FAILS(CLContextCreate(MQLCL_USE_ANY), MQLCL_INVALID_HANDLE,
                        MQLCL_ERR_OPENCL_SELECTDEVICE);
    }
    // An ordinal is the per-process override: no spreading, no refusal.
    Context pinned(CLContextCreate(0));
    BOOST_TEST(pinned.get() != MQLCL_INVALID_HANDLE, list << ": " << last_error);
  }
  // A list of one: that device, every time.
  ScopedEnvironment last("MQLCL_SPREAD_DEVICES", std::to_string(devices - 1));
  for (int i = 0; i < 2; ++i) {
    Context spread(CLContextCreate(MQLCL_USE_SPREAD));
    BOOST_TEST(CLGetInfoInteger(spread, MQLCL_CL_DEVICE_ORDINAL) == devices - 1);
  }
  // A runtime folder that cannot be made: a device is still chosen (by the process id).
  ScopedEnvironment all("MQLCL_SPREAD_DEVICES", std::nullopt);
  ScopedEnvironment nowhere("MQLCL_RUNTIME_DIR", std::string("/dev/null/mqlcl"));
  Context spread(CLContextCreate(MQLCL_USE_SPREAD));
  BOOST_TEST(spread.get() != MQLCL_INVALID_HANDLE, last_error);
}

// A policy that is not one is refused where it would apply (MQLCL_USE_ANY, MQLCL_USE_GPU_ONLY),
// as a bad MQLCL_SPREAD_DEVICES is: never a silent fall back to device 0.
BOOST_AUTO_TEST_CASE(device_policies_that_are_not_one_are_refused) {
  for (const std::string &policy : {std::string("sprad"), std::string("spread,"),
                                    std::string("first"), std::string(" spread")}) {
    ScopedEnvironment named("MQLCL_DEVICE_POLICY", policy);
    for (int32_t selector : {MQLCL_USE_ANY, MQLCL_USE_GPU_ONLY}) {
      MQLCL_CHECK_FAILS(CLContextCreate(selector), MQLCL_INVALID_HANDLE,
                        MQLCL_ERR_OPENCL_SELECTDEVICE);
      const std::string why = last_error_text();
      BOOST_TEST(why.find("MQLCL_DEVICE_POLICY=" + policy) != std::string::npos, why);
      BOOST_TEST(why.find("spread") != std::string::npos, why);
    }
    // Where no policy applies (an ordinal), nothing is refused.
    Context pinned(CLContextCreate(0));
    BOOST_TEST(pinned.get() != MQLCL_INVALID_HANDLE, policy << ": " << last_error);
  }
  for (const std::string &policy : {std::string("spread"), std::string("SPREAD"), std::string()}) {
    ScopedEnvironment named("MQLCL_DEVICE_POLICY", policy);
    Context any(CLContextCreate(MQLCL_USE_ANY));
    BOOST_TEST(any.get() != MQLCL_INVALID_HANDLE, policy << ": " << last_error);
  }
}

BOOST_AUTO_TEST_CASE(program_create) {
  Context context = make_context();
  MQLCL_CHECK_FAILS(CLProgramCreate(context, nullptr), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLProgramCreate(context, u""), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLProgramCreate(-1, kTestKernels), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLProgramCreate(context, u"__kernel void broken( { }"), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_PROGRAM_CREATE);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -11); // CL_BUILD_PROGRAM_FAILURE
  BOOST_TEST(last_error_text().find("clBuildProgram") != std::string::npos);

  // CLProgramCreateEx writes the compiler's log on failure, and never past its capacity.
  std::vector<char16_t> log(4096, u'#');
  MQLCL_CHECK_FAILS(CLProgramCreateEx(context, u"__kernel void k() { undefined_name = 1; }",
                                      nullptr, log.data(), 4096),
                    MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_PROGRAM_CREATE);
  BOOST_TEST(to_utf8(log.data()).find("undefined_name") != std::string::npos);
  std::vector<char16_t> small(9, u'#');
  small[8] = u'!'; // a guard just past the capacity we pass
  MQLCL_CHECK_FAILS(CLProgramCreateEx(context, u"__kernel void k() { undefined_name = 1; }",
                                      nullptr, small.data(), 8),
                    MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_PROGRAM_CREATE);
  BOOST_TEST(small[7] == u'\0');
  BOOST_TEST(small[8] == u'!');
  MQLCL_CHECK_FAILS(CLProgramCreateEx(context, kTestKernels, nullptr, nullptr, 16),
                    MQLCL_INVALID_HANDLE, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLProgramCreateEx(context, kTestKernels, u"-not-an-option", log.data(), 4096),
                    MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_PROGRAM_CREATE);
  MQLCL_CHECK_FREE_FAILS(CLProgramFree(context), MQLCL_ERR_OPENCL_INVALID_HANDLE);
}

BOOST_AUTO_TEST_CASE(kernel_create) {
  Fixture f;
  MQLCL_CHECK_FAILS(CLKernelCreate(f.program, nullptr), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLKernelCreate(f.context, u"axpy"), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLKernelCreate(f.program, u"no_such_kernel"), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_KERNEL_CREATE);
  MQLCL_CHECK_FAILS(CLKernelCreate(f.program, u""), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_KERNEL_CREATE);
  // 127 characters is allowed (and fails only because no such kernel exists); 128 is too long.
  MQLCL_CHECK_FAILS(CLKernelCreate(f.program, repeated(u'k', 127).c_str()), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_KERNEL_CREATE);
  MQLCL_CHECK_FAILS(CLKernelCreate(f.program, repeated(u'k', 128).c_str()), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_TOO_LONG_KERNEL_NAME);
  MQLCL_CHECK_FAILS(CLKernelCreate(f.program, repeated(u'k', 100000).c_str()), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_TOO_LONG_KERNEL_NAME);
  MQLCL_CHECK_FREE_FAILS(CLKernelFree(f.buffer), MQLCL_ERR_OPENCL_INVALID_HANDLE);
}

BOOST_AUTO_TEST_CASE(set_kernel_arg) {
  Fixture f;
  const float value = 1.0f;
  const double wide = 1.0;
  MQLCL_CHECK_FAILS(CLSetKernelArg(f.axpy, 2, nullptr, 4), 0, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLSetKernelArg(f.axpy, 2, &value, 0), 0, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLSetKernelArg(f.buffer, 2, &value, 4), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLSetKernelArg(f.axpy, 3, &value, 4), 0, MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -49); // CL_INVALID_ARG_INDEX
  MQLCL_CHECK_FAILS(CLSetKernelArg(f.axpy, UINT32_MAX, &value, 4), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  MQLCL_CHECK_FAILS(CLSetKernelArg(f.axpy, 2, &wide, 8), 0, MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -51); // CL_INVALID_ARG_SIZE
  // A raw value where OpenCL expects a cl_mem would be dereferenced by the driver: refused.
  const uint64_t forged_pointer = 0xDEADBEEF;
  MQLCL_CHECK_FAILS(CLSetKernelArg(f.axpy, 0, &forged_pointer, 8), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -50); // CL_INVALID_ARG_VALUE
  MQLCL_CHECK_FAILS(CLSetKernelArg(f.reverse, 2, &forged_pointer, 8), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -50);
}

// By-value arguments whose type OpenCL defines must come with exactly that type's size, even
// where the driver would take another (PoCL takes 3 bytes for a float and reads a fourth the
// caller never gave). A struct's size is the driver's to check.
BOOST_AUTO_TEST_CASE(by_value_sizes_must_match_the_argument_type) {
  Context context = make_context();
  Program program = make_program(context, uR"CL(
typedef struct { float a; int b; } pair_t;
__kernel void values(__global float *out, float f, float4 f4, float3 f3, uchar c, ulong8 v,
                     short2 s2, pair_t pair)
{
  out[0] = f + f4.w + f3.z + c + v.s7 + s2.y + pair.a + pair.b;
}
)CL");
  Kernel kernel = make_kernel(program, u"values");
  Buffer out = make_buffer(context, 4);
  struct Case {
    uint32_t index;
    uint32_t right;
    std::vector<uint32_t> wrong;
  };
  const std::vector<Case> cases = {{1, 4, {1, 2, 3, 5, 8}}, {2, 16, {4, 8, 12, 32}},
                                   {3, 16, {4, 12}},        {4, 1, {2, 4}},
                                   {5, 64, {8, 32, 128}},   {6, 4, {2, 8}}};
  const std::vector<unsigned char> bytes(256, 0);
  for (const Case &c : cases)
    for (uint32_t size : c.wrong) {
      MQLCL_CHECK_FAILS(CLSetKernelArg(kernel, c.index, bytes.data(), size), 0,
                        MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
      BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -51, // CL_INVALID_ARG_SIZE
                 "argument " << c.index << ", " << size << " bytes");
    }
  BOOST_TEST(last_error_text().find("short2 of 4 bytes") != std::string::npos, last_error);

  // The right sizes are taken, and the kernel sees the values given.
  const float f = 1.0f;
  const float f4[4] = {0, 0, 0, 2.0f};
  const float f3[4] = {0, 0, 4.0f, 0};
  const unsigned char c = 8;
  const uint64_t v[8] = {0, 0, 0, 0, 0, 0, 0, 16};
  const int16_t s2[2] = {0, 32};
  const struct {
    float a;
    int32_t b;
  } pair = {64.0f, 128};
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, out) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 1, &f, sizeof f) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 2, f4, sizeof f4) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 3, f3, sizeof f3) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 4, &c, sizeof c) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 5, v, sizeof v) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 6, s2, sizeof s2) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 7, &pair, sizeof pair) == 1, last_error);
  BOOST_TEST_REQUIRE(CLExecute(kernel, 0, nullptr, nullptr, nullptr) == 1, last_error);
  float result = 0;
  BOOST_TEST_REQUIRE(CLBufferRead(out, &result, 0, 0, 1, sizeof result) == 1u);
  BOOST_TEST(result == 255.0f);

  // double, where the device has it.
  if (CLGetInfoInteger(context, MQLCL_CL_DEVICE_DOUBLE_SUPPORT) == 1) {
    Program wide = make_program(context, u"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                                         u"__kernel void one_double(__global double *out, double d)"
                                         u" { out[0] = d; }");
    Kernel one_double = make_kernel(wide, u"one_double");
    const double d = 0.5;
    for (uint32_t size : {4u, 6u, 16u})
      MQLCL_CHECK_FAILS(CLSetKernelArg(one_double, 1, &d, size), 0,
                        MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
    BOOST_TEST(CLSetKernelArg(one_double, 1, &d, sizeof d) == 1);
  }
}

// Ranges a driver would take and then fail to run are refused first. Everywhere: more
// work-items than size_t counts (PoCL reported CL_COMPLETE for 2^93 of them with none run). On
// PoCL: more than 2^32 - 1 work-groups, which its scheduler cannot number (it aborted the
// process); where the runtime picks the group size, more than 2^32 - 1 work-items.
BOOST_AUTO_TEST_CASE(launches_beyond_what_the_device_runs) {
  Context context = make_context();
  Program program = make_program(context, u"__kernel void noargs(void) { }");
  Kernel kernel = make_kernel(program, u"noargs");
  const uint32_t huge[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
  const uint32_t pow31[3] = {1u << 31, 1u << 31, 1u << 31};
  const uint32_t one_one_two[3] = {1, 1, 2};
  MQLCL_CHECK_FAILS(CLExecute(kernel, 3, nullptr, huge, nullptr), 0, MQLCL_ERR_OPENCL_EXECUTE);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -63); // CL_INVALID_GLOBAL_WORK_SIZE
  BOOST_TEST(last_error_text().find("size_t") != std::string::npos, last_error);
  MQLCL_CHECK_FAILS(CLExecute(kernel, 3, nullptr, pow31, one_one_two), 0, MQLCL_ERR_OPENCL_EXECUTE);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -63);

  std::vector<char16_t> platform(256);
  CLGetInfoString(context, MQLCL_CL_PLATFORM_NAME, platform.data(), 256);
  if (to_utf8(platform.data()) != "Portable Computing Language")
    return;
  const uint32_t cube[3] = {65536, 65536, 65536};
  const uint32_t square[2] = {65536, 65536};
  const uint32_t ones[3] = {1, 1, 1};
  const uint32_t groups_of_4096[2] = {256, 16};
  MQLCL_CHECK_FAILS(CLExecute(kernel, 3, nullptr, cube, nullptr), 0, MQLCL_ERR_OPENCL_EXECUTE);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -63);
  MQLCL_CHECK_FAILS(CLExecute(kernel, 2, nullptr, square, ones), 0, MQLCL_ERR_OPENCL_EXECUTE);
  BOOST_TEST(last_error_text().find("4294967296 work-groups") != std::string::npos, last_error);
  MQLCL_CHECK_FAILS(CLExecute(kernel, 2, nullptr, square, nullptr), 0, MQLCL_ERR_OPENCL_EXECUTE);
  BOOST_TEST(last_error_text().find("give a local_work_size") != std::string::npos, last_error);
  // At the limits: 2^32 - 1 work-items for the runtime to group, and 2^20 groups of 4096.
  BOOST_TEST(CLExecute(kernel, 1, nullptr, huge, nullptr) == 1, last_error);
  BOOST_TEST(CLExecutionStatus(kernel) >= 0, last_error);
  BOOST_TEST(CLExecute(kernel, 2, nullptr, square, groups_of_4096) == 1, last_error);
  Buffer sync = make_buffer(context, 4);
  uint32_t word = 0;
  BOOST_TEST(CLBufferRead(sync, &word, 0, 0, 1, 4) == 1u); // waits for both launches
  BOOST_TEST(CLExecutionStatus(kernel) == MQLCL_CL_COMPLETE, last_error);
}

BOOST_AUTO_TEST_CASE(set_kernel_arg_mem) {
  Fixture f;
  MQLCL_CHECK_FAILS(CLSetKernelArgMem(f.axpy, 0, f.context), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLSetKernelArgMem(f.context, 0, f.buffer), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLSetKernelArgMem(f.axpy, 2, f.buffer), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -50);
  MQLCL_CHECK_FAILS(CLSetKernelArgMem(f.axpy, 9, f.buffer), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -49);
  MQLCL_CHECK_FAILS(CLSetKernelArgMem(f.reverse, 2, f.buffer), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  Context other = make_context();
  Buffer foreign = make_buffer(other, 256);
  MQLCL_CHECK_FAILS(CLSetKernelArgMem(f.axpy, 0, foreign), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -38); // CL_INVALID_MEM_OBJECT
}

BOOST_AUTO_TEST_CASE(set_kernel_arg_mem_local) {
  Fixture f;
  MQLCL_CHECK_FAILS(CLSetKernelArgMemLocal(f.reverse, 2, 0), 0, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLSetKernelArgMemLocal(f.buffer, 2, 64), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLSetKernelArgMemLocal(f.axpy, 0, 64), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  MQLCL_CHECK_FAILS(CLSetKernelArgMemLocal(f.reverse, 3, 64), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  int64_t local = CLGetInfoInteger(f.context, MQLCL_CL_DEVICE_LOCAL_MEM_SIZE);
  MQLCL_CHECK_FAILS(CLSetKernelArgMemLocal(f.reverse, 2, static_cast<uint64_t>(local) + 1), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  MQLCL_CHECK_FAILS(CLSetKernelArgMemLocal(f.reverse, 2, UINT64_MAX), 0,
                    MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -51); // CL_INVALID_ARG_SIZE
}

BOOST_AUTO_TEST_CASE(buffer_create) {
  Context context = make_context();
  MQLCL_CHECK_FAILS(CLBufferCreate(context, 0, 0), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -61); // CL_INVALID_BUFFER_SIZE
  MQLCL_CHECK_FAILS(CLBufferCreate(context, 16, 8), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLBufferCreate(context, 16, 0x80000000u), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLBufferCreate(context, 16, MQLCL_MEM_READ_ONLY | MQLCL_MEM_WRITE_ONLY),
                    MQLCL_INVALID_HANDLE, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLBufferCreate(-1, 16, 0), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  int64_t max_alloc = CLGetInfoInteger(context, MQLCL_CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  if (max_alloc < int64_t{UINT32_MAX})
    MQLCL_CHECK_FAILS(CLBufferCreate(context, static_cast<uint32_t>(max_alloc) + 1, 0),
                      MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  if (max_alloc < int64_t{UINT32_MAX})
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -61);
  Buffer with_host_ptr(CLBufferCreate(context, 64, MQLCL_MEM_READ_ONLY | MQLCL_MEM_ALLOC_HOST_PTR));
  BOOST_TEST(with_host_ptr.get() != MQLCL_INVALID_HANDLE);
  BOOST_TEST(CLGetInfoInteger(with_host_ptr, MQLCL_CL_BUFFER_FLAGS) ==
             (MQLCL_MEM_READ_ONLY | MQLCL_MEM_ALLOC_HOST_PTR));
  MQLCL_CHECK_FREE_FAILS(CLBufferFree(context), MQLCL_ERR_OPENCL_INVALID_HANDLE);
}

BOOST_AUTO_TEST_CASE(buffer_write_and_read) {
  Fixture f; // a 256-byte buffer
  std::vector<uint8_t> data(1024, 0xAB);
  for (auto transfer : {+[](int32_t b, uint8_t *d, uint32_t bo, uint32_t doff, uint32_t n,
                            uint32_t es) { return CLBufferWrite(b, d, bo, doff, n, es); },
                        +[](int32_t b, uint8_t *d, uint32_t bo, uint32_t doff, uint32_t n,
                            uint32_t es) { return CLBufferRead(b, d, bo, doff, n, es); }}) {
    MQLCL_CHECK_FAILS(transfer(f.buffer, nullptr, 0, 0, 1, 4), 0u, MQLCL_ERR_INVALID_PARAMETER);
    MQLCL_CHECK_FAILS(transfer(f.buffer, data.data(), 0, 0, 0, 4), 0u, MQLCL_ERR_ZEROSIZE_ARRAY);
    MQLCL_CHECK_FAILS(transfer(f.buffer, data.data(), 0, 0, 4, 0), 0u, MQLCL_ERR_ZEROSIZE_ARRAY);
    MQLCL_CHECK_FAILS(transfer(f.context, data.data(), 0, 0, 1, 4), 0u,
                      MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(transfer(f.buffer, data.data(), 256, 0, 1, 1), 0u,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET);
    MQLCL_CHECK_FAILS(transfer(f.buffer, data.data(), UINT32_MAX, 0, 1, 1), 0u,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -30); // CL_INVALID_VALUE
    MQLCL_CHECK_FAILS(transfer(f.buffer, data.data(), 0, 0, 65, 4), 0u,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    MQLCL_CHECK_FAILS(transfer(f.buffer, data.data(), 252, 0, 2, 4), 0u,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    // 32-bit products that would wrap are computed in 64 bits and rejected.
    MQLCL_CHECK_FAILS(transfer(f.buffer, data.data(), 0, 0, 0x40000001u, 4), 0u,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    MQLCL_CHECK_FAILS(transfer(f.buffer, data.data(), 0, 0, UINT32_MAX, UINT32_MAX), 0u,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -30);
    BOOST_TEST(transfer(f.buffer, data.data(), 252, 0, 1, 4) == 1u); // the last element fits
  }
}

BOOST_AUTO_TEST_CASE(execute) {
  Fixture f;
  const float a = 1.0f;
  const uint32_t global[3] = {64, 1, 1}, zero[3] = {0, 0, 0};
  MQLCL_CHECK_FAILS(CLExecute(f.axpy, 1, nullptr, global, nullptr), 0, MQLCL_ERR_OPENCL_EXECUTE);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -52); // CL_INVALID_KERNEL_ARGS
  BOOST_TEST(CLSetKernelArgMem(f.axpy, 0, f.buffer) == 1);
  BOOST_TEST(CLSetKernelArgMem(f.axpy, 1, f.buffer) == 1);
  BOOST_TEST(CLSetKernelArg(f.axpy, 2, &a, 4) == 1);
  MQLCL_CHECK_FAILS(CLExecute(f.buffer, 1, nullptr, global, nullptr), 0,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLExecute(f.axpy, 4, nullptr, global, nullptr), 0, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLExecute(f.axpy, UINT32_MAX, nullptr, global, nullptr), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -53); // CL_INVALID_WORK_DIMENSION
  MQLCL_CHECK_FAILS(CLExecute(f.axpy, 1, nullptr, nullptr, nullptr), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLExecute(f.axpy, 1, nullptr, zero, nullptr), 0, MQLCL_ERR_OPENCL_EXECUTE);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -63); // CL_INVALID_GLOBAL_WORK_SIZE
  const uint32_t partial_local[2] = {8, 0}, global2[2] = {64, 64};
  MQLCL_CHECK_FAILS(CLExecute(f.axpy, 2, nullptr, global2, partial_local), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -54);
  const uint32_t not_dividing[1] = {7};
  MQLCL_CHECK_FAILS(CLExecute(f.axpy, 1, nullptr, global, not_dividing), 0,
                    MQLCL_ERR_OPENCL_EXECUTE);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -54);
  int64_t item_limit = CLGetInfoInteger(f.context, MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_0);
  const uint32_t too_wide[1] = {static_cast<uint32_t>(item_limit) * 2};
  const uint32_t big_global[1] = {too_wide[0] * 4};
  MQLCL_CHECK_FAILS(CLExecute(f.axpy, 1, nullptr, big_global, too_wide), 0,
                    MQLCL_ERR_OPENCL_EXECUTE);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -55); // CL_INVALID_WORK_ITEM_SIZE
  int64_t group_limit = CLGetInfoInteger(f.axpy, MQLCL_CL_KERNEL_WORK_GROUP_SIZE);
  BOOST_TEST_REQUIRE(group_limit > 0);
  const uint32_t square[2] = {static_cast<uint32_t>(group_limit), 2};
  const uint32_t square_global[2] = {square[0], 2};
  if (square[0] <= item_limit &&
      CLGetInfoInteger(f.context, MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_1) >= 2) {
    MQLCL_CHECK_FAILS(CLExecute(f.axpy, 2, nullptr, square_global, square), 0,
                      MQLCL_ERR_OPENCL_EXECUTE);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -54);
  }
  BOOST_TEST(CLExecute(f.axpy, 1, nullptr, global, zero) == 1,
             last_error); // zeros: runtime picks
}

BOOST_AUTO_TEST_CASE(execution_status) {
  Fixture f;
  MQLCL_CHECK_FAILS(CLExecutionStatus(f.axpy), -1, MQLCL_ERR_OPENCL_EXECUTE); // never launched
  MQLCL_CHECK_FAILS(CLExecutionStatus(f.context), -1, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLGetInfoInteger(f.axpy, MQLCL_CL_KERNEL_EXECUTION_TIME), int64_t{-1},
                    MQLCL_ERR_OPENCL_EXECUTE);
}

BOOST_AUTO_TEST_CASE(info_queries) {
  Fixture f;
  std::vector<char16_t> text(64);
  MQLCL_CHECK_FAILS(CLGetInfoInteger(f.context, 9999), int64_t{-1}, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLGetInfoInteger(f.context, MQLCL_CL_BUFFER_SIZE), int64_t{-1},
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLGetInfoInteger(f.buffer, MQLCL_CL_KERNEL_WORK_GROUP_SIZE), int64_t{-1},
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLGetInfoInteger(1 << 20, MQLCL_CL_DEVICE_TYPE), int64_t{-1},
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLGetInfoInteger(-3, MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS), int64_t{-1},
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLGetInfoString(f.context, MQLCL_CL_DEVICE_NAME, nullptr, 64), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLGetInfoString(f.context, MQLCL_CL_DEVICE_NAME, text.data(), 0), 0,
                    MQLCL_ERR_SMALL_ARRAY);
  MQLCL_CHECK_FAILS(CLGetInfoString(f.context, 9999, text.data(), 64), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLGetInfoString(1 << 20, MQLCL_CL_DEVICE_NAME, text.data(), 64), 0,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLGetInfoString(f.buffer, MQLCL_CL_PROGRAM_BUILD_LOG, text.data(), 64), 0,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  // Too small: a terminated prefix, nothing past the capacity.
  std::vector<char16_t> small(5, u'#');
  MQLCL_CHECK_FAILS(CLGetInfoString(0, MQLCL_CL_BRIDGE_VERSION, small.data(), 4), 0,
                    MQLCL_ERR_SMALL_ARRAY);
  BOOST_TEST(to_utf8(small.data()) == "mql");
  BOOST_TEST(small[4] == u'#');

  uint8_t raw[8] = {};
  uint32_t size = 0;
  MQLCL_CHECK_FAILS(CLGetDeviceInfo(f.context, 0x1002, raw, nullptr, 8), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLGetDeviceInfo(f.context, 0x1002, nullptr, &size, 8), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLGetDeviceInfo(f.context, 0x7777, raw, &size, 8), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -30); // the driver's CL_INVALID_VALUE
  MQLCL_CHECK_FAILS(CLGetDeviceInfo(1 << 20, 0x1002, raw, &size, 8), 0,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLGetDeviceInfo(f.context, 0x102B /* CL_DEVICE_NAME */, raw, &size, 2), 0,
                    MQLCL_ERR_SMALL_ARRAY);
  BOOST_TEST(size > 2u); // tells the caller how much is needed
}

BOOST_AUTO_TEST_CASE(last_error_is_per_thread_and_successes_keep_it) {
  Fixture f;
  CLResetLastError();
  CLKernelFree(12345);
  BOOST_TEST(CLGetLastError() == MQLCL_ERR_OPENCL_INVALID_HANDLE);
  BOOST_TEST(CLHandleType(f.context) == MQLCL_OPENCL_CONTEXT); // a success ...
  Buffer ok = make_buffer(f.context, 16);
  BOOST_TEST(CLGetLastError() == MQLCL_ERR_OPENCL_INVALID_HANDLE); // ... does not clear it
  int32_t other_thread_error = -1;
  std::thread([&] { other_thread_error = CLGetLastError(); }).join();
  BOOST_TEST(other_thread_error == 0);
  CLResetLastError();
  BOOST_TEST(CLGetLastError() == 0);
  BOOST_TEST(last_error_text() == "no error");
}

// A wrapper's own refusal recorded with CLSetLastError reads as a DLL failure: the code, the
// description of CL_LAST_ERROR (OpenCL status CL_SUCCESS), per thread; 0 resets; a negative code
// is refused with 4003.
BOOST_AUTO_TEST_CASE(a_callers_own_refusal_becomes_the_last_error) {
  CLResetLastError();
  const std::u16string why = u"mqlclMatMul: a is 3 x 4 and b is 5 x 2 \u00e9";
  CLSetLastError(MQLCL_ERR_INVALID_PARAMETER, why.c_str());
  BOOST_TEST(CLGetLastError() == MQLCL_ERR_INVALID_PARAMETER);
  std::vector<char16_t> description(256);
  BOOST_TEST(CLGetInfoString(MQLCL_CL_LAST_ERROR, MQLCL_CL_ERROR_DESCRIPTION, description.data(),
                             256) == 1);
  BOOST_TEST((std::u16string(description.data()) == why));   // UTF-16 in, the same UTF-16 out
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == 0); // CL_SUCCESS: OpenCL saw nothing
  int32_t other_thread_error = -1;
  std::thread([&] { other_thread_error = CLGetLastError(); }).join();
  BOOST_TEST(other_thread_error == 0);
  CLSetLastError(65539, nullptr); // any code of the caller's, no description
  BOOST_TEST(CLGetLastError() == 65539);
  CLSetLastError(-7, u"not a code");
  BOOST_TEST(CLGetLastError() == MQLCL_ERR_INVALID_PARAMETER);
  BOOST_TEST(last_error_text().find("CLSetLastError: code -7") == 0u, last_error);
  CLSetLastError(0, u"ignored");
  BOOST_TEST(CLGetLastError() == 0);
  BOOST_TEST(last_error_text() == "no error");
}

// Images and samplers: the bridge creates neither, so every setter refuses such arguments.
BOOST_AUTO_TEST_CASE(image_and_sampler_arguments_are_refused_by_every_setter) {
  Context context = make_context();
  CLResetLastError();
  Program program(CLProgramCreate(context,
                                  u"__kernel void sample(__read_only image2d_t image, "
                                  u"sampler_t sampler, __global float *out) {"
                                  u" out[0] = read_imagef(image, sampler, (int2)(0, 0)).x; }"));
  if (program.get() == MQLCL_INVALID_HANDLE) {
    BOOST_TEST_MESSAGE("this device builds no image kernels: " << last_error);
    return;
  }
  Kernel kernel = make_kernel(program, u"sample");
  Buffer buffer = make_buffer(context, 64);
  const float value = 1.0f;
  for (uint32_t index : {0u, 1u}) {
    MQLCL_CHECK_FAILS(CLSetKernelArgMem(kernel, index, buffer), 0,
                      MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -50); // CL_INVALID_ARG_VALUE
    MQLCL_CHECK_FAILS(CLSetKernelArg(kernel, index, &value, sizeof value), 0,
                      MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
    MQLCL_CHECK_FAILS(CLSetKernelArgMemLocal(kernel, index, 64), 0,
                      MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  }
  BOOST_TEST(CLSetKernelArgMem(kernel, 2, buffer) == 1, last_error); // the buffer is fine
}

// Inputs the bridge refuses that only the fuzzer used to reach (docs/errors.md listed them as
// handled but untested).
BOOST_AUTO_TEST_CASE(inputs_the_fuzzer_reached_first) {
  Context context = make_context();
  char16_t log[64] = {};
  MQLCL_CHECK_FAILS(CLProgramCreateEx(context, nullptr, u"", log, 64), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLProgramCreateEx(context, u"", nullptr, nullptr, 0), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_INVALID_PARAMETER);

  // A host range that would run past the end of the address space, with a valid device range:
  // refused before the pointer is used.
  Buffer buffer = make_buffer(context, 64);
  void *near_the_end = reinterpret_cast<void *>(UINTPTR_MAX - 8);
  MQLCL_CHECK_FAILS(CLBufferWrite(buffer, near_the_end, 0, 0, 4, 4), 0u,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLBufferRead(buffer, near_the_end, 0, 1, 2, 4), 0u,
                    MQLCL_ERR_INVALID_PARAMETER);

  // CLHandleType never touches the last error, neither a failure's nor a reset one.
  CLResetLastError();
  CLContextFree(0);
  BOOST_TEST(CLHandleType(123456) == MQLCL_OPENCL_INVALID);
  BOOST_TEST(CLGetLastError() == MQLCL_ERR_OPENCL_INVALID_HANDLE);
  CLResetLastError();
  BOOST_TEST(CLHandleType(-7) == MQLCL_OPENCL_INVALID);
  BOOST_TEST(CLGetLastError() == 0);

  // MQLCL_DEVICE naming no device: read on every CLContextCreate, so it can be set and unset.
  {
    ScopedEnvironment device("MQLCL_DEVICE", std::string("no device is called this"));
    MQLCL_CHECK_FAILS(CLContextCreate(MQLCL_USE_ANY), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_SELECTDEVICE);
    BOOST_TEST(last_error_text().find("MQLCL_DEVICE") != std::string::npos, last_error);
  }
  Context again(CLContextCreate(MQLCL_USE_ANY));
  BOOST_TEST(again.get() != MQLCL_INVALID_HANDLE, last_error);

  // MQLCL_DEVICE=pocl, the documented example, finds PoCL ("Portable Computing Language", vendor
  // "The pocl project", devices "pthread-..."), in any case, wherever PoCL is installed.
  auto string_of = [](int32_t handle, int32_t property) {
    std::vector<char16_t> text(1024);
    CLGetInfoString(handle, property, text.data(), static_cast<uint32_t>(text.size()));
    return to_utf8(text.data());
  };
  int32_t pocl_device = -1;
  for (auto d = static_cast<int32_t>(CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT)) - 1; d >= 0; --d)
    if (string_of(d, MQLCL_CL_PLATFORM_NAME) == "Portable Computing Language")
      pocl_device = d; // the first PoCL device, as the match takes the first
  if (pocl_device >= 0) {
    for (const char *name : {"pocl", "PoCL", "POCL", "portable computing"}) {
      ScopedEnvironment device("MQLCL_DEVICE", std::string(name));
      Context pocl(CLContextCreate(MQLCL_USE_ANY));
      BOOST_TEST_REQUIRE(pocl.get() != MQLCL_INVALID_HANDLE, name << ": " << last_error);
      BOOST_TEST(string_of(pocl, MQLCL_CL_PLATFORM_NAME) == "Portable Computing Language", name);
      BOOST_TEST(string_of(pocl, MQLCL_CL_DEVICE_NAME) ==
                     string_of(pocl_device, MQLCL_CL_DEVICE_NAME),
                 name);
    }
  } else {
    BOOST_TEST_MESSAGE("no PoCL device here: MQLCL_DEVICE=pocl not checked");
  }

  // MQLCL_USE_GPU_DOUBLE_ONLY where no GPU has fp64 (checked only on such a machine).
  bool gpu_with_fp64 = false;
  for (int32_t d = 0; d < CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT); ++d)
    gpu_with_fp64 = gpu_with_fp64 || ((CLGetInfoInteger(d, MQLCL_CL_DEVICE_TYPE) & (4 | 8)) != 0 &&
                                      CLGetInfoInteger(d, MQLCL_CL_DEVICE_DOUBLE_SUPPORT) == 1);
  if (!gpu_with_fp64)
    MQLCL_CHECK_FAILS(CLContextCreate(MQLCL_USE_GPU_DOUBLE_ONLY), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_SELECTDEVICE);
}

BOOST_AUTO_TEST_SUITE_END()
