// The full MQL5 sequence on a real device: program -> kernel -> buffers -> args -> execute ->
// read, checked element by element; UTF-16 sources, __local args, offsets, 0-3 dimensions.
#define BOOST_TEST_MODULE bridge_roundtrip
#include "opencl_device.hpp"
#include "test_kernels.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace mqlcl_test;

BOOST_AUTO_TEST_SUITE(roundtrip, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(axpy_is_correct_element_by_element) {
  Context context = make_context();
  Program program = make_program(context, kTestKernels); // non-ASCII comments included
  Kernel kernel = make_kernel(program, u"axpy");
  const uint32_t n = 10007; // not a multiple of any vector width
  std::vector<float> x(n), y(n), result(n);
  // Multiples of 1/8: a*x + y is exact, so fused and unfused multiply-add agree bit for bit.
  std::mt19937 random(42);
  std::uniform_int_distribution<int> value(-64, 64);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(value(random)) / 8.0f;
    y[i] = static_cast<float>(value(random)) / 8.0f;
  }
  Buffer bx = make_buffer(context, n * 4, MQLCL_MEM_READ_ONLY);
  Buffer by = make_buffer(context, n * 4);
  BOOST_TEST(CLBufferWrite(bx, x.data(), 0, 0, n, 4) == n);
  BOOST_TEST(CLBufferWrite(by, y.data(), 0, 0, n, 4) == n);
  const float a = 2.5f;
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, bx) == 1);
  BOOST_TEST(CLSetKernelArgMem(kernel, 1, by) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 2, &a, sizeof a) == 1);
  const uint32_t offset[1] = {0}, global[1] = {n};
  BOOST_TEST(CLExecute(kernel, 1, offset, global, nullptr) == 1);
  BOOST_TEST(CLBufferRead(by, result.data(), 0, 0, n, 4) == n);
  size_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i)
    wrong += result[i] != a * x[i] + y[i] ? 1 : 0;
  BOOST_TEST(wrong == 0u);
  BOOST_TEST(CLExecutionStatus(kernel) == MQLCL_CL_COMPLETE);
  BOOST_TEST(CLGetInfoInteger(kernel, MQLCL_CL_KERNEL_EXECUTION_TIME) > 0);
}

BOOST_AUTO_TEST_CASE(build_log_and_options_come_back) {
  Context context = make_context();
  std::vector<char16_t> log(4096, u'x');
  Program program(CLProgramCreateEx(context, u"__kernel void k(__global int *o) { o[0] = VALUE; }",
                                    u"-DVALUE=42", log.data(), static_cast<uint32_t>(log.size())));
  BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error);
  BOOST_TEST(std::char_traits<char16_t>::length(log.data()) < log.size()); // terminated
  std::vector<char16_t> options(256);
  BOOST_TEST(CLGetInfoString(program, MQLCL_CL_PROGRAM_BUILD_OPTIONS, options.data(), 256) == 1);
  BOOST_TEST(to_utf8(options.data()).find("-DVALUE=42") != std::string::npos);
  Kernel kernel = make_kernel(program, u"k");
  Buffer out = make_buffer(context, 4);
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, out) == 1);
  BOOST_TEST(CLExecute(kernel, 0, nullptr, nullptr, nullptr) == 1);
  int32_t value = 0;
  BOOST_TEST(CLBufferRead(out, &value, 0, 0, 1, 4) == 1u);
  BOOST_TEST(value == 42);
}

