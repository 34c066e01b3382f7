#include "report.hpp"

#include <fmt/format.h>

#include <chrono>
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
      : out_(out), err_(err), article_(article_lines), progress_(progress) {}

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
    if (!progress_)
      return;
    auto now = std::chrono::steady_clock::now();
    if (done < total && now - last_progress_ < std::chrono::milliseconds(250))
      return;
    last_progress_ = now;
    if (done < total)
      fmt::print(err_, "\r{}: CPU loop {:3d}%", step_, static_cast<int>(100.0 * done / total));
    else
      fmt::print(err_, "\r{:60}\r", "");
    std::fflush(err_);
  }

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
  void line(const std::string &text) {
    fmt::print(out_, "{}\n", text);
    std::fflush(out_);
  }

  std::FILE *out_;
  std::FILE *err_;
  bool article_;
  bool progress_;
  std::string step_;
  std::chrono::steady_clock::time_point last_progress_{};
};

// A minimal pretty-printing JSON writer: values are written in order, commas and indentation
// are its business.
class Json {
public:
  Json &open(const char *key, char bracket) {
    prefix(key);
    out_ += bracket;
    first_ = true;
    ++depth_;
    return *this;
  }
  Json &close(char bracket) {
    --depth_;
    if (!first_)
      newline();
    out_ += bracket;
    first_ = false;
    return *this;
  }
  Json &raw(const char *key, const std::string &value) {
    prefix(key);
    out_ += value;
    return *this;
  }
  Json &str(const char *key, const std::string &value) {
    return raw(key, '"' + json_escape(value) + '"');
  }
  Json &num(const char *key, double value) {
    return raw(key, std::isfinite(value) ? fmt::format("{}", value) : "null");
  }
  Json &num(const char *key, const std::optional<double> &value) {
    return value ? num(key, *value) : raw(key, "null");
  }
  Json &integer(const char *key, int64_t value) { return raw(key, std::to_string(value)); }
  Json &boolean(const char *key, bool value) { return raw(key, value ? "true" : "false"); }
  std::string text() const { return out_ + "\n"; }

private:
  void newline() { out_ += "\n" + std::string(2 * depth_, ' '); }
  void prefix(const char *key) {
    if (depth_ > 0) {
      if (!first_)
        out_ += ',';
      newline();
    }
    first_ = false;
    if (key != nullptr)
      out_ += '"' + json_escape(key) + "\": ";
  }
  std::string out_;
  bool first_ = true;
  int depth_ = 0;
};

void write_samples(Json &json, const char *key, const Samples &samples) {
  if (samples.empty()) {
    json.raw(key, "null");
    return;
  }
  json.open(key, '{').num("min", samples.min()).num("median", samples.median());
  json.open("samples", '[');
  for (double value : samples.values)
    json.num(nullptr, value);
  json.close(']').close('}');
}

void write_verification(Json &json, const char *key, const Verification &v) {
  if (!v.done) {
    json.raw(key, "null");
    return;
  }
  json.open(key, '{')
      .boolean("passed", v.passed())
      .integer("checked", static_cast<int64_t>(v.checked))
      .integer("mismatches", static_cast<int64_t>(v.mismatches))
      .num("tolerance", v.tolerance)
      .num("max_abs_error", v.max_error)
      .str("inputs_rounded", input_rounding_name(v.rounding))
      .num("max_abs_error_unrounded", v.user_error());
  json.open("worst", '{')
      .integer("row", v.worst_row)
      .integer("col", v.worst_col)
      .num("got", v.worst_got)
      .num("expected", v.worst_expected)
      .close('}');
  json.close('}');
}

void write_sizes(Json &json, const char *key, const Sizes &sizes) {
  json.open(key, '{')
      .integer("rows1", sizes.rows1)
      .integer("colsrows", sizes.colsrows)
      .integer("cols2", sizes.cols2)
      .close('}');
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

std::string json_escape(const std::string &text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20)
        out += fmt::format("\\u{:04x}", c);
      else
        out += static_cast<char>(c);
    }
  }
  return out;
}

