#include "report.hpp"

#include "json.hpp"
#include "progress.hpp"

#include <fmt/format.h>

#include <cmath>

namespace mqlcl::replay {

namespace {

// The article's d2s(x, digits).
std::string d2s(double value, int digits) {
  return fmt::format("{:.{}f}", value, digits);
}

// GFLOPS with three decimals; "n/a" when the time was too short to measure.
std::string rate(const std::optional<double> &gflops) {
  return gflops ? d2s(*gflops, 3) : std::string("n/a");
}

const char *kSeparator = "=======================================";
const char *kEnd = "________________________";

std::string verification_line(const Verification &v) {
  if (!v.done)
    return "verification: not done";
  std::string where = fmt::format("[ {},{} ]", v.worst_row, v.worst_col);
  // A product of inputs rounded to TF32 is checked against the product of the same rounded
  // inputs; its error against the inputs as they are is what a user sees.
  const bool rounded = v.rounding != InputRounding::none;
  const std::string reference =
      rounded ? fmt::format("double-precision product of the inputs rounded to TF32 ({})",
                            input_rounding_name(v.rounding))
              : std::string("double-precision reference");
  const std::string unrounded =
      rounded ? fmt::format("; {:.3e} against the unrounded inputs' product", v.max_error_unrounded)
              : std::string();
  if (v.passed())
    return fmt::format("verification: passed, {} of {} elements within {:.3e} of the {} (max "
                       "error {:.3e} at {}{})",
                       v.checked, v.checked, v.tolerance, reference, v.max_error, where, unrounded);
  return fmt::format("verification: FAILED, {} of {} elements differ from the {} by more than "
                     "{:.3e} (max error {:.3e} at {}: got {:.8f}, expected {:.8f}{})",
                     v.mismatches, v.checked, reference, v.tolerance, v.max_error, where,
                     v.worst_got, v.worst_expected, unrounded);
}

class ConsoleObserver : public Observer {
public:
  ConsoleObserver(std::FILE *out, std::FILE *err, bool article_lines, bool progress)
      : out_(out), err_(err), article_(article_lines), progress_(err, !progress) {}

  void started(const StepRun &run) override {
    step_ = run.step;
    if (!article_)
      return;
    line(kSeparator);
    if (run.host_only)
      line(fmt::format("ROWS1 = {}; COLSROWS = {}; COLS2 = {}", run.sizes.rows1, run.sizes.colsrows,
                       run.sizes.cols2));
    else
      line(fmt::format("1st OCL martices mul:  device = {};      ROWS1 = {}; COLSROWS = {}; "
                       "COLS2 = {}",
                       run.device->ordinal, run.sizes.rows1, run.sizes.colsrows, run.sizes.cols2));
  }

  void cpu_progress(uint32_t done, uint32_t total) override {
    if (done < total)
      progress_.show(
          fmt::format("{}: CPU loop {:3d}%", step_, static_cast<int>(100.0 * done / total)), false);
    else
      progress_.clear();
  }

  void phase(const std::string &what) override { progress_.show(step_ + ": " + what); }

  void cpu_finished(const StepRun &run) override {
    if (article_)
      line(run.host_only ? fmt::format("CPU: time = {} s.", d2s(*run.cpu_seconds, 3))
                         : fmt::format("CPUTime = {}", d2s(*run.cpu_seconds, 3)));
  }

  void read_finished(const StepRun &run) override {
    if (article_)
      line(fmt::format("read = {} elements", run.elements_read));
  }

  void finished(const StepRun &run) override {
    progress_.clear();
    if (run.status == Status::rejected || run.status == Status::failed) {
      fmt::print(err_, "mqlcl-replay: {} {}: {}\n", run.step,
                 run.status == Status::rejected ? "rejected" : "failed", run.message);
      std::fflush(err_);
      return;
    }
    if (!article_)
      return;
    if (run.status == Status::skipped) {
      line(fmt::format("skipped: {}", run.message));
      return;
    }
    if (run.host_only) {
      line(fmt::format("throughput = {} GFLOPS", rate(run.gflops(run.cpu_seconds))));
      line(verification_line(run.verification));
      return;
    }
    double total = run.total_seconds.median();
    double kernel = run.kernel_seconds.median();
    line(fmt::format("OpenCL total: time = {} sec.", d2s(total, 3)));
    if (run.cpu_seconds)
      line(fmt::format("CPUTime / GPUTotalTime = {}", d2s(*run.cpu_seconds / total, 3)));
    for (const RandomCheck &check : run.checks)
      line(fmt::format("sum( {0},{1} ) = {2};    thirdCPU[ {0},{1} ] = {3};    buf[ {0},{1} ] = "
                       "{4}",
                       check.row, check.col, d2s(check.sum, 8),
                       check.cpu ? d2s(*check.cpu, 8) : std::string("n/a"), d2s(check.buf, 8)));
    line(fmt::format("device name = {}", run.device->name));
    // The steps beyond the article say what they built; the article's lines stay the article's.
    if (run.source.rfind("beyond the article", 0) == 0)
      line(fmt::format("kernel = kernels/{} {}; {}", run.kernel_file, run.build_options,
                       run.source));
    line(fmt::format("kernel time = {} sec. (profiling)", d2s(kernel, 6)));
    line(fmt::format("throughput = {} GFLOPS", rate(run.gflops(total))));
    line(fmt::format("kernel throughput = {} GFLOPS", rate(run.gflops(kernel))));
    if (run.repeat > 1)
      line(fmt::format("repeat = {}: OpenCL total min = {} median = {} sec.; kernel time min = {} "
                       "median = {} sec.",
                       run.repeat, d2s(run.total_seconds.min(), 6), d2s(total, 6),
                       d2s(run.kernel_seconds.min(), 6), d2s(kernel, 6)));
    line(verification_line(run.verification));
    if (run.cpu_verification && !run.cpu_verification->passed())
      line("CPU " + verification_line(*run.cpu_verification));
    if (!run.message.empty())
      line("note: " + run.message);
    line(kEnd);
  }

private:
  void line(const std::string &text) { progress_.print(out_, text); }

