// The -mqlcl-nv-sm90a build option (docs/api.md). On the real default device: PoCL (or any device
// that is not an NVIDIA Hopper GPU) refuses it with 5105 and says why in the log, while an H100 or
// H200 with NVIDIA's OpenCL builds and runs a kernel with a marked Hopper-only instruction. Then,
// on any device, the whole path through a driver that plays NVIDIA (a dispatch table over the
// real one that hands out PTX and records what the bridge does with it): retargeting, the binary
// build and its retry without options, the logs, the options reported, and that no program leaks.
#define BOOST_TEST_MODULE bridge_sm90a
#include "cl_api.hpp"
#include "opencl_device.hpp"
#include "ptx_rewrite.hpp"
#include "scoped_environment.hpp"

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <string>
#include <vector>

using namespace mqlcl_test;

namespace {

constexpr uint32_t kLogCapacity = 8192;

// -D MQLCL_SM90A=1 reaches the source build: the kernel then adds 1000.
const char16_t *const kTrivialKernel = uR"CL(
__kernel void store(__global int *out, int value)
{
#ifdef MQLCL_SM90A
  value += 1000;
#endif
  out[get_global_id(0)] = value;
}
)CL";

// One warpgroup (128 work-items) fences for wgmma, an sm_90a-only instruction, then stores. The
// second marked instruction shows that the markers went: it adds 10000 only once they are gone.
const char16_t *const kWgmmaKernel = uR"CL(
__kernel void store(__global int *out, int value)
{
  asm volatile("//@sm_90a wgmma.fence.sync.aligned;" ::: "memory");
  int unmarked = 0;
  asm volatile("//@sm_90a mov.u32 %0, 10000;" : "+r"(unmarked));
#ifdef MQLCL_SM90A
  value += 1000;
#endif
  out[get_global_id(0)] = value + unmarked;
}
)CL";

std::string text_of(int32_t handle, int32_t property) {
  std::vector<char16_t> text(1 << 16);
  if (!CLGetInfoString(handle, property, text.data(), static_cast<uint32_t>(text.size())))
    return "(none: " + last_error_text() + ")";
  return to_utf8(text.data());
}

// Runs `store` of `program` over `items` work-items in groups of `group` and returns out[0].
int32_t run_store(int32_t context, int32_t program, int32_t value, uint32_t items, uint32_t group) {
  Kernel kernel = make_kernel(program, u"store");
  Buffer out = make_buffer(context, items * 4);
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, out) == 1, last_error);
  BOOST_TEST(CLSetKernelArg(kernel, 1, &value, sizeof(value)) == 1, last_error);
  const uint32_t global[1] = {items}, local[1] = {group};
  BOOST_TEST_REQUIRE(CLExecute(kernel, 1, nullptr, global, local) == 1, last_error);
  std::vector<int32_t> result(items, -1);
  BOOST_TEST_REQUIRE(CLBufferRead(out, result.data(), 0, 0, items, 4) == items);
  for (uint32_t i = 1; i < items; ++i)
    BOOST_TEST_REQUIRE(result[i] == result[0]);
  return result[0];
}

// ---- A driver that plays NVIDIA's -------------------------------------------------------------
// Over the real one: clGetProgramInfo gives `ptx` as the program's binary;
// clCreateProgramWithBinary records what it was given and builds, from the real driver's own binary
// of the same source, the program that stands in for the PTX's; clBuildProgram and
// clGetProgramBuildInfo of that program answer as told. Plain functions over process-wide state, as
// a dispatch table needs.
namespace fake {

mqlcl::ClApi real;
std::string ptx;          // the "PTX" the driver hands out, trailing NULs and all
std::string real_binary;  // the real driver's binary of the source build
std::string received;     // what clCreateProgramWithBinary was given, its length's worth
cl_program from_binary;   // the program it made
cl_int refuse_options;    // the binary build's answer when given options (CL_SUCCESS: none)
cl_int fail_binary_build; // the binary build's answer whatever its options
cl_int fail_create;       // clCreateProgramWithBinary's answer
std::vector<std::string> source_options, binary_options; // each clBuildProgram's options
int64_t programs_live;                                   // created less released, of both kinds
const char *const kPtxasLog = "ptxas info    : Used 8 registers (the sm_90a build's log)";

cl_int CL_API_CALL get_program_info(cl_program program, cl_program_info what, size_t size,
                                    void *value, size_t *size_ret) {
  if (what != CL_PROGRAM_BINARY_SIZES && what != CL_PROGRAM_BINARIES)
    return real.clGetProgramInfo(program, what, size, value, size_ret);
  if (what == CL_PROGRAM_BINARY_SIZES) {
    size_t real_size = 0;
    cl_int status = real.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(real_size),
                                          &real_size, nullptr);
    real_binary.assign(real_size, '\0');
    auto *pointer = reinterpret_cast<unsigned char *>(real_binary.data());
    if (status == CL_SUCCESS)
      status =
          real.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(pointer), &pointer, nullptr);
    if (status != CL_SUCCESS || size < sizeof(size_t))
      return status != CL_SUCCESS ? status : CL_INVALID_VALUE;
    *static_cast<size_t *>(value) = ptx.size();
  } else {
    if (size < sizeof(unsigned char *))
      return CL_INVALID_VALUE;
    std::memcpy(*static_cast<unsigned char **>(value), ptx.data(), ptx.size());
  }
  if (size_ret != nullptr)
    *size_ret = sizeof(void *);
  return CL_SUCCESS;
}

