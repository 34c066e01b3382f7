// `mqlcl-replay bench`'s section from host arrays to host arrays: what an MQL5 program calls for
// c = a.MatMul(b) through the DLL (mqlclMatMul: CLMatMul), beside the four calls it stands for
// (CLBufferWrite A and B, CLGemm, CLBufferRead C) timed whole and one by one, against the device's
// transfer floor, next to OpenBLAS (what MQL5's own matrix.MatMul runs) on every host thread; and
// the size from which the GPU wins.
#pragma once

#include "anchors.hpp"
#include "bridge.hpp"
#include "json.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "runner.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::replay {

struct HostToHostRun {
  Json json;
  size_t wrong_products = 0; // of CLGemm: the bench's exit status is 1 when any is wrong
};

// How a product of bench's host section was checked: C (n x n) against the host's fp64 product of
// a and b (row-major, values in [-1, 1]) within the type's bound, or past 4096 (where that takes
// too long) against OpenBLAS's product `cpu_c` within twice it (each is within the bound of the
// exact product); nothing past 4096 without it.
struct HostCheck {
  bool checked = false, verified = false;
  double error_ratio = 0; // max |C - ref| / max |ref|
  std::string how;
};
template <class T>
HostCheck check_host_product(uint32_t n, const std::vector<T> &a, const std::vector<T> &b,
                             const std::vector<T> &c, const std::vector<T> *cpu_c);

// One size's end-to-end time through the GPU and the CPU's (nothing where the CPU did not run).
struct SizeTimes {
  uint32_t n = 0;
  double gpu_seconds = 0;
  std::optional<double> cpu_seconds;
};

// The smallest n of `sizes` (ascending) from which the GPU is faster than the CPU at it and at
// every larger n; nothing when it is not faster at the largest, or the CPU did not run somewhere.
std::optional<uint32_t> gpu_wins_from(const std::vector<SizeTimes> &sizes);

struct HostToHostSettings {
  std::vector<uint32_t> sizes; // n x n x n, NN
  uint32_t repeat = 5;         // timed passes after a warm-up
  bool with_cpu = true;        // OpenBLAS beside the GPU
};

// Float, then double (where the device has fp64); printed with `say`.
HostToHostRun measure_host_to_host(const Bridge &bridge, const DeviceInfo &device, RawDevice &raw,
                                   const HostToHostSettings &settings, const TextReport &say,
                                   ProgressLine &progress);

} // namespace mqlcl::replay
