// Builds a kernel file as the library embeds it (bridge/src/gemm/kernels.hpp), for tests that run
// the GEMM's kernels on their own; such tests link the core library for the embedded text.
#pragma once

#include "gemm/kernels.hpp"
#include "opencl_device.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

namespace mqlcl_test {

// kernels/`file` built with `options` in `context`; the calling test fails, with the build log's
// start, where it does not build.
inline Program embedded_program(int32_t context, const char *file, const std::string &options) {
  const std::string text(mqlcl::gemm::kernel_text(file));
  const std::u16string source(text.begin(), text.end()); // the files are ASCII
  const std::u16string options16(options.begin(), options.end());
  char16_t log[4096] = {};
  Program program(CLProgramCreateEx(context, source.c_str(), options16.c_str(), log, 4096));
  BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error
                                                                << "\n"
                                                                << std::string(log, log + 200));
  return program;
}

} // namespace mqlcl_test