cl_program CL_API_CALL create_with_binary(cl_context context, cl_uint devices,
                                          const cl_device_id *device_list, const size_t *lengths,
                                          const unsigned char **binaries, cl_int *binary_status,
                                          cl_int *status) {
  received.assign(reinterpret_cast<const char *>(binaries[0]), lengths[0]);
  if (fail_create != CL_SUCCESS) {
    *status = fail_create;
    return nullptr;
  }
  size_t length = real_binary.size();
  auto *binary = reinterpret_cast<const unsigned char *>(real_binary.data());
  from_binary = real.clCreateProgramWithBinary(context, devices, device_list, &length, &binary,
                                               binary_status, status);
  if (from_binary != nullptr)
    ++programs_live;
  return from_binary;
}

cl_program CL_API_CALL create_with_source(cl_context context, cl_uint count, const char **strings,
                                          const size_t *lengths, cl_int *status) {
  cl_program program = real.clCreateProgramWithSource(context, count, strings, lengths, status);
  if (program != nullptr)
    ++programs_live;
  return program;
}

cl_int CL_API_CALL release_program(cl_program program) {
  cl_int status = real.clReleaseProgram(program);
  if (status == CL_SUCCESS)
    --programs_live;
  return status;
}

cl_int CL_API_CALL build(cl_program program, cl_uint devices, const cl_device_id *device_list,
                         const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
                         void *user_data) {
  if (program != from_binary) {
    source_options.emplace_back(options != nullptr ? options : "(NULL)");
    return real.clBuildProgram(program, devices, device_list, options, notify, user_data);
  }
  binary_options.emplace_back(options != nullptr ? options : "(NULL)");
  if (refuse_options != CL_SUCCESS && options != nullptr && *options != 0)
    return refuse_options;
  if (fail_binary_build != CL_SUCCESS)
    return fail_binary_build;
  return real.clBuildProgram(program, devices, device_list, options, notify, user_data);
}

cl_int CL_API_CALL build_info(cl_program program, cl_device_id device, cl_program_build_info what,
                              size_t size, void *value, size_t *size_ret) {
  if (program != from_binary || what != CL_PROGRAM_BUILD_LOG)
    return real.clGetProgramBuildInfo(program, device, what, size, value, size_ret);
  size_t bytes = std::strlen(kPtxasLog) + 1;
  if (size_ret != nullptr)
    *size_ret = bytes;
  if (value != nullptr) {
    if (size < bytes)
      return CL_INVALID_VALUE;
    std::memcpy(value, kPtxasLog, bytes);
  }
  return CL_SUCCESS;
}

// Arguments are unknown after a build from PTX, as NVIDIA's driver may say.
cl_int CL_API_CALL no_arg_info(cl_kernel, cl_uint, cl_kernel_arg_info, size_t, void *, size_t *) {
  return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
}

// Installed for one test's life; create every bridge object after it and free them before.
// The program cache is off meanwhile: the fake's programs must neither come from the user's
// cache (where NVIDIA devices keep one by default) nor go into it.
struct Driver {
  mqlcl::ClApi table;
  mqlcl_test::ScopedEnvironment no_program_cache{"MQLCL_PROGRAM_CACHE", std::string("off")};
  explicit Driver(std::string text) {
    real = mqlcl::cl_api();
    ptx = std::move(text);
    real_binary.clear();
    received.clear();
    from_binary = nullptr;
    refuse_options = fail_binary_build = fail_create = CL_SUCCESS;
    source_options.clear();
    binary_options.clear();
    programs_live = 0;
    table = real;
    table.clGetProgramInfo = &get_program_info;
    table.clCreateProgramWithBinary = &create_with_binary;
    table.clCreateProgramWithSource = &create_with_source;
    table.clReleaseProgram = &release_program;
    table.clBuildProgram = &build;
    table.clGetProgramBuildInfo = &build_info;
    table.clGetKernelArgInfo = &no_arg_info;
    mqlcl::set_cl_api_for_testing(&table);
  }
  ~Driver() { mqlcl::set_cl_api_for_testing(nullptr); }
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;
};

