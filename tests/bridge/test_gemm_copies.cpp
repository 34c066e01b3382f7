// The GEMM's operand copies (kernels/gemm/transpose.cl, as embedded in the library) on the real
// device, launched as bridge/src/gemm/operands.cpp launches them: `transpose` at each block side
// the library picks (64, 32, 16) in float and double, over whole blocks of 4-aligned rows (vectors
// in and out), rows that are not 4-aligned, partial blocks, batches with offsets and strides, and
// 64-bit indices, in both forms (the local tile, and with IN_REGISTERS each work-item's block in
// registers, as on CPUs); `pack` likewise. Every element of each copy is checked against the
// source, and the copy's padding past each line (dst_ld) is left as it was.
#define BOOST_TEST_MODULE bridge_gemm_copies
#include "gemm/operands.hpp"

#include "embedded_program.hpp"
#include "opencl_device.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <vector>

using namespace mqlcl_test;

namespace {

struct Shape {
  uint32_t rows, cols, ld, dst_ld, batch;
  uint64_t offset, stride;
};

struct Case {
  bool transposes;   // the kernel `transpose`, else `pack`
  bool in_registers; // transpose's form for devices without dedicated local memory
  uint32_t tile;
  bool double_precision, index64;
  Shape shape;
};

std::ostream &operator<<(std::ostream &out, const Case &c) {
  const Shape &s = c.shape;
  return out << (c.transposes ? "transpose" : "pack") << (c.in_registers ? " IN_REGISTERS" : "")
             << " TILE " << c.tile << (c.double_precision ? " double" : " float")
             << (c.index64 ? " INDEX64" : "") << " " << s.rows << "x" << s.cols << " ld " << s.ld
             << " dst_ld " << s.dst_ld << " batch " << s.batch << " offset " << s.offset
             << " stride " << s.stride;
}

// The lines of a copy: cols of `rows` elements (transpose) or rows of `cols` (pack).
uint64_t copy_lines(const Case &c) {
  return c.transposes ? c.shape.cols : c.shape.rows;
}

std::vector<Case> cases() {
  const Shape shapes[] = {
      {128, 192, 192, 128, 2, 0, 128 * 192 + 64}, // whole blocks, vectors in and out
      {130, 70, 73, 131, 3, 3, 130 * 73 + 5},     // partial blocks, rows not 4-aligned
      {128, 128, 132, 130, 1, 4, 0},              // aligned rows in, copy rows not 4-aligned
      {64, 64, 64, 64, 2, 8, 64 * 64},            // one block
      {5, 3, 3, 5, 1, 1, 0},                      // under a block
      {1, 1, 1, 1, 2, 0, 1},
  };
  std::vector<Case> all;
  for (bool transposes : {true, false})
    for (bool in_registers : {false, true})
      for (uint32_t tile : {64u, 32u, 16u})
        for (bool dp : {false, true})
          for (Shape shape : shapes) {
            if (in_registers && !transposes) // pack has one form
              continue;
            // A copy line is a column (transpose) or a row (pack); dst_ld pads it alike.
            if (!transposes)
              shape.dst_ld = shape.cols + (shape.dst_ld - shape.rows);
            all.push_back({transposes, in_registers, tile, dp, false, shape});
          }
  for (bool in_registers : {false, true}) {
    all.push_back({true, in_registers, 64, false, true, shapes[1]});
    all.push_back({true, in_registers, 64, true, true, shapes[0]});
  }
  return all;
}

template <class T> void run(int32_t context, const Case &c) {
  const Shape &s = c.shape;
  const uint64_t src_elements =
      s.offset + (s.batch - 1) * s.stride + uint64_t(s.rows - 1) * s.ld + s.cols;
  const uint64_t matrix = copy_lines(c) * s.dst_ld, dst_elements = matrix * s.batch;
  std::vector<T> src(src_elements), dst(dst_elements, T(-7));
  for (uint64_t e = 0; e < src_elements; ++e)
    src[e] = T(e % 100003) + T(0.25);

  Program program =
      embedded_program(context, "transpose.cl",
                       fmt::format("-DREALTYPE={} -DTILE={} -DINDEX64={} -DIN_REGISTERS={}",
                                   c.double_precision ? "double" : "float", c.tile,
                                   c.index64 ? 1 : 0, c.in_registers ? 1 : 0));
  Kernel kernel = make_kernel(program.get(), c.transposes ? u"transpose" : u"pack");
  Buffer in = make_buffer(context, uint32_t(src_elements * sizeof(T)));
  Buffer out = make_buffer(context, uint32_t(dst_elements * sizeof(T)));
  BOOST_TEST_REQUIRE(CLBufferWrite(in.get(), src.data(), 0, 0, uint32_t(src_elements), sizeof(T)) ==
                     src_elements);
  BOOST_TEST_REQUIRE(CLBufferWrite(out.get(), dst.data(), 0, 0, uint32_t(dst_elements),
                                   sizeof(T)) == dst_elements);
  BOOST_TEST_REQUIRE(CLSetKernelArgMem(kernel.get(), 0, in.get()) == 1);
  BOOST_TEST_REQUIRE(CLSetKernelArgMem(kernel.get(), 1, out.get()) == 1);
  BOOST_TEST_REQUIRE(CLSetKernelArg(kernel.get(), 2, &s.offset, 8) == 1);
  BOOST_TEST_REQUIRE(CLSetKernelArg(kernel.get(), 3, &s.stride, 8) == 1);
  const uint32_t extents[] = {s.ld, s.rows, s.cols, s.dst_ld};
  for (uint32_t i = 0; i < 4; ++i) {
    const int64_t wide = extents[i];
    const int32_t narrow = int32_t(extents[i]);
    BOOST_TEST_REQUIRE(CLSetKernelArg(kernel.get(), 4 + i,
                                      c.index64 ? (const void *)&wide : &narrow,
                                      c.index64 ? 8 : 4) == 1);
  }
  // As operands.cpp launches them.
  const mqlcl::gemm::CopyLaunch geometry =
      mqlcl::gemm::copy_launch(c.tile, c.transposes, s.rows, s.cols, s.batch);
  uint32_t global[3], local[3];
  for (int d = 0; d < 3; ++d) {
    global[d] = uint32_t(geometry.global[d]);
    local[d] = uint32_t(geometry.local[d]);
  }
  BOOST_TEST_REQUIRE(CLExecute(kernel.get(), 3, nullptr, global, local) == 1, last_error);
  BOOST_TEST_REQUIRE(CLBufferRead(out.get(), dst.data(), 0, 0, uint32_t(dst_elements), sizeof(T)) ==
                     dst_elements);

  size_t wrong = 0;
  for (uint64_t p = 0; p < s.batch; ++p)
    for (uint64_t line = 0; line < copy_lines(c); ++line)
      for (uint64_t e = 0; e < s.dst_ld; ++e) {
        const uint64_t along = c.transposes ? s.rows : s.cols;
        T expected = T(-7); // padding past the line: untouched
        if (e < along) {
          const uint64_t row = c.transposes ? e : line, col = c.transposes ? line : e;
          expected = src[s.offset + p * s.stride + row * s.ld + col];
        }
        const T got = dst[p * matrix + line * s.dst_ld + e];
        if (got != expected && wrong++ < 5)
          BOOST_TEST(got == expected, "product " << p << " line " << line << " element " << e);
      }
  BOOST_TEST(wrong == 0u);
}

} // namespace

BOOST_AUTO_TEST_SUITE(copies, *boost::unit_test::precondition(needs_device()))

BOOST_DATA_TEST_CASE(every_element_lands_and_nothing_else_changes, cases(), c) {
  Context context = make_context();
  if (c.double_precision && CLGetInfoInteger(context.get(), MQLCL_CL_DEVICE_DOUBLE_SUPPORT) != 1) {
    BOOST_TEST_MESSAGE("no double on this device: " << c);
    return;
  }
  if (!mqlcl::gemm::copy_tile_fits(
          c.tile, c.double_precision ? 8 : 4,
          size_t(CLGetInfoInteger(context.get(), MQLCL_CL_DEVICE_MAX_WORK_GROUP_SIZE)),
          uint64_t(CLGetInfoInteger(context.get(), MQLCL_CL_DEVICE_KERNEL_LOCAL_MEM_SIZE)))) {
    BOOST_TEST_MESSAGE("the library picks a smaller block on this device: " << c);
    return;
  }
  if (c.double_precision)
    run<double>(context.get(), c);
  else
    run<float>(context.get(), c);
}

BOOST_AUTO_TEST_SUITE_END()