BOOST_AUTO_TEST_CASE(local_memory_argument_works) {
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel kernel = make_kernel(program, u"reverse_in_group");
  const uint32_t group = 16, groups = 5, n = group * groups;
  std::vector<int32_t> in(n), out(n, -1);
  std::iota(in.begin(), in.end(), 0);
  Buffer bin = make_buffer(context, n * 4), bout = make_buffer(context, n * 4);
  BOOST_TEST(CLBufferWrite(bin, in.data(), 0, 0, n, 4) == n);
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, bin) == 1);
  BOOST_TEST(CLSetKernelArgMem(kernel, 1, bout) == 1);
  BOOST_TEST(CLSetKernelArgMemLocal(kernel, 2, group * 4) == 1);
  const uint32_t global[1] = {n}, local[1] = {group};
  BOOST_TEST(CLExecute(kernel, 1, nullptr, global, local) == 1);
  BOOST_TEST(CLBufferRead(bout, out.data(), 0, 0, n, 4) == n);
  for (uint32_t g = 0; g < groups; ++g)
    for (uint32_t l = 0; l < group; ++l)
      BOOST_TEST(out[g * group + l] == in[g * group + group - 1 - l]);
  BOOST_TEST(CLGetInfoInteger(kernel, MQLCL_CL_KERNEL_LOCAL_MEM_SIZE) >= int64_t{group * 4});
}

// A kernel may declare as much local memory in its own arrays as the bridge says it may: every
// word of it written and read back distinct. On NVIDIA GPUs this is more than __local arguments
// may take (MQLCL_CL_DEVICE_KERNEL_LOCAL_MEM_SIZE), and this builds and runs the array the
// bridge's table gives the device.
BOOST_AUTO_TEST_CASE(a_kernel_may_declare_the_local_memory_the_bridge_reports) {
  Context context = make_context();
  const int64_t arguments = CLGetInfoInteger(context, MQLCL_CL_DEVICE_LOCAL_MEM_SIZE);
  const int64_t arrays = CLGetInfoInteger(context, MQLCL_CL_DEVICE_KERNEL_LOCAL_MEM_SIZE);
  BOOST_TEST_REQUIRE(arrays >= arguments);
  const int64_t words = arrays / 4;
  const std::string options = "-DWORDS=" + std::to_string(words) + "u";
  const std::u16string wide_options(options.begin(), options.end());
  const char16_t *source = uR"(
__kernel void fill_local(__global uint *mismatches) {
  __local uint scratch[WORDS];
  const uint id = get_local_id(0), n = get_local_size(0);
  for (uint i = id; i < WORDS; i += n)
    scratch[i] = i * 2654435761u;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint wrong = 0;
  for (uint i = id; i < WORDS; i += n)
    wrong += scratch[WORDS - 1 - i] != (WORDS - 1 - i) * 2654435761u;
  mismatches[get_global_id(0)] = wrong;
})";
  Program program(CLProgramCreateEx(context, source, wide_options.c_str(), nullptr, 0));
  BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, "a " << arrays << "-byte array");
  Kernel kernel = make_kernel(program, u"fill_local");
  const uint32_t group = 64, groups = 2;
  Buffer mismatches = make_buffer(context, group * groups * 4);
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, mismatches) == 1);
  const uint32_t global[1] = {group * groups}, local[1] = {group};
  BOOST_TEST_REQUIRE(CLExecute(kernel, 1, nullptr, global, local) == 1);
  std::vector<uint32_t> wrong(group * groups, 1);
  BOOST_TEST(CLBufferRead(mismatches, wrong.data(), 0, 0, group * groups, 4) == group * groups);
  BOOST_TEST(std::count(wrong.begin(), wrong.end(), 0u) == group * groups);
  BOOST_TEST(CLGetInfoInteger(kernel, MQLCL_CL_KERNEL_LOCAL_MEM_SIZE) >= arrays);
}