// NVIDIA's PTX of a kernel with one marked instruction, and what the bridge must make of it.
const std::string kPtx = std::string(".version 9.0\n.target sm_90\n.address_size 64\n\n"
                                     ".entry store(\n)\n{\n\t// begin inline asm\n"
                                     "\t//@sm_90a wgmma.fence.sync.aligned;\n"
                                     "\t// end inline asm\n\tret;\n}\n") +
                         std::string(3, '\0');
const std::string kPtxForSm90a = ".version 9.0\n.target sm_90a\n.address_size 64\n\n"
                                 ".entry store(\n)\n{\n\t// begin inline asm\n"
                                 "\twgmma.fence.sync.aligned;\n"
                                 "\t// end inline asm\n\tret;\n}\n";

} // namespace fake

} // namespace

BOOST_AUTO_TEST_SUITE(sm90a, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(the_option_on_the_default_device) {
  int64_t objects = CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT);
  {
    Context context = make_context();
    std::vector<char16_t> log(kLogCapacity, u'#');
    if (!is_nvidia_hopper(context)) {
      BOOST_TEST_MESSAGE("not an NVIDIA Hopper GPU: -mqlcl-nv-sm90a must be refused");
      MQLCL_CHECK_FAILS(
          CLProgramCreateEx(context, kTrivialKernel, u"-mqlcl-nv-sm90a", log.data(), kLogCapacity),
          MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_PROGRAM_CREATE);
      std::string text = to_utf8(log.data());
      BOOST_TEST(text.find("-mqlcl-nv-sm90a") != std::string::npos, text);
      BOOST_TEST(text.find("not NVIDIA PTX for sm_90") != std::string::npos, text);
      BOOST_TEST(last_error_text().find("CLProgramCreateEx: -mqlcl-nv-sm90a: ") == 0u, last_error);
      // Among other options, and through a NULL log, all the same.
      MQLCL_CHECK_FAILS(CLProgramCreateEx(context, kTrivialKernel,
                                          u"-cl-mad-enable -mqlcl-nv-sm90a -w", nullptr, 0),
                        MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_PROGRAM_CREATE);
      // Without the option the same source builds, and MQLCL_SM90A is not defined.
      Program program(CLProgramCreateEx(context, kTrivialKernel, u"", log.data(), kLogCapacity));
      BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error);
      BOOST_TEST(run_store(context, program, 5, 1, 1) == 5);
    } else {
      BOOST_TEST_MESSAGE("an NVIDIA Hopper GPU: -mqlcl-nv-sm90a must build and run wgmma.fence");
      Program program(
          CLProgramCreateEx(context, kWgmmaKernel, u"-mqlcl-nv-sm90a", log.data(), kLogCapacity));
      BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error);
      BOOST_TEST_MESSAGE("build log: " << to_utf8(log.data()));
      BOOST_TEST(text_of(program, MQLCL_CL_PROGRAM_BUILD_OPTIONS).find("-mqlcl-nv-sm90a") !=
                 std::string::npos);
      BOOST_TEST(run_store(context, program, 5, 128, 128) == 11005);
      // With NVIDIA's PTX-to-SASS options, which the binary build takes too.
      Program verbose(CLProgramCreateEx(context, kWgmmaKernel, u"-cl-nv-verbose -mqlcl-nv-sm90a",
                                        log.data(), kLogCapacity));
      BOOST_TEST_REQUIRE(verbose.get() != MQLCL_INVALID_HANDLE, last_error);
      BOOST_TEST_MESSAGE("build log with -cl-nv-verbose: " << to_utf8(log.data()));
      BOOST_TEST(run_store(context, verbose, 6, 128, 128) == 11006);
      // Without the option the marked instruction stays a comment: it builds and runs as sm_90.
      Program plain(CLProgramCreateEx(context, kWgmmaKernel, u"", log.data(), kLogCapacity));
      BOOST_TEST_REQUIRE(plain.get() != MQLCL_INVALID_HANDLE, last_error);
      BOOST_TEST(run_store(context, plain, 5, 128, 128) == 5);
    }
  }
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == objects);
}

