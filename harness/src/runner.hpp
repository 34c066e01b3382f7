// The replay runner: one code path for every step of the catalogue. It follows the article's
// scripts: generate the matrices, time the single-core CPU loop, then CLContextCreate ->
// CLProgramCreate(Ex) -> CLKernelCreate -> 3 x CLBufferCreate -> 3 x CLSetKernelArgMem ->
// 3 x CLBufferWrite -> CLExecute -> CLBufferRead, timed from just before CLExecute to just after
// CLBufferRead, then the frees in reverse. Every element is checked against a double reference.
// A step with an operand pass (catalogue.hpp) also launches it on both operands, in the timed
// part, before the product.
#pragma once

#include "bridge.hpp"
#include "catalogue.hpp"
#include "error.hpp"
#include "matrices.hpp"
#include "verify.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::replay {

struct Options {
  Sizes sizes;
  bool double_precision = false;  // REALTYPE double instead of float
  bool run_cpu = true;            // time the article's single-core loop
  int32_t device = MQLCL_USE_ANY; // passed to CLContextCreate
  std::vector<uint32_t> local;    // --local; empty: the runtime chooses, as in the article
  uint32_t repeat = 1;            // replays of CLExecute + CLBufferRead
  uint64_t seed = 2012;           // the matrices' generator
  uint32_t random_checks = 10;    // the article's checkRandom() lines
  Params params;                  // --param NAME=VALUE: over the step's own (tile sizes, ...)
};

enum class Status {
  verified, // every element within tolerance
  wrong,    // some element is not
  rejected, // the step cannot run these sizes or options on this device (nothing was run)
  failed,   // the bridge or OpenCL failed
  skipped   // nothing to do (the host-only step with --no-cpu)
};
const char *status_name(Status status);
ExitCode exit_code_of(Status status);

// Seconds of each replay.
struct Samples {
  std::vector<double> values;
  bool empty() const { return values.empty(); }
  double min() const;
  double median() const;
};

struct DeviceInfo {
  int32_t ordinal = -1;
  std::string name, vendor, driver, platform, version;
  std::string type; // "GPU", "CPU", "Accelerator"
  uint32_t max_clock_mhz = 0;
  uint64_t global_mem_bytes = 0;
  DeviceCaps caps;
};

// One of the article's checkRandom() lines.
struct RandomCheck {
  uint32_t row = 0, col = 0;
  double sum = 0;            // recomputed in REALTYPE, as checkRandom() does
  std::optional<double> cpu; // thirdCPU (absent with --no-cpu)
  double buf = 0;            // what the device computed
};

// What one replay did and measured.
struct StepRun {
  std::string step;
  std::string source;
  bool host_only = false;
  Sizes sizes, padded;
  std::string real_type = "float";
  uint32_t repeat = 1;
  uint64_t seed = 0;
  std::string bridge_version;
  std::optional<DeviceInfo> device;
  std::string kernel_file; // the one built (the tuned step chooses it per device)
  std::string build_options;
  LaunchGeometry geometry;
  int64_t kernel_work_group_size = -1, kernel_private_bytes = -1, kernel_local_bytes = -1;

  std::optional<double> cpu_seconds; // the article's CPUTime
  uint32_t elements_read = 0;        // CLBufferRead's count, "read = N elements"
  Samples total_seconds;             // "OpenCL total": CLExecute + CLBufferRead, wall time
  Samples kernel_seconds;            // the kernel alone, from profiling events
  std::vector<RandomCheck> checks;
  Verification verification;                    // the device's product (the CPU's, host-only)
  std::optional<Verification> cpu_verification; // thirdCPU, when the CPU loop ran

  Status status = Status::failed;
  std::string message; // why it was rejected or failed; what the race did for a racy step

  // 2 * ROWS1 * COLS2 * COLSROWS, the article's operation count.
  double flops() const { return 2.0 * sizes.rows1 * sizes.cols2 * sizes.colsrows; }
  std::optional<double> gflops(const std::optional<double> &seconds) const;
};

// Progress of a replay, in the order the article's scripts print it.
class Observer {
public:
  virtual ~Observer() = default;
  virtual void started(const StepRun &) {} // sizes and device known
  virtual void cpu_progress(uint32_t /*done*/, uint32_t /*total*/) {}
  virtual void cpu_finished(const StepRun &) {}  // cpu_seconds set
  virtual void read_finished(const StepRun &) {} // elements_read set
  virtual void finished(const StepRun &) {}      // always called, whatever the status
  // A phase of the device's part begins (the reference, the build, each replay): for progress.
  virtual void phase(const std::string & /*what*/) {}
};

class Runner {
public:
  // `bridge` must outlive the runner; kernel files are read from `kernels_dir`.
  Runner(const Bridge &bridge, std::filesystem::path kernels_dir);
  ~Runner();

  // Never throws for a problem of the step: it is recorded in the result's status and message.
  StepRun run(const Step &step, const Options &options, Observer &observer);

  // What the bridge says of a device (a context is created and freed to ask).
  DeviceInfo probe_device(int32_t device) const;

  // The text of `file` in the kernels directory, its #include lines inlined (kernel_source.hpp);
  // throws Error(bad_input) when it or a file it includes is missing.
  std::string read_kernel(const std::string &file) const;

  // The double-precision product of `inputs` (generated from options.seed at options.sizes), the
  // inputs rounded to TF32 as `rounding` says; kept, so the steps and anchors of a size share it.
  std::shared_ptr<const Reference> reference(const Options &options, const Inputs<float> &inputs,
                                             InputRounding rounding);

  // The -D options a step is built with at `padded` sizes.
  static std::string build_options(const Step &step, const Sizes &padded, bool double_precision);

private:
  template <class T>
  void replay(const Step &step, const Options &options, Observer &observer, StepRun &run);
  template <class T>
  void host_only(const Step &step, const Options &options, Observer &observer, StepRun &run);
  DeviceInfo read_device(int32_t context) const;
  template <class T>
  std::shared_ptr<const Reference> reference_for(const Options &options, const Inputs<T> &inputs,
                                                 InputRounding rounding = InputRounding::none);
  template <class T>
  Matrix<T> cpu_product(const Step &step, const Options &options, const Inputs<T> &in,
                        const Sizes &padded, Observer &observer, StepRun &run);
  template <class T>
  Verification verify_unrounded(const Options &options, const Inputs<T> &in,
                                const Matrix<T> &product);
  template <class T>
  void verify_product(const Step &step, const Options &options, const Inputs<T> &inputs,
                      const Matrix<T> &product, StepRun &run);

  const Bridge &bridge_;
  std::filesystem::path kernels_dir_;
  struct Cache;
  std::unique_ptr<Cache> cache_;
};

} // namespace mqlcl::replay