BOOST_AUTO_TEST_CASE(buffer_and_array_offsets_are_honoured) {
  Context context = make_context();
  const uint32_t n = 64;
  Buffer buffer = make_buffer(context, n * 4);
  std::vector<int32_t> source(n), read_back(n, -1);
  std::iota(source.begin(), source.end(), 100);
  // Elements 10..29 of the array go to bytes 40.. of the buffer.
  BOOST_TEST(CLBufferWrite(buffer, source.data(), 40, 10, 20, 4) == 20u);
  BOOST_TEST(CLBufferRead(buffer, read_back.data(), 0, 0, n, 4) == n);
  for (uint32_t i = 0; i < n; ++i)
    BOOST_TEST(read_back[i] == (i >= 10 && i < 30 ? source[i] : 0)); // new buffers read as zero
  // Buffer bytes 48..55 land in array elements 3..4.
  std::vector<int32_t> part(8, -1);
  BOOST_TEST(CLBufferRead(buffer, part.data(), 48, 3, 2, 4) == 2u);
  BOOST_TEST(part[2] == -1);
  BOOST_TEST(part[3] == source[12]);
  BOOST_TEST(part[4] == source[13]);
  BOOST_TEST(part[5] == -1);
  // Byte-sized elements at an odd offset.
  uint8_t bytes[3] = {7, 8, 9}, back[3] = {};
  BOOST_TEST(CLBufferWrite(buffer, bytes, 3, 0, 3, 1) == 3u);
  BOOST_TEST(CLBufferRead(buffer, back, 3, 0, 3, 1) == 3u);
  BOOST_TEST(back[0] == 7);
  BOOST_TEST(back[2] == 9);
  BOOST_TEST(CLGetInfoInteger(buffer, MQLCL_CL_BUFFER_SIZE) == int64_t{n * 4});
}

BOOST_AUTO_TEST_CASE(one_to_three_dimensions_and_global_offsets) {
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel kernel = make_kernel(program, u"coordinates");
  const uint32_t w = 6, h = 4, d = 3, n = w * h * d;
  Buffer out = make_buffer(context, n * 4);
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, out) == 1);
  const uint32_t offset[3] = {2, 1, 1}, global[3] = {w - 2, h - 1, d - 1}, local[3] = {2, 3, 1};
  BOOST_TEST(CLExecute(kernel, 3, offset, global, local) == 1, last_error);
  std::vector<int32_t> result(n);
  BOOST_TEST(CLBufferRead(out, result.data(), 0, 0, n, 4) == n);
  for (uint32_t z = 0; z < d; ++z)
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        bool covered = x >= 2 && y >= 1 && z >= 1;
        int32_t expected = covered ? static_cast<int32_t>(x + 1000 * y + 1000000 * z) : 0;
        BOOST_TEST(result[(z * h + y) * w + x] == expected);
      }
}

BOOST_AUTO_TEST_CASE(work_dim_zero_runs_a_single_work_item) {
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel kernel = make_kernel(program, u"count_items");
  Buffer counter = make_buffer(context, 4);
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, counter) == 1);
  for (int i = 0; i < 3; ++i)
    BOOST_TEST(CLExecute(kernel, 0, nullptr, nullptr, nullptr) == 1);
  int32_t count = 0;
  BOOST_TEST(CLBufferRead(counter, &count, 0, 0, 1, 4) == 1u);
  BOOST_TEST(count == 3);
}

BOOST_AUTO_TEST_CASE(vector_typed_value_argument) {
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel kernel = make_kernel(program, u"takes_struct");
  Buffer out = make_buffer(context, 4);
  const float v[4] = {1.0f, 2.0f, 3.0f, 4.5f};
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, out) == 1);
  BOOST_TEST(CLSetKernelArg(kernel, 1, v, sizeof v) == 1);
  BOOST_TEST(CLExecute(kernel, 0, nullptr, nullptr, nullptr) == 1);
  float sum = 0;
  BOOST_TEST(CLBufferRead(out, &sum, 0, 0, 1, 4) == 1u);
  BOOST_TEST(sum == 10.5f);
}

