// mqlcl_agent_child: one process as a Strategy Tester agent uses the library. It opens a context
// (MQLCL_USE_SPREAD unless --selector says otherwise), builds a program (through the program cache
// when one is set), multiplies two matrices with the program's kernel and with CLGemm, checks both
// products against the host's, and prints one line:
//   ordinal=1 device=<name> from_cache=0 kernel_error=1.2e-07 gemm_error=1.1e-07 verified=1
// With --rendezvous DIR --processes N it waits, once its context exists, until N processes have
// theirs (each leaves a file in DIR), so they all hold a device at once; with --hold it then
// waits until the file DIR/release exists. Exit status: 0 verified, 1 a product was wrong,
// 2 a call failed, 3 the rendezvous timed out. Used by test_processes.cpp and
// tools/gpu-agents.sh.
#include "../../harness/src/utf16_text.hpp"

#include <mqlcl/mqlcl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr const char16_t *kProduct =
    u"__kernel void product(__global const float *a, __global const float *b, "
    u"__global float *c, uint n) {"
    u"  size_t row = get_global_id(1), col = get_global_id(0);"
    u"  float sum = 0.0f;"
    u"  for (uint i = 0; i < n; ++i) sum += a[row * n + i] * b[i * n + col];"
    u"  c[row * n + col] = sum; }";

struct Options {
  int32_t selector = MQLCL_USE_SPREAD;
  std::string rendezvous;
  int processes = 1;
  bool hold = false;
  uint32_t n = 128;
};

std::string last_error() {
  std::vector<char16_t> text(4096);
  CLGetInfoString(MQLCL_CL_LAST_ERROR, MQLCL_CL_ERROR_DESCRIPTION, text.data(),
                  static_cast<uint32_t>(text.size()));
  return mqlcl::replay::to_utf8(text.data());
}

[[noreturn]] void failed(const char *what) {
  std::printf("failed=%s error=%d %s\n", what, CLGetLastError(), last_error().c_str());
  std::exit(2);
}

size_t files_named(const fs::path &folder, const std::string &prefix) {
  size_t count = 0;
  std::error_code error;
  for (const auto &entry : fs::directory_iterator(folder, error))
    count += entry.path().filename().string().rfind(prefix, 0) == 0;
  return count;
}

bool wait_until(const std::function<bool()> &done) {
  for (int tries = 0; tries < 2400; ++tries) { // 120 s
    if (done())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void rendezvous(const Options &options) {
  if (options.rendezvous.empty())
    return;
  const fs::path folder = options.rendezvous;
  std::ofstream(folder / ("ready-" + std::to_string(getpid()))).put('\n');
  if (!wait_until([&] { return files_named(folder, "ready-") >= size_t(options.processes); }) ||
      (options.hold && !wait_until([&] { return fs::exists(folder / "release"); }))) {
    std::printf("failed=rendezvous\n");
    std::exit(3);
  }
}

double max_relative_error(const std::vector<float> &got, const std::vector<double> &want) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::fabs(got[i] - want[i]) / std::max(1.0, std::fabs(want[i])));
  return worst;
}

Options parse(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (arg == "--selector")
      options.selector = std::atoi(next().c_str());
    else if (arg == "--rendezvous")
      options.rendezvous = next();
    else if (arg == "--processes")
      options.processes = std::atoi(next().c_str());
    else if (arg == "--hold")
      options.hold = true;
    else if (arg == "--size")
      options.n = static_cast<uint32_t>(std::atoi(next().c_str()));
  }
  return options;
}

} // namespace

int main(int argc, char **argv) {
  const Options options = parse(argc, argv);
  const uint32_t n = options.n;
  int32_t context = CLContextCreate(options.selector);
  if (context == MQLCL_INVALID_HANDLE)
    failed("CLContextCreate");
  rendezvous(options);
  int32_t program = CLProgramCreate(context, kProduct);
  int32_t kernel = program != MQLCL_INVALID_HANDLE ? CLKernelCreate(program, u"product") : -1;
  if (kernel == MQLCL_INVALID_HANDLE)
    failed("CLProgramCreate/CLKernelCreate");
  std::vector<float> a(size_t{n} * n), b(a.size()), c(a.size()), g(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
    b[i] = static_cast<float>((i * 104729) % 997) / 997.0f - 0.5f;
  }
  std::vector<double> want(a.size(), 0.0);
  for (uint32_t row = 0; row < n; ++row)
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t col = 0; col < n; ++col)
        want[size_t{row} * n + col] += double(a[size_t{row} * n + i]) * b[size_t{i} * n + col];
  const uint32_t bytes = n * n * 4;
  int32_t ba = CLBufferCreate(context, bytes, 0), bb = CLBufferCreate(context, bytes, 0);
  int32_t bc = CLBufferCreate(context, bytes, 0), bg = CLBufferCreate(context, bytes, 0);
  if (CLBufferWrite(ba, a.data(), 0, 0, n * n, 4) != n * n ||
      CLBufferWrite(bb, b.data(), 0, 0, n * n, 4) != n * n)
    failed("CLBufferWrite");
  const uint32_t global[2] = {n, n};
  if (CLSetKernelArgMem(kernel, 0, ba) != 1 || CLSetKernelArgMem(kernel, 1, bb) != 1 ||
      CLSetKernelArgMem(kernel, 2, bc) != 1 || CLSetKernelArg(kernel, 3, &n, 4) != 1 ||
      CLExecute(kernel, 2, nullptr, global, nullptr) != 1)
    failed("CLExecute");
  if (CLGemm(ba, bb, bg, MQLCL_GEMM_FLOAT, MQLCL_GEMM_EXACT, 0, 0, n, n, n, 1.0, 0.0, 0, 0, 0, 0, 0,
             0, 1, 0, 0, 0) != 1)
    failed("CLGemm");
  if (CLBufferRead(bc, c.data(), 0, 0, n * n, 4) != n * n ||
      CLBufferRead(bg, g.data(), 0, 0, n * n, 4) != n * n)
    failed("CLBufferRead");
  std::vector<char16_t> name(256);
  CLGetInfoString(context, MQLCL_CL_DEVICE_NAME, name.data(), 256);
  std::string device;
  for (char16_t *ch = name.data(); *ch != 0; ++ch)
    device += *ch < 0x80 && *ch != ' ' ? static_cast<char>(*ch) : '_';
  const double kernel_error = max_relative_error(c, want), gemm_error = max_relative_error(g, want);
  const bool verified = kernel_error < 1e-4 && gemm_error < 1e-4;
  std::printf("ordinal=%lld device=%s from_cache=%lld kernel_error=%.3g gemm_error=%.3g "
              "verified=%d\n",
              static_cast<long long>(CLGetInfoInteger(context, MQLCL_CL_DEVICE_ORDINAL)),
              device.c_str(),
              static_cast<long long>(CLGetInfoInteger(program, MQLCL_CL_PROGRAM_FROM_CACHE)),
              kernel_error, gemm_error, verified ? 1 : 0);
  return verified ? 0 : 1;
}