BOOST_AUTO_TEST_CASE(through_a_driver_that_gives_ptx_the_program_is_rebuilt_for_sm_90a) {
  fake::Driver driver(fake::kPtx);
  fake::refuse_options = CL_INVALID_BUILD_OPTIONS;
  {
    Context context = make_context();
    std::vector<char16_t> log(kLogCapacity, u'#');
    Program program(CLProgramCreateEx(context, kTrivialKernel, u"-DUNUSED=7 -mqlcl-nv-sm90a",
                                      log.data(), kLogCapacity));
    BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error);

    // What the driver was given: the retargeted text, its terminator counted in its length.
    BOOST_TEST(fake::received == fake::kPtxForSm90a + std::string(1, '\0'));
    BOOST_TEST(fake::source_options ==
               std::vector<std::string>{"-cl-kernel-arg-info -DUNUSED=7 -D MQLCL_SM90A=1"});
    BOOST_TEST(fake::binary_options == (std::vector<std::string>{"-DUNUSED=7", ""}));
    BOOST_TEST(fake::programs_live == 1, "the source build is released");

    // The user sees the binary build's log, with a note of the options it went without.
    std::string expected_log = "-mqlcl-nv-sm90a: the driver refused the options \"-DUNUSED=7\" "
                               "for the sm_90a PTX; built without them\n" +
                               std::string(fake::kPtxasLog);
    BOOST_TEST(to_utf8(log.data()) == expected_log);
    BOOST_TEST(text_of(program, MQLCL_CL_PROGRAM_BUILD_LOG) == expected_log);
    BOOST_TEST(text_of(program, MQLCL_CL_PROGRAM_BUILD_OPTIONS) ==
               "-cl-kernel-arg-info -DUNUSED=7 -mqlcl-nv-sm90a -D MQLCL_SM90A=1");

    // Argument kinds are unknown now: the driver checks them, and the kernel runs.
    BOOST_TEST(run_store(context, program, 5, 4, 4) == 1005);
  }
  BOOST_TEST(fake::programs_live == 0);
}

BOOST_AUTO_TEST_CASE(options_the_binary_build_accepts_are_kept) {
  fake::Driver driver(fake::kPtx);
  {
    Context context = make_context();
    std::vector<char16_t> log(kLogCapacity, u'#');
    Program program(CLProgramCreateEx(context, kTrivialKernel, u"-mqlcl-nv-sm90a -DUNUSED=7",
                                      log.data(), kLogCapacity));
    BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error);
    BOOST_TEST(fake::binary_options == std::vector<std::string>{"-DUNUSED=7"});
    BOOST_TEST(to_utf8(log.data()) == fake::kPtxasLog);
    Program plain(CLProgramCreate(context, kTrivialKernel)); // no option: no binary build
    BOOST_TEST_REQUIRE(plain.get() != MQLCL_INVALID_HANDLE, last_error);
    BOOST_TEST(fake::binary_options.size() == 1u);
    BOOST_TEST(run_store(context, plain, 5, 1, 1) == 5);
  }
  BOOST_TEST(fake::programs_live == 0);
}

BOOST_AUTO_TEST_CASE(every_failure_fails_with_5105_says_why_and_leaks_no_program) {
  struct Case {
    const char *what;
    std::string ptx;
    cl_int fail_create, fail_build;
    cl_int cl_status; // CL_LAST_ERROR
    const char *said; // in the log and the description
  };
  const Case cases[] = {
      {"PTX for sm_89", ".version 9.0\n.target sm_89\n", CL_SUCCESS, CL_SUCCESS, CL_SUCCESS,
       "not NVIDIA PTX for sm_90 (its .target is \"sm_89\", not sm_90)"},
      {"already sm_90a", ".target sm_90a\n", CL_SUCCESS, CL_SUCCESS, CL_SUCCESS, "\"sm_90a\""},
      {"no binary", "", CL_SUCCESS, CL_SUCCESS, CL_SUCCESS, "(it is empty)"},
      {"the binary is refused", fake::kPtx, CL_INVALID_BINARY, CL_SUCCESS, CL_INVALID_BINARY,
       "clCreateProgramWithBinary: CL_INVALID_BINARY"},
      {"the binary build fails", fake::kPtx, CL_SUCCESS, CL_BUILD_PROGRAM_FAILURE,
       CL_BUILD_PROGRAM_FAILURE, fake::kPtxasLog},
  };
  for (const Case &c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      fake::Driver driver(c.ptx);
      fake::fail_create = c.fail_create;
      fake::fail_binary_build = c.fail_build;
      {
        Context context = make_context();
        std::vector<char16_t> log(kLogCapacity, u'#');
        MQLCL_CHECK_FAILS(CLProgramCreateEx(context, kTrivialKernel, u"-mqlcl-nv-sm90a", log.data(),
                                            kLogCapacity),
                          MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_PROGRAM_CREATE);
        BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == c.cl_status);
        std::string text = to_utf8(log.data());
        BOOST_TEST(text.find("-mqlcl-nv-sm90a: ") != std::string::npos, text);
        BOOST_TEST(text.find(c.said) != std::string::npos, text);
        BOOST_TEST(last_error_text().find(c.said) != std::string::npos, last_error);
        BOOST_TEST(fake::programs_live == 0);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
