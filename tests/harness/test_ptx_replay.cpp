// mqlcl-ptx-replay (tools/ptx-replay) as a user runs it. Its product runs only on an NVIDIA GPU
// with the CUDA driver; here, and in CI, the tests check what it does everywhere else: it parses
// its arguments, and it refuses cleanly, with exit status 2 and a reason, where nothing can run.
// Where an NVIDIA OpenCL platform and the CUDA driver are present, the product must verify.
#define BOOST_TEST_MODULE ptx_replay
#include "harness_support.hpp"

using harness_test::has;
using harness_test::Outcome;
using harness_test::run_program;

namespace {

Outcome run_tool(const std::vector<std::string> &args) {
  return run_program(MQLCL_TEST_PTX_REPLAY, args);
}

const std::string kStep13 = std::string(MQLCL_TEST_KERNELS) + "/matr_mul_double_buffered.cl";

} // namespace

BOOST_AUTO_TEST_CASE(help_prints_the_usage_and_succeeds) {
  Outcome run = run_tool({"--help"});
  BOOST_TEST(run.status == 0);
  BOOST_TEST(has(run.out, "usage: mqlcl-ptx-replay KERNEL.cl"), run.out);
}

BOOST_AUTO_TEST_CASE(bad_arguments_exit_2_with_the_reason) {
  struct Case {
    std::vector<std::string> args;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {{}, "the sizes are missing"},
      {{kStep13, "--size", "64"}, "a kernel file (or --load-ptx), --groups and --local are needed"},
      {{kStep13, "--size", "64", "--groups", "1", "--local", "256", "--opt-level", "5"},
       "--opt-level takes 0 to 4, not '5'"},
      {{kStep13, "--size", "64", "--groups", "1", "--local", "256", "--max-registers", "0"},
       "--max-registers takes a whole number from 1 to 1048576, not '0'"},
      {{"--load-ptx", "/nonexistent/kernel.ptx", "--size", "64", "--groups", "1", "--local", "256"},
       "cannot read /nonexistent/kernel.ptx"},
      {{kStep13, "--size", "0", "--groups", "1", "--local", "256"},
       "--size takes a whole number from 1 to 1048576, not '0'"},
      {{kStep13, "--size", "64x", "--groups", "1", "--local", "256"}, "not '64x'"},
      {{kStep13, "--size", "64", "--groups"}, "--groups needs a value"},
      {{kStep13, "--size", "64", "--groups", "1", "--local", "256", "--bogus"},
       "unknown argument '--bogus'"},
  };
  for (const Case &c : cases) {
    Outcome run = run_tool(c.args);
    BOOST_TEST(run.status == 2, c.reason);
    BOOST_TEST(has(run.err, c.reason), run.err);
    BOOST_TEST(run.out.empty(), run.out);
  }
}

// Step 13's product at 64: on an NVIDIA GPU it must verify; anywhere else the tool must say why
// it cannot run, which on this machine and in CI (PoCL only) is the missing NVIDIA platform.
BOOST_AUTO_TEST_CASE(a_product_verifies_or_is_refused_with_the_reason) {
  Outcome run =
      run_tool({kStep13, "--size", "64", "--groups", "1", "--local", "256", "-D", "BM=64", "-D",
                "BN=64", "-D", "BK=16", "-D", "TM=4", "-D", "TN=4", "--repeat", "2"});
  if (run.status == 0) {
    BOOST_TEST(has(run.out, "verification: passed, 257 of 257"), run.out);
    return;
  }
  BOOST_TEST(run.status == 2, run.err);
  BOOST_TEST((has(run.err, "no OpenCL platform whose name contains \"NVIDIA\" has a GPU") ||
              has(run.err, "no OpenCL platform is installed") ||
              has(run.err, "the CUDA driver is not installed")),
             run.err);
}

// Step 19's double product (--double) at 64, the same way: verified within the FP64 bound on an
// NVIDIA GPU, else refused with the reason.
BOOST_AUTO_TEST_CASE(a_double_product_verifies_or_is_refused_with_the_reason) {
  const std::string step19 = std::string(MQLCL_TEST_KERNELS) + "/matr_mul_dmma.cl";
  Outcome run =
      run_tool({step19, "--double", "--size", "64", "--groups", "1", "--local", "128", "-D",
                "BM=64", "-D", "BN=64", "-D", "WM=32", "-D", "WN=32", "--repeat", "2"});
  if (run.status == 0) {
    BOOST_TEST(has(run.out, "verification: passed, 257 of 257 sampled elements within K * 2^-52"),
               run.out);
    return;
  }
  BOOST_TEST(run.status == 2, run.err);
  BOOST_TEST((has(run.err, "no OpenCL platform whose name contains \"NVIDIA\" has a GPU") ||
              has(run.err, "no OpenCL platform is installed") ||
              has(run.err, "the CUDA driver is not installed")),
             run.err);
}

BOOST_AUTO_TEST_CASE(cublas_needs_cuda_and_cublas) {
  for (const bool double_precision : {false, true}) {
    std::vector<std::string> args = {"--cublas", "--size", "64", "--repeat", "2"};
    if (double_precision)
      args.push_back("--double");
    Outcome run = run_tool(args);
    if (run.status == 0) {
      BOOST_TEST(has(run.out, double_precision ? "within K * 2^-52" : "within K * 2^-23"), run.out);
      BOOST_TEST(has(run.out, "verification: passed, 257 of 257"), run.out);
      continue;
    }
    BOOST_TEST(run.status == 2, run.err);
    // The bench's cuBLAS anchor says why: no library, or (with the CUDA toolkit but no GPU, as on
    // this machine) no device.
    BOOST_TEST((has(run.err, "the CUDA runtime or cuBLAS is not installed") ||
                has(run.err, "cublasCreate failed (no CUDA device?)")),
               run.err);
  }
}

BOOST_AUTO_TEST_CASE(a_missing_kernel_file_is_refused) {
  Outcome run =
      run_tool({"/nonexistent/kernel.cl", "--size", "64", "--groups", "1", "--local", "256"});
  BOOST_TEST(run.status == 2, run.err);
  BOOST_TEST(has(run.err, "cannot read /nonexistent/kernel.cl"), run.err);
}
