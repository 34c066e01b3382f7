#include "host_to_host.hpp"

#include "gemm_product.hpp"
#include "reference.hpp"
#include "verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <thread>
#include <type_traits>

namespace mqlcl::replay {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Above this the host reference (blocked fp64 on the host's threads) takes too long: the check is
// then against OpenBLAS's product.
constexpr uint32_t kLargestHostReference = 4096;

// One size of one element type.
struct HostRow {
  uint32_t n = 0;
  bool ok = false;
  std::string why_not;
  Samples end_to_end; // CLMatMul, what mqlclMatMul calls
  Samples four_calls; // the four calls it stands for, one after another
  // The same calls timed one by one, the product waited for (CL_GEMM_EXECUTION_TIME) before the
  // read, so that each call's time is its own.
  Samples write_a, write_b, product, kernel, read_c;
  double floor_a = 0, floor_b = 0, floor_c = 0; // pinned DMA of each transfer
  AnchorResult cpu;
  HostCheck check;
  // The bridge's account of each transfer of the last call-by-call pass (CL_LAST_TRANSFER).
  std::string write_a_detail, write_b_detail, read_c_detail;

  double floor() const { return floor_a + floor_b + floor_c + (kernel.empty() ? 0 : kernel.min()); }
};

// CLMatMul, timed; c filled with NaN first, so that a product it did not write is seen.
template <class T>
std::optional<double> end_to_end(const ProductOnDevice<T> &device, const T *a, const T *b,
                                 std::vector<T> &c) {
  std::fill(c.begin(), c.end(), std::numeric_limits<T>::quiet_NaN());
  auto start = Clock::now();
  if (!device.mat_mul(a, b, c.data()))
    return std::nullopt;
  return seconds_since(start);
}

// The four calls CLMatMul stands for, one after another, timed whole.
template <class T>
std::optional<double> four_calls(const ProductOnDevice<T> &device, const T *a, const T *b, T *c) {
  auto start = Clock::now();
  if (!device.write_a(a) || !device.write_b(b) || !device.call() || !device.read(c))
    return std::nullopt;
  return seconds_since(start);
}

// The same calls timed one by one, into the row's samples.
template <class T>
bool call_by_call(const Bridge &bridge, const ProductOnDevice<T> &device, const T *a, const T *b,
                  T *c, HostRow &row) {
  // The bridge's account of each transfer just made.
  const auto last_transfer = [&] {
    return bridge.info_string(device.context(), MQLCL_CL_LAST_TRANSFER, "CL_LAST_TRANSFER");
  };
  auto start = Clock::now();
  if (!device.write_a(a))
    return false;
  row.write_a.values.push_back(seconds_since(start));
  row.write_a_detail = last_transfer();
  start = Clock::now();
  if (!device.write_b(b))
    return false;
  row.write_b.values.push_back(seconds_since(start));
  row.write_b_detail = last_transfer();
  start = Clock::now();
  const int64_t nanoseconds =
      device.call() ? bridge.api().CLGetInfoInteger(device.context(), MQLCL_CL_GEMM_EXECUTION_TIME)
                    : -1;
  if (nanoseconds <= 0)
    return false;
  row.product.values.push_back(seconds_since(start));
  row.kernel.values.push_back(double(nanoseconds) * 1e-9);
  start = Clock::now();
  if (!device.read(c))
    return false;
  row.read_c.values.push_back(seconds_since(start));
  row.read_c_detail = last_transfer();
  return true;
}

} // namespace

template <class T>
HostCheck check_host_product(uint32_t n, const std::vector<T> &a, const std::vector<T> &b,
                             const std::vector<T> &c, const std::vector<T> *cpu_c) {
  HostCheck result;
  Reference reference;
  double tolerance = tolerance_for<T>(n, 1, 1); // inputs lie in [-1, 1]
  if (n <= kLargestHostReference) {
    Inputs<T> in{Matrix<T>(n, n, n, n, Layout::row_major),
                 Matrix<T>(n, n, n, n, Layout::row_major)};
    in.first.data = a;
    in.second.data = b;
    reference = reference_product(in);
    result.how = "the host's fp64 product, within the type's bound";
  } else if (cpu_c != nullptr) {
    reference.rows = reference.cols = n;
    reference.product.assign(cpu_c->begin(), cpu_c->end());
    for (double v : reference.product)
      reference.max_abs_product = std::max(reference.max_abs_product, std::fabs(v));
    tolerance *= 2;
    result.how = "OpenBLAS's product, within twice the type's bound";
  } else {
    result.how = "nothing: no host reference at this size without OpenBLAS";
    return result;
  }
  Matrix<T> got(n, n, n, n, Layout::row_major);
  got.data = c;
  const Verification v = verify(got, reference, tolerance);
  result.checked = true;
  result.verified = v.passed();
  result.error_ratio =
      reference.max_abs_product > 0 ? v.max_error / reference.max_abs_product : v.max_error;
  return result;
}

template HostCheck check_host_product<float>(uint32_t, const std::vector<float> &,
                                             const std::vector<float> &, const std::vector<float> &,
                                             const std::vector<float> *);
template HostCheck check_host_product<double>(uint32_t, const std::vector<double> &,
                                              const std::vector<double> &,
                                              const std::vector<double> &,
                                              const std::vector<double> *);

namespace {

// What every size of one run works with.
struct Section {
  const Bridge &bridge;
  const DeviceInfo &device;
  const HostToHostSettings &settings;
  double host_to_device = 0, device_to_host = 0; // pinned DMA, bytes per second
  int cpu_threads = 1;
  const TextReport &say;
  ProgressLine &progress;
};

// One size: the warm-up (the product's build and the staging set up), then the four calls
// whole, one by one and CLMatMul, alternating, so that all see the same state of the machine
// (CLMatMul last: its C is the one checked); then OpenBLAS.
template <class T> HostRow measure_size(const Section &section, uint32_t n) {
  const BridgeApi &cl = section.bridge.api();
  HostRow row;
  row.n = n;
  const size_t elements = size_t{n} * n;
  const std::vector<T> a = random_values<T>(elements, 1), b = random_values<T>(elements, 2);
  std::vector<T> c(elements), cpu_c(elements);
  const ProductOnDevice<T> device(cl, section.device.ordinal,
                                  GeneralGemm{n, n, n, 1, false, false, std::is_same_v<T, double>},
                                  MQLCL_GEMM_EXACT);
  bool ok = device.ok() && four_calls(device, a.data(), b.data(), c.data()) &&
            end_to_end(device, a.data(), b.data(), c);
  for (uint32_t r = 0; ok && r < section.settings.repeat; ++r) {
    const std::optional<double> whole = four_calls(device, a.data(), b.data(), c.data());
    ok = whole && call_by_call(section.bridge, device, a.data(), b.data(), c.data(), row);
    const std::optional<double> seconds =
        ok ? end_to_end(device, a.data(), b.data(), c) : std::nullopt;
    ok = ok && seconds;
    if (ok) {
      row.four_calls.values.push_back(*whole);
      row.end_to_end.values.push_back(*seconds);
    }
  }
  if (!ok) {
    row.why_not = section.bridge.last_error_text();
    return row;
  }
  row.ok = true;
  const double bytes = double(elements) * sizeof(T);
  row.floor_a = row.floor_b = bytes / section.host_to_device;
  row.floor_c = bytes / section.device_to_host;
  if (section.settings.with_cpu)
    row.cpu = openblas_gemm(n, n, n, a.data(), b.data(), false, cpu_c.data(),
                            section.settings.repeat, section.cpu_threads);
  else
    row.cpu.note = "not run (--no-cpu)";
  row.check = check_host_product(n, a, b, c, row.cpu.available ? &cpu_c : nullptr);
  return row;
}

double median_ms(const Samples &s) {
  return s.empty() ? 0 : s.median() * 1e3;
}

void print_header(const TextReport &say, const char *type) {
  say("\n  {:<6} {:>6} {:>9} {:>9} {:>7} {:>8} {:>7}   {:>7} {:>7} {:>7} {:>7} {:>7}   {:>10} "
      "{:>8}  "
      "{}\n",
      type, "n", "total ms", "floor ms", "x floor", "4 calls", "x floor", "write A", "write B",
      "product", "kernel", "read C", "CPU ms", "GPU gain", "verified");
}

void print_row(const TextReport &say, const HostRow &row) {
  if (!row.ok) {
    say("  {:<6} {:>6} unavailable: {}\n", "", row.n, row.why_not);
    return;
  }
  const double total = row.end_to_end.median();
  std::string cpu = "-", gain = "-";
  if (row.cpu.available) {
    cpu = fmt::format("{:.3f}", row.cpu.seconds.median() * 1e3);
    gain = fmt::format("{:.2f}x", row.cpu.seconds.median() / total);
  }
  const double whole = row.four_calls.median();
  say("  {:<6} {:>6} {:>9.3f} {:>9.3f} {:>6.2f}x {:>8.3f} {:>6.2f}x   {:>7.3f} {:>7.3f} {:>7.3f} "
      "{:>7.3f} {:>7.3f}   {:>10} {:>8}  {}\n",
      "", row.n, total * 1e3, row.floor() * 1e3, total / row.floor(), whole * 1e3,
      whole / row.floor(), median_ms(row.write_a), median_ms(row.write_b), median_ms(row.product),
      row.kernel.min() * 1e3, median_ms(row.read_c), cpu, gain,
      row.check.verified ? "yes" : (row.check.checked ? "NO" : "-"));
}

// Where the staged transfers' time went, the last call-by-call pass of each size (the direct
// ones are their calls' times above).
void print_staged_transfers(const TextReport &say, const std::vector<HostRow> &rows) {
  for (const HostRow &row : rows)
    for (const auto &[call, detail] :
         {std::pair{"write A", &row.write_a_detail}, std::pair{"write B", &row.write_b_detail},
          std::pair{"read C", &row.read_c_detail}})
      if (detail->find(" staged (") != std::string::npos)
        say("  {:<6} {:>6} {}: {}\n", "", row.n, call, *detail);
}

Json phase_json(const Samples &s, double floor) {
  Json json = {{"median_s", s.empty() ? 0 : s.median()}};
  if (floor > 0)
    json["floor_s"] = floor;
  return json;
}

Json row_json(const HostRow &row) {
  Json json = {{"n", row.n},
               {"available", row.ok},
               {"verified", row.check.verified},
               {"check", row.check.how}};
  if (!row.ok) {
    json["note"] = row.why_not;
    return json;
  }
  json["end_to_end_s"] = {{"min", row.end_to_end.min()}, {"median", row.end_to_end.median()}};
  json["transfer_floor_s"] = row.floor();
  json["ratio_to_floor"] = row.end_to_end.median() / row.floor();
  json["four_calls_s"] = {{"min", row.four_calls.min()}, {"median", row.four_calls.median()}};
  json["four_calls_ratio_to_floor"] = row.four_calls.median() / row.floor();
  json["max_error_over_max_ref"] = row.check.error_ratio;
  json["calls"] = {{"write_a", phase_json(row.write_a, row.floor_a)},
                   {"write_b", phase_json(row.write_b, row.floor_b)},
                   {"gemm", phase_json(row.product, 0)},
                   {"kernel_min_s", row.kernel.min()},
                   {"read_c", phase_json(row.read_c, row.floor_c)}};
  json["transfers"] = {{"write_a", row.write_a_detail},
                       {"write_b", row.write_b_detail},
                       {"read_c", row.read_c_detail}};
  json["cpu"] = {{"name", row.cpu.name}, {"available", row.cpu.available}, {"note", row.cpu.note}};
  if (row.cpu.available) {
    json["cpu"]["median_s"] = row.cpu.seconds.median();
    json["gpu_gain"] = row.cpu.seconds.median() / row.end_to_end.median();
  }
  return json;
}

// Every size of one element type, each on a context of its own; its rows printed and returned
// as JSON.
template <class T> Json measure_type(const Section &section, size_t &wrong) {
  const char *type = std::is_same_v<T, double> ? "double" : "float";
  const TextReport &say = section.say;
  std::vector<HostRow> rows;
  for (uint32_t n : section.settings.sizes) {
    section.progress.show(fmt::format("from host to host: {} at {}", type, n));
    rows.push_back(measure_size<T>(section, n));
    section.progress.clear();
    if (rows.size() == 1)
      print_header(say, type);
    print_row(say, rows.back());
    wrong += rows.back().ok && rows.back().check.checked && !rows.back().check.verified;
  }
  Json json = {{"type", type}, {"rows", Json::array()}};
  for (const HostRow &row : rows)
    json["rows"].push_back(row_json(row));
  std::vector<SizeTimes> times;
  for (const HostRow &row : rows)
    times.push_back(
        {row.n, row.ok ? row.end_to_end.median() : 0,
         row.ok && row.cpu.available ? std::optional(row.cpu.seconds.median()) : std::nullopt});
  std::optional<uint32_t> from = gpu_wins_from(times);
  json["gpu_wins_from"] = from ? Json(*from) : Json();
  std::string wins = "none of the sizes measured";
  if (from)
    wins =
        fmt::format("n = {}{}", *from, *from == rows.front().n ? " (the smallest measured)" : "");
  else if (rows.empty() || !rows.front().cpu.available)
    wins = "- (no CPU product)";
  print_staged_transfers(say, rows);
  say("  {:<6} the GPU path wins from: {}\n", "", wins);
  if (!rows.empty())
    say("  {:<6} CPU: {}{}\n", "",
        rows.front().cpu.name.empty() ? "" : rows.front().cpu.name + ": ", rows.front().cpu.note);
  return json;
}

// Host memcpy between touched arrays on `threads` threads, bytes per second (best of three).
double memcpy_rate(size_t bytes, unsigned threads) {
  std::vector<char> from(bytes, 1), to(bytes, 0);
  double best = 0;
  for (int r = 0; r < 3; ++r) {
    auto start = Clock::now();
    std::vector<std::thread> pool;
    const size_t share = bytes / threads;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back(
          [&, t] { std::memcpy(to.data() + t * share, from.data() + t * share, share); });
    for (std::thread &thread : pool)
      thread.join();
    best = std::max(best, double(share) * threads / seconds_since(start));
  }
  return best;
}

} // namespace

std::optional<uint32_t> gpu_wins_from(const std::vector<SizeTimes> &sizes) {
  std::optional<uint32_t> from;
  for (const SizeTimes &size : sizes) {
    if (!size.cpu_seconds || size.gpu_seconds <= 0)
      return std::nullopt;
    if (size.gpu_seconds >= *size.cpu_seconds)
      from.reset();
    else if (!from)
      from = size.n;
  }
  return from;
}

HostToHostRun measure_host_to_host(const Bridge &bridge, const DeviceInfo &device, RawDevice &raw,
                                   const HostToHostSettings &settings, const TextReport &say,
                                   ProgressLine &progress) {
  HostToHostRun run;
  progress.show("from host to host: the pinned rates and the host's memcpy");
  const uint32_t largest = *std::max_element(settings.sizes.begin(), settings.sizes.end());
  // The rates of large transfers (at least 64 MiB): small ones measure latency, not rate.
  RawDevice::Bandwidth pinned =
      raw.pinned_bandwidth(std::max(size_t{largest} * largest * 4, size_t{64} << 20));
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const Section section{bridge,
                        device,
                        settings,
                        pinned.host_to_device,
                        pinned.device_to_host,
                        static_cast<int>(hardware),
                        say,
                        progress};
  Json copies = Json::object();
  std::string copy_text;
  for (unsigned threads : {1u, 4u, 8u, 16u})
    if (threads <= hardware) {
      double rate = memcpy_rate(size_t{256} << 20, threads);
      copies[std::to_string(threads)] = rate / 1e9;
      copy_text += fmt::format("{}{:.1f} GB/s on {} thread{}", copy_text.empty() ? "" : ", ",
                               rate / 1e9, threads, threads == 1 ? "" : "s");
    }
  progress.clear();
  say("\nfrom host arrays to host arrays (total: CLMatMul EXACT, what mqlclMatMul calls; 4 calls: "
      "CLBufferWrite A and B, CLGemm, CLBufferRead C, whole, then each alone; ms, medians of {})\n",
      settings.repeat);
  run.json = {{"repeat", settings.repeat},
              {"pinned_host_to_device_gbps", section.host_to_device / 1e9},
              {"pinned_device_to_host_gbps", section.device_to_host / 1e9},
              {"host_memcpy_gbps_by_threads", copies},
              {"types", Json::array()}};
  if (section.host_to_device <= 0 || section.device_to_host <= 0) {
    say("  unavailable: the pinned rates could not be measured ({})\n", raw.why_not());
    return run;
  }
  say("  floor: A and B in at the pinned {:.1f} GB/s, C out at {:.1f} GB/s, plus the kernel; "
      "host memcpy {}\n",
      section.host_to_device / 1e9, section.device_to_host / 1e9, copy_text);
  run.json["types"].push_back(measure_type<float>(section, run.wrong_products));
  if (device.caps.fp64)
    run.json["types"].push_back(measure_type<double>(section, run.wrong_products));
  return run;
}

} // namespace mqlcl::replay