  std::FILE *out_;
  std::FILE *err_;
  bool article_;
  ProgressLine progress_; // on err_, on a terminal only
  std::string step_;
};

// A finite number, else null (JSON has no NaN or infinity).
Json number(double value) {
  return std::isfinite(value) ? Json(value) : Json();
}
Json number(const std::optional<double> &value) {
  return value ? number(*value) : Json();
}

Json samples_json(const Samples &samples) {
  if (samples.empty())
    return nullptr;
  Json all = Json::array();
  for (double value : samples.values)
    all.push_back(number(value));
  return {{"min", number(samples.min())},
          {"median", number(samples.median())},
          {"samples", std::move(all)}};
}

Json verification_json(const Verification &v) {
  if (!v.done)
    return nullptr;
  return {{"passed", v.passed()},
          {"checked", v.checked},
          {"mismatches", v.mismatches},
          {"tolerance", number(v.tolerance)},
          {"max_abs_error", number(v.max_error)},
          {"inputs_rounded", input_rounding_name(v.rounding)},
          {"max_abs_error_unrounded", number(v.user_error())},
          {"worst",
           {{"row", v.worst_row},
            {"col", v.worst_col},
            {"got", number(v.worst_got)},
            {"expected", number(v.worst_expected)}}}};
}

Json sizes_json(const Sizes &sizes) {
  return {{"rows1", sizes.rows1}, {"colsrows", sizes.colsrows}, {"cols2", sizes.cols2}};
}

Json device_json(const std::optional<DeviceInfo> &device) {
  if (!device)
    return nullptr;
  const DeviceInfo &d = *device;
  return {{"ordinal", d.ordinal},
          {"name", d.name},
          {"vendor", d.vendor},
          {"driver", d.driver},
          {"platform", d.platform},
          {"version", d.version},
          {"type", d.type},
          {"compute_units", d.caps.compute_units},
          {"max_clock_mhz", d.max_clock_mhz},
          {"global_mem_bytes", d.global_mem_bytes},
          {"local_mem_bytes", d.caps.local_mem_bytes},
          {"kernel_local_mem_bytes", d.caps.kernel_local_mem_bytes},
          {"max_work_group_size", d.caps.max_work_group_size},
          {"preferred_vector_width_float", d.caps.preferred_vector_width_float},
          {"fp64", d.caps.fp64}};
}

std::optional<double> median_of(const Samples &samples) {
  return samples.empty() ? std::nullopt : std::optional<double>(samples.median());
}
std::optional<double> min_of(const Samples &samples) {
  return samples.empty() ? std::nullopt : std::optional<double>(samples.min());
}

std::string csv_field(const std::string &text) {
  if (text.find_first_of(",\"\n") == std::string::npos)
    return text;
  std::string quoted = "\"";
  for (char c : text)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + '"';
}

std::string optional_number(const std::optional<double> &value) {
  return value ? fmt::format("{}", *value) : std::string();
}

} // namespace

std::unique_ptr<Observer> make_console_observer(std::FILE *out, std::FILE *err, bool article_lines,
                                                bool progress) {
  return std::make_unique<ConsoleObserver>(out, err, article_lines, progress);
}

namespace {

Json geometry_json(const StepRun &run, Json &local) {
  Json global = Json::array();
  local = Json::array();
  for (uint32_t d = 0; d < run.geometry.work_dim; ++d) {
    global.push_back(run.geometry.global[d]);
    local.push_back(run.geometry.local[d]);
  }
  if (run.geometry.runtime_chooses_local())
    local = nullptr;
  return global;
}

Json run_json(const StepRun &run) {
  Json json = {{"step", run.step},
               {"source", run.source},
               {"status", status_name(run.status)},
               {"message", run.message},
               {"mqlcl_version", run.bridge_version},
               {"device", device_json(run.device)},
               {"sizes", sizes_json(run.sizes)},
               {"padded_sizes", sizes_json(run.padded)},
               {"type", run.real_type},
               {"seed", run.seed},
               {"repeat", run.repeat},
               {"build_options", run.build_options},
               {"global", nullptr},
               {"local", nullptr},
               {"kernel", nullptr}};
  if (run.geometry.work_dim > 0) {
    json["global"] = geometry_json(run, json["local"]);
    json["kernel"] = {{"work_group_size", run.kernel_work_group_size},
                      {"private_bytes", run.kernel_private_bytes},
                      {"local_bytes", run.kernel_local_bytes}};
  }
  json["times"] = {{"cpu_s", number(run.cpu_seconds)},
                   {"total_s", samples_json(run.total_seconds)},
                   {"kernel_s", samples_json(run.kernel_seconds)}};
  json["gflops"] = {{"total", number(run.gflops(median_of(run.total_seconds)))},
                    {"kernel", number(run.gflops(median_of(run.kernel_seconds)))},
                    {"total_best", number(run.gflops(min_of(run.total_seconds)))},
                    {"kernel_best", number(run.gflops(min_of(run.kernel_seconds)))},
                    {"cpu", number(run.gflops(run.cpu_seconds))}};
  json["read_elements"] = run.elements_read;
  json["verification"] = verification_json(run.verification);
  json["cpu_verification"] =
      run.cpu_verification ? verification_json(*run.cpu_verification) : Json();
  json["random_checks"] = Json::array();
  for (const RandomCheck &check : run.checks)
    json["random_checks"].push_back({{"row", check.row},
                                     {"col", check.col},
                                     {"sum", number(check.sum)},
                                     {"cpu", number(check.cpu)},
                                     {"buf", number(check.buf)}});
  return json;
}

} // namespace

std::string to_json(const std::vector<StepRun> &runs, const Provenance &provenance) {
  Json json = {{"format", "mqlcl-replay/1"},
               {"generator", provenance.generator},
               {"library", provenance.library},
               {"kernels_dir", provenance.kernels},
               {"runs", Json::array()}};
  for (const StepRun &run : runs)
    json["runs"].push_back(run_json(run));
  return json_text(json, 2) + "\n";
}

std::string to_csv(const std::vector<StepRun> &runs) {
  std::string out = "step,status,device,rows1,colsrows,cols2,type,local,repeat,cpu_s,total_min_s,"
                    "total_median_s,kernel_min_s,kernel_median_s,gflops_total,gflops_kernel,"
                    "max_abs_error,mismatches,mqlcl_version\n";
  for (const StepRun &run : runs) {
    std::string local;
    if (run.geometry.work_dim > 0 && !run.geometry.runtime_chooses_local())
      for (uint32_t d = 0; d < run.geometry.work_dim; ++d)
        local += (d ? "x" : "") + std::to_string(run.geometry.local[d]);
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", run.step,
        status_name(run.status), csv_field(run.device ? run.device->name : std::string()),
        run.sizes.rows1, run.sizes.colsrows, run.sizes.cols2, run.real_type, local, run.repeat,
        optional_number(run.cpu_seconds), optional_number(min_of(run.total_seconds)),
        optional_number(median_of(run.total_seconds)), optional_number(min_of(run.kernel_seconds)),
        optional_number(median_of(run.kernel_seconds)),
        optional_number(run.gflops(median_of(run.total_seconds))),
        optional_number(run.gflops(median_of(run.kernel_seconds))),
        run.verification.done ? fmt::format("{}", run.verification.max_error) : std::string(),
        run.verification.done ? std::to_string(run.verification.mismatches) : std::string(),
        csv_field(run.bridge_version));
  }
  return out;
}

std::string summary_table(const std::vector<StepRun> &runs) {
  std::string out =
      fmt::format("{:<26} {:>11} {:>11} {:>9} {:>9} {:>11}  {}\n", "step", "total (s)",
                  "kernel (s)", "GFLOPS", "kGFLOPS", "CPUTime (s)", "result");
  auto cell = [](const std::optional<double> &value, int digits) {
    return value ? d2s(*value, digits) : std::string("-");
  };
  for (const StepRun &run : runs) {
    std::optional<double> total = median_of(run.total_seconds);
    std::optional<double> kernel = median_of(run.kernel_seconds);
    std::optional<double> gflops = run.host_only ? run.gflops(run.cpu_seconds) : run.gflops(total);
    out += fmt::format("{:<26} {:>11} {:>11} {:>9} {:>9} {:>11}  {}\n", run.step, cell(total, 6),
                       cell(kernel, 6), cell(gflops, 3), cell(run.gflops(kernel), 3),
                       cell(run.cpu_seconds, 3), status_name(run.status));
  }
  return out;
}

} // namespace mqlcl::replay