BOOST_AUTO_TEST_CASE(device_information) {
  int64_t devices = CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT);
  BOOST_TEST_REQUIRE(devices > 0);
  Context context = make_context();
  int64_t ordinal = CLGetInfoInteger(context, MQLCL_CL_DEVICE_ORDINAL);
  BOOST_TEST(ordinal >= 0);
  BOOST_TEST(ordinal < devices);
  std::vector<char16_t> name(1024), via_context(1024);
  BOOST_TEST(
      CLGetInfoString(static_cast<int32_t>(ordinal), MQLCL_CL_DEVICE_NAME, name.data(), 1024) == 1);
  BOOST_TEST(CLGetInfoString(context, MQLCL_CL_DEVICE_NAME, via_context.data(), 1024) == 1);
  BOOST_TEST(to_utf8(name.data()) == to_utf8(via_context.data()));
  BOOST_TEST(!to_utf8(name.data()).empty());
  // The caps the article looked up in GPU Caps Viewer.
  BOOST_TEST(CLGetInfoInteger(context, MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS) > 0);
  BOOST_TEST(CLGetInfoInteger(context, MQLCL_CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT) > 0);
  int64_t local_type = CLGetInfoInteger(context, MQLCL_CL_DEVICE_LOCAL_MEM_TYPE);
  BOOST_TEST((local_type == 1 || local_type == 2));
  BOOST_TEST(CLGetInfoInteger(context, MQLCL_CL_DEVICE_LOCAL_MEM_SIZE) > 0);
  BOOST_TEST(CLGetInfoInteger(context, MQLCL_CL_DEVICE_MAX_WORK_GROUP_SIZE) > 0);
  // Raw Khronos query: CL_DEVICE_MAX_COMPUTE_UNITS (0x1002) is a cl_uint.
  uint8_t raw[64] = {};
  uint32_t size = 0;
  BOOST_TEST(CLGetDeviceInfo(context, 0x1002, raw, &size, sizeof raw) == 1);
  BOOST_TEST(size == 4u);
  uint32_t units = 0;
  std::memcpy(&units, raw, 4);
  BOOST_TEST(int64_t{units} == CLGetInfoInteger(context, MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS));
  // Size query, then the device name (0x102B) as bytes.
  BOOST_TEST(CLGetDeviceInfo(static_cast<int32_t>(ordinal), 0x102B, nullptr, &size, 0) == 1);
  std::vector<uint8_t> raw_name(size);
  BOOST_TEST(CLGetDeviceInfo(static_cast<int32_t>(ordinal), 0x102B, raw_name.data(), &size, size) ==
             1);
  BOOST_TEST(std::string(reinterpret_cast<char *>(raw_name.data())) == to_utf8(name.data()));
  std::vector<char16_t> listing(1 << 14);
  BOOST_TEST(CLGetInfoString(0, MQLCL_CL_DEVICE_LIST, listing.data(), 1 << 14) == 1);
  std::string lines = to_utf8(listing.data());
  BOOST_TEST(lines.find("OpenCL device #0: ") == 0u);
  BOOST_TEST(lines.back() != '\n'); // one line per device, no trailing newline
  BOOST_TEST(std::count(lines.begin(), lines.end(), '\n') == devices - 1);
}

BOOST_AUTO_TEST_CASE(error_descriptions) {
  std::vector<char16_t> text(256);
  BOOST_TEST(CLGetInfoString(-54, MQLCL_CL_ERROR_DESCRIPTION, text.data(), 256) == 1);
  BOOST_TEST(to_utf8(text.data()) == "CL_INVALID_WORK_GROUP_SIZE");
  BOOST_TEST(CLGetInfoString(-12345, MQLCL_CL_ERROR_DESCRIPTION, text.data(), 256) == 1);
  BOOST_TEST(to_utf8(text.data()) == "unknown OpenCL error -12345");
  // The last failure names the call, and CL_LAST_ERROR keeps the cl_int OpenCL would give.
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel kernel = make_kernel(program, u"axpy");
  const uint32_t global[1] = {100}, local[1] = {7};
  CLResetLastError();
  BOOST_TEST(CLExecute(kernel, 1, nullptr, global, local) == 0);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -54);
  std::string description = last_error_text();
  BOOST_TEST(description.find("CLExecute") == 0u);
  // The caller can size its buffer before asking (ASCII here: one unit per character).
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR_DESCRIPTION_LENGTH) ==
             static_cast<int64_t>(description.size()));
  CLResetLastError();
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR_DESCRIPTION_LENGTH) == 8); // "no error"
}

BOOST_AUTO_TEST_SUITE_END()