std::string to_json(const std::vector<StepRun> &runs, const Provenance &provenance) {
  Json json;
  json.open(nullptr, '{')
      .str("format", "mqlcl-replay/1")
      .str("generator", provenance.generator)
      .str("library", provenance.library)
      .str("kernels_dir", provenance.kernels);
  json.open("runs", '[');
  for (const StepRun &run : runs) {
    json.open(nullptr, '{')
        .str("step", run.step)
        .str("source", run.source)
        .str("status", status_name(run.status))
        .str("message", run.message)
        .str("mqlcl_version", run.bridge_version);
    if (run.device) {
      const DeviceInfo &d = *run.device;
      json.open("device", '{')
          .integer("ordinal", d.ordinal)
          .str("name", d.name)
          .str("vendor", d.vendor)
          .str("driver", d.driver)
          .str("platform", d.platform)
          .str("version", d.version)
          .str("type", d.type)
          .integer("compute_units", d.caps.compute_units)
          .integer("max_clock_mhz", d.max_clock_mhz)
          .integer("global_mem_bytes", static_cast<int64_t>(d.global_mem_bytes))
          .integer("local_mem_bytes", static_cast<int64_t>(d.caps.local_mem_bytes))
          .integer("max_work_group_size", static_cast<int64_t>(d.caps.max_work_group_size))
          .integer("preferred_vector_width_float", d.caps.preferred_vector_width_float)
          .boolean("fp64", d.caps.fp64)
          .close('}');
    } else {
      json.raw("device", "null");
    }
    write_sizes(json, "sizes", run.sizes);
    write_sizes(json, "padded_sizes", run.padded);
    json.str("type", run.real_type)
        .integer("seed", static_cast<int64_t>(run.seed))
        .integer("repeat", run.repeat)
        .str("build_options", run.build_options);
    if (run.geometry.work_dim > 0) {
      json.open("global", '[');
      for (uint32_t d = 0; d < run.geometry.work_dim; ++d)
        json.integer(nullptr, run.geometry.global[d]);
      json.close(']');
      if (run.geometry.runtime_chooses_local()) {
        json.raw("local", "null");
      } else {
        json.open("local", '[');
        for (uint32_t d = 0; d < run.geometry.work_dim; ++d)
          json.integer(nullptr, run.geometry.local[d]);
        json.close(']');
      }
      json.open("kernel", '{')
          .integer("work_group_size", run.kernel_work_group_size)
          .integer("private_bytes", run.kernel_private_bytes)
          .integer("local_bytes", run.kernel_local_bytes)
          .close('}');
    } else {
      json.raw("global", "null").raw("local", "null").raw("kernel", "null");
    }
    json.open("times", '{').num("cpu_s", run.cpu_seconds);
    write_samples(json, "total_s", run.total_seconds);
    write_samples(json, "kernel_s", run.kernel_seconds);
    json.close('}');
    json.open("gflops", '{')
        .num("total", run.gflops(median_of(run.total_seconds)))
        .num("kernel", run.gflops(median_of(run.kernel_seconds)))
        .num("total_best", run.gflops(min_of(run.total_seconds)))
        .num("kernel_best", run.gflops(min_of(run.kernel_seconds)))
        .num("cpu", run.gflops(run.cpu_seconds))
        .close('}');
    json.integer("read_elements", run.elements_read);
    write_verification(json, "verification", run.verification);
    if (run.cpu_verification)
      write_verification(json, "cpu_verification", *run.cpu_verification);
    else
      json.raw("cpu_verification", "null");
    json.open("random_checks", '[');
    for (const RandomCheck &check : run.checks) {
      json.open(nullptr, '{')
          .integer("row", check.row)
          .integer("col", check.col)
          .num("sum", check.sum)
          .num("cpu", check.cpu)
          .num("buf", check.buf)
          .close('}');
    }
    json.close(']');
    json.close('}');
  }
  json.close(']').close('}');
  return json.text();
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
