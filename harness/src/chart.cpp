#include "chart.hpp"

#include "error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace mqlcl::replay {

namespace {

std::string xml_escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string short_name(const std::string &step) {
  const std::string prefix = "matr_mul_";
  return step.rfind(prefix, 0) == 0 ? step.substr(prefix.size()) : step;
}

ChartSeries &series_named(std::vector<ChartSeries> &all, const std::string &label) {
  for (ChartSeries &series : all)
    if (series.label == label)
      return series;
  all.push_back(ChartSeries{label, {}});
  return all.back();
}

// A log10 axis over [lo, hi], widened to whole decades.
struct LogAxis {
  int low_decade = 0, high_decade = 1;
  double top = 0, height = 1;
  LogAxis(double lo, double hi, double top_, double height_) : top(top_), height(height_) {
    low_decade = static_cast<int>(std::floor(std::log10(lo)));
    high_decade = static_cast<int>(std::ceil(std::log10(hi)));
    if (high_decade <= low_decade)
      high_decade = low_decade + 1;
  }
  double y(double value) const {
    double t = (std::log10(value) - low_decade) / (high_decade - low_decade);
    return top + height * (1 - t);
  }
};

// A black cross over a point whose product was wrong (with its tooltip when `label` is given).
std::string wrong_mark(double x, double y, const std::string &label, const std::string &step) {
  std::string title = label.empty() ? ""
                                    : fmt::format("<title>{}: {}: wrong product</title>",
                                                  xml_escape(label), xml_escape(step));
  return fmt::format("<path class=\"wrong\" d=\"M{0:.1f},{1:.1f} L{2:.1f},{3:.1f} M{0:.1f},{3:.1f} "
                     "L{2:.1f},{1:.1f}\" stroke=\"black\" stroke-width=\"2\">{4}</path>\n",
                     x - 6, y - 6, x + 6, y + 6, title);
}

const char *kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                          "#9467bd", "#8c564b", "#e377c2", "#17becf"};

} // namespace

std::vector<ChartSeries> series_from_runs(const std::vector<StepRun> &runs) {
  std::vector<ChartSeries> all;
  for (const StepRun &run : runs) {
    if (!run.device || run.total_seconds.empty())
      continue;
    ChartPoint point;
    point.total_s = run.total_seconds.min();
    point.kernel_s = run.kernel_seconds.min();
    point.flops = run.flops();
    point.wrong = run.status == Status::wrong;
    series_named(all, run.device->name + " (" + run.real_type + ")").points[run.step] = point;
  }
  return all;
}

std::vector<ChartSeries> load_results(const std::filesystem::path &file) {
  Json root = read_json_file(file, "results file");
  std::vector<ChartSeries> all;
  std::string file_label = json_string(root, "label");
  const Json *runs = json_at(root, "runs");
  if (runs == nullptr || !runs->is_array())
    bad_input(fmt::format("{} has no \"runs\" array: it was not written by mqlcl-replay "
                          "--format json",
                          file.string()));
  for (const Json &run : *runs) {
    std::string step = json_string(run, "step");
    std::optional<double> total = json_number(run, "times.total_s.min");
    if (step.empty() || !total)
      continue;
    ChartPoint point;
    point.total_s = *total;
    point.kernel_s = json_number(run, "times.kernel_s.min");
    point.flops = 2.0 * json_number(run, "sizes.rows1").value_or(0) *
                  json_number(run, "sizes.cols2").value_or(0) *
                  json_number(run, "sizes.colsrows").value_or(0);
    point.wrong = json_string(run, "status") == "wrong";
    std::string label = file_label;
    if (label.empty())
      label = json_string(run, "device.name", "unknown device") + " (" +
              json_string(run, "type", "float") + ")";
    series_named(all, label).points[step] = point;
  }
  if (all.empty())
    bad_input(fmt::format("{} holds no timed runs to draw", file.string()));
  return all;
}

std::vector<ChartSeries> merge_series(std::vector<ChartSeries> series) {
  std::vector<ChartSeries> merged;
  auto smaller = [](std::optional<double> &kept, const std::optional<double> &other) {
    if (other && (!kept || *other < *kept))
      kept = other;
  };
  for (ChartSeries &one : series) {
    ChartSeries &into = series_named(merged, one.label);
    for (const auto &[step, point] : one.points) {
      auto found = into.points.find(step);
      if (found == into.points.end()) {
        into.points[step] = point;
        continue;
      }
      smaller(found->second.total_s, point.total_s);
      smaller(found->second.kernel_s, point.kernel_s);
      found->second.wrong = found->second.wrong || point.wrong; // one wrong run marks the step
    }
  }
  return merged;
}

namespace {

// The steps as chart_svg draws them, one column each: those in `order` first, connected by lines;
// the others (variants such as matr_mul_col_local_fixed) after them, unconnected.
struct DrawnSteps {
  std::vector<std::string> names;
  size_t connected = 0; // names[0, connected) are in `order`
};

DrawnSteps drawn_steps(const std::vector<ChartSeries> &series,
                       const std::vector<std::string> &order) {
  DrawnSteps steps;
  auto drawn = [&](const std::string &name) {
    return std::find(steps.names.begin(), steps.names.end(), name) != steps.names.end();
  };
  for (const std::string &name : order)
    for (const ChartSeries &s : series)
      if (s.points.count(name) && !drawn(name))
        steps.names.push_back(name);
  steps.connected = steps.names.size();
  for (const ChartSeries &s : series)
    for (const auto &[name, point] : s.points)
      if (!drawn(name))
        steps.names.push_back(name);
  return steps;
}

// The smallest and largest positive finite values seen.
struct Range {
  double lo = 1e300, hi = 0;
  void extend(double value) {
    if (value > 0 && std::isfinite(value)) {
      lo = std::min(lo, value);
      hi = std::max(hi, value);
    }
  }
};

double gflops_of(const ChartPoint &point, double seconds) {
  return point.flops / seconds / 1e9;
}

// Where chart_svg draws: a time panel above a GFLOPS panel, both log scales over everything drawn,
// and one column per step.
struct ChartLayout {
  static constexpr double width = 1100, left = 80, right = 330, top = 60, gap = 70, panel = 240;
  static constexpr double bottom = 120, plot_w = width - left - right;
  static constexpr double height = top + panel + gap + panel + bottom;
  LogAxis time_axis, rate_axis;
  double columns;
  double x_of(size_t i) const { return left + (static_cast<double>(i) + 0.5) * plot_w / columns; }
};

ChartLayout chart_layout(const std::vector<ChartSeries> &series, size_t steps) {
  Range time, rate;
  for (const ChartSeries &s : series)
    for (const auto &[name, p] : s.points)
      for (const std::optional<double> &t : {p.total_s, p.kernel_s})
        if (t && *t > 0) {
          time.extend(*t);
          rate.extend(gflops_of(p, *t));
        }
  if (time.hi == 0) { // nothing timed: a decade each, to draw the empty panels
    time.lo = rate.lo = 0.1;
    time.hi = rate.hi = 1;
  }
  using L = ChartLayout;
  return {LogAxis(time.lo, time.hi, L::top, L::panel),
          LogAxis(rate.lo, rate.hi, L::top + L::panel + L::gap, L::panel),
          std::max<double>(1, static_cast<double>(steps))};
}

std::string chart_header(const ChartLayout &layout) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"28\" font-size=\"16\" font-weight=\"bold\">Matrix multiplication, "
      "step by step (mql5.com/en/articles/407, replayed by mqlcl-replay)</text>\n",
      layout.width, layout.height, layout.left);
}

// A panel's title, its frame and a grid line with its label at every decade.
std::string panel_frame(const ChartLayout &layout, const LogAxis &axis, const std::string &title) {
  const double left = layout.left, plot_w = layout.plot_w;
  std::string svg = fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n", left,
                                axis.top - 8, xml_escape(title));
  for (int decade = axis.low_decade; decade <= axis.high_decade; ++decade) {
    double y = axis.y(std::pow(10.0, decade));
    svg += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ccc\"/>\n",
                       left, y, left + plot_w, y);
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", left - 6,
                       y + 4, std::pow(10.0, decade));
  }
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
                     "stroke=\"#444\"/>\n",
                     left, axis.top, plot_w, axis.height);
  return svg;
}

// The steps' names, slanted, under the lower panel.
std::string step_labels(const ChartLayout &layout, const DrawnSteps &steps) {
  std::string svg;
  for (size_t i = 0; i < steps.names.size(); ++i) {
    double x = layout.x_of(i), y = layout.rate_axis.top + layout.rate_axis.height + 14;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" "
                       "transform=\"rotate(-35 {:.1f} {:.1f})\">{}</text>\n",
                       x, y, x, y, xml_escape(short_name(steps.names[i])));
  }
  return svg;
}

const char *colour_of(size_t series_index) {
  return kColours[series_index % (sizeof(kColours) / sizeof(kColours[0]))];
}

// What one line of the chart shows: a series' total or kernel time, in seconds or GFLOPS.
struct LineStyle {
  const char *colour;
  bool kernel_only, rate;
};

// A point of a line, with its value in the tooltip: filled for the total, hollow for the kernel.
std::string point_marker(double x, double y, LineStyle line, const std::string &label,
                         const std::string &step, double value) {
  return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\" "
                     "stroke=\"{}\" stroke-width=\"1.5\"><title>{}: {} = {:.4g} {}</title>"
                     "</circle>\n",
                     x, y, line.kernel_only ? "white" : line.colour, line.colour, xml_escape(label),
                     xml_escape(step), value,
                     line.rate          ? "GFLOPS"
                     : line.kernel_only ? "s (kernel)"
                                        : "s (total)");
}

// One line of a series in one panel: solid for the OpenCL total, dashed for the kernel alone. A
// step missing from the series breaks the line, and steps outside `order` are markers only.
std::string series_line(const ChartLayout &layout, const DrawnSteps &steps,
                        const ChartSeries &series, LineStyle line) {
  const LogAxis &axis = line.rate ? layout.rate_axis : layout.time_axis;
  const std::string dash = line.kernel_only ? " stroke-dasharray=\"6 4\"" : "";
  std::string svg, points;
  auto flush = [&] {
    if (points.find(' ') != std::string::npos)
      svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} "
                         "points=\"{}\"/>\n",
                         line.colour, dash, points);
    points.clear();
  };
  for (size_t i = 0; i < steps.names.size(); ++i) {
    if (i == steps.connected)
      flush();
    auto found = series.points.find(steps.names[i]);
    std::optional<double> t;
    if (found != series.points.end())
      t = line.kernel_only ? found->second.kernel_s : found->second.total_s;
    if (!t || *t <= 0) {
      flush();
      continue;
    }
    double value = line.rate ? gflops_of(found->second, *t) : *t;
    double x = layout.x_of(i), y = axis.y(value);
    if (i < steps.connected)
      points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x, y);
    svg += point_marker(x, y, line, series.label, short_name(steps.names[i]), value);
    if (found->second.wrong && !line.kernel_only)
      svg += wrong_mark(x, y, series.label, short_name(steps.names[i]));
  }
  flush();
  return svg;
}

bool any_wrong(const std::vector<ChartSeries> &series) {
  for (const ChartSeries &s : series)
    for (const auto &[name, point] : s.points)
      if (point.wrong)
        return true;
  return false;
}

// Right of the panels: devices by colour, then the two line styles and the wrong-product mark.
std::string legend(const ChartLayout &layout, const std::vector<ChartSeries> &series) {
  std::string svg;
  double lx = layout.left + layout.plot_w + 20, ly = layout.top + 10;
  for (size_t s = 0; s < series.size(); ++s, ly += 20)
    svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" "
                       "stroke-width=\"3\"/>\n<text x=\"{4}\" y=\"{5}\">{6}</text>\n",
                       lx, ly, lx + 24, colour_of(s), lx + 30, ly + 4, xml_escape(series[s].label));
  ly += 16;
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#444\" "
                     "stroke-width=\"2\"/>\n<text x=\"{3}\" y=\"{4}\">OpenCL total (execute + "
                     "read)</text>\n",
                     lx, ly, lx + 24, lx + 30, ly + 4);
  ly += 20;
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#444\" "
                     "stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n<text x=\"{3}\" "
                     "y=\"{4}\">kernel only (profiling)</text>\n",
                     lx, ly, lx + 24, lx + 30, ly + 4);
  if (any_wrong(series)) {
    ly += 20;
    svg += wrong_mark(lx + 12, ly, "", "");
    svg += fmt::format("<text x=\"{}\" y=\"{}\">wrong product (failed verification)</text>\n",
                       lx + 30, ly + 4);
  }
  return svg;
}

} // namespace

std::string chart_svg(const std::vector<ChartSeries> &series,
                      const std::vector<std::string> &order) {
  const DrawnSteps steps = drawn_steps(series, order);
  const ChartLayout layout = chart_layout(series, steps.names.size());
  std::string svg = chart_header(layout);
  svg += panel_frame(layout, layout.time_axis, "OpenCL time per step, seconds (log scale)");
  svg += panel_frame(layout, layout.rate_axis,
                     "GFLOPS = 2 * ROWS1 * COLS2 * COLSROWS / time (log scale)");
  svg += step_labels(layout, steps);
  for (size_t s = 0; s < series.size(); ++s)
    for (bool kernel_only : {false, true})
      for (bool rate : {false, true})
        svg += series_line(layout, steps, series[s], LineStyle{colour_of(s), kernel_only, rate});
  svg += legend(layout, series);
  svg += "</svg>\n";
  return svg;
}

void write_chart(const std::filesystem::path &file, const std::vector<ChartSeries> &series,
                 const std::vector<std::string> &order) {
  std::ofstream out(file, std::ios::binary);
  if (!out)
    bad_input(fmt::format("cannot write the chart to {}", file.string()));
  out << chart_svg(series, order);
  if (!out)
    bad_input(fmt::format("writing the chart to {} failed", file.string()));
}

namespace {

std::string gflops_text(double gflops) {
  std::string digits = fmt::format("{:.0f}", gflops);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
    digits.insert(static_cast<size_t>(at), " "); // thin grouping, as the docs write figures
  return digits;
}

void write_text(const std::filesystem::path &file, const std::string &text) {
  std::ofstream out(file, std::ios::binary);
  if (!out)
    bad_input(fmt::format("cannot write the chart to {}", file.string()));
  out << text;
  if (!out)
    bad_input(fmt::format("writing the chart to {} failed", file.string()));
}

struct BenchBar {
  std::string name, kind;
  double gflops = 0;
  bool verified = false;
};

// One size of the benchmark: a title and a bar per step or library measured.
struct BenchPanel {
  std::string title;
  std::vector<BenchBar> bars;
};

std::vector<BenchPanel> bench_panels(const Json &bench) {
  std::vector<BenchPanel> panels;
  if (const Json *sizes = json_at(bench, "sizes"); sizes != nullptr && sizes->is_array())
    for (const Json &size : *sizes) {
      BenchPanel panel{fmt::format("N = {}", json_string(size, "n", "?")), {}};
      if (const Json *results = json_at(size, "results"); results != nullptr && results->is_array())
        for (const Json &row : *results) {
          std::optional<double> gflops = json_number(row, "gflops");
          if (!gflops || *gflops <= 0)
            continue; // unavailable here: the text output says why
          panel.bars.push_back({json_string(row, "name", "?"), json_string(row, "kind"), *gflops,
                                json_bool(row, "verified").value_or(false)});
        }
      if (!panel.bars.empty())
        panels.push_back(std::move(panel));
    }
  if (panels.empty())
    bad_input("the benchmark results hold no measured size to draw");
  return panels;
}

// The device's limits, by name, in GFLOPS.
using BenchLimits = std::vector<std::pair<std::string, double>>;

BenchLimits bench_limits(const Json &bench) {
  BenchLimits limits;
  if (const Json *nodes = json_at(bench, "limits"); nodes != nullptr && nodes->is_array())
    for (const Json &node : *nodes)
      if (std::optional<double> gflops = json_number(node, "gflops"); gflops && *gflops > 0)
        limits.emplace_back(json_string(node, "name", "limit"), *gflops);
  return limits;
}

// Where bench_chart_svg draws: the bars' names, then bars on a log scale of GFLOPS in decades
// from below the slowest bar to above the fastest bar or limit; the limits' legend below.
struct BenchLayout {
  static constexpr double label_w = 250, bar_x = 260, bar_w = 560, row_h = 18, panel_gap = 34;
  static constexpr double top = 86, width = bar_x + bar_w + 90;
  int first_decade = 0, last_decade = 1;
  double bottom = 0, height = 0;
  double x_of(double gflops) const {
    return bar_x + bar_w * (std::log10(gflops) - first_decade) / (last_decade - first_decade);
  }
};

BenchLayout bench_layout(const std::vector<BenchPanel> &panels, const BenchLimits &limits) {
  double low = 1e300, high = 0, rows = 0;
  for (const BenchPanel &panel : panels) {
    rows += static_cast<double>(panel.bars.size());
    for (const BenchBar &bar : panel.bars) {
      low = std::min(low, bar.gflops);
      high = std::max(high, bar.gflops);
    }
  }
  for (const auto &[name, gflops] : limits)
    high = std::max(high, gflops);
  BenchLayout layout;
  layout.first_decade = static_cast<int>(std::floor(std::log10(low)));
  layout.last_decade = static_cast<int>(std::ceil(std::log10(high)));
  const double panel_count = static_cast<double>(panels.size());
  layout.bottom = layout.top + rows * layout.row_h + panel_count * layout.panel_gap;
  layout.height = layout.bottom + 40 + 20 * static_cast<double>(limits.size());
  return layout;
}

// The frame, the title, the device and the key to the colours.
std::string bench_header(const BenchLayout &layout, const Json &bench) {
  std::string svg =
      fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
                  "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"sans-serif\" font-size=\"12\">\n"
                  "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
                  layout.width, layout.height);
  svg += "<text x=\"10\" y=\"22\" font-size=\"15\">mqlcl-replay bench: GFLOPS from the kernel "
         "time, log scale</text>\n";
  svg += fmt::format("<text x=\"10\" y=\"40\">{} ({}, driver {})</text>\n",
                     xml_escape(json_string(bench, "device.name", "?")),
                     xml_escape(json_string(bench, "device.platform", "?")),
                     xml_escape(json_string(bench, "device.driver", "?")));
  svg += "<text x=\"10\" y=\"58\">blue: our steps, through the bridge; purple: the library's "
         "CLGemm; grey: other libraries; red: "
         "failed verification; dashed: the device's limits (our kernels)</text>\n";
  return svg;
}

// A grid line with its label at every decade of GFLOPS.
std::string bench_grid(const BenchLayout &layout) {
  std::string svg;
  for (int decade = layout.first_decade; decade <= layout.last_decade; ++decade) {
    double x = layout.x_of(std::pow(10.0, decade));
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.0f}\" x2=\"{0:.1f}\" y2=\"{2:.0f}\" "
                       "stroke=\"#ddd\"/>\n<text x=\"{0:.1f}\" y=\"{3:.0f}\" "
                       "text-anchor=\"middle\">{4}</text>\n",
                       x, layout.top - 10, layout.bottom, layout.bottom + 16,
                       gflops_text(std::pow(10.0, decade)));
  }
  return svg;
}

// A bar at `y`: blue for our steps, purple for the library's CLGemm, grey for the anchors'
// libraries, red for a wrong product.
std::string bench_bar(const BenchLayout &layout, const BenchBar &bar, double y) {
  const char *colour = !bar.verified           ? "#d62728"
                       : bar.kind == "step"    ? "#1f77b4"
                       : bar.kind == "library" ? "#9467bd"
                                               : "#8c8c8c";
  std::string svg = fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"end\">{}</text>\n",
                                layout.label_w, y + 12, xml_escape(bar.name));
  double x = layout.x_of(bar.gflops);
  svg += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"{:.0f}\" "
                     "fill=\"{}\"><title>{}: {} GFLOPS</title></rect>\n",
                     layout.bar_x, y + 2, std::max(1.0, x - layout.bar_x), layout.row_h - 4, colour,
                     xml_escape(bar.name), gflops_text(bar.gflops));
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\">{}{}</text>\n", x + 4, y + 12,
                     gflops_text(bar.gflops), bar.verified ? "" : " (wrong)");
  return svg;
}

// The panels, one under another, each its title over its bars.
std::string bench_bars(const BenchLayout &layout, const std::vector<BenchPanel> &panels) {
  std::string svg;
  double y = layout.top;
  for (const BenchPanel &panel : panels) {
    svg += fmt::format("<text x=\"10\" y=\"{:.0f}\" font-weight=\"bold\">{}</text>\n", y + 12,
                       xml_escape(panel.title));
    y += 20;
    for (const BenchBar &bar : panel.bars) {
      svg += bench_bar(layout, bar, y);
      y += layout.row_h;
    }
    y += layout.panel_gap - 20;
  }
  return svg;
}

// A dashed line across the panels at each limit, named in a legend below them.
std::string bench_limit_lines(const BenchLayout &layout, const BenchLimits &limits) {
  std::string svg;
  double legend_y = layout.bottom + 36;
  for (const auto &[name, gflops] : limits) {
    double x = layout.x_of(gflops);
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.0f}\" x2=\"{0:.1f}\" y2=\"{2:.0f}\" "
                       "stroke=\"#2ca02c\" stroke-dasharray=\"5 4\"/>\n",
                       x, layout.top - 10, layout.bottom);
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\">dashed: {}, {} GFLOPS</text>\n",
                       layout.bar_x, legend_y, xml_escape(name), gflops_text(gflops));
    legend_y += 20;
  }
  return svg;
}

} // namespace

bool is_bench_results(const std::filesystem::path &file) {
  Json root = read_json_file(file, "results file");
  return json_at(root, "sizes") != nullptr && json_at(root, "limits") != nullptr;
}

std::string bench_chart_svg(const Json &bench) {
  const std::vector<BenchPanel> panels = bench_panels(bench);
  const BenchLimits limits = bench_limits(bench);
  const BenchLayout layout = bench_layout(panels, limits);
  std::string svg = bench_header(layout, bench);
  svg += bench_grid(layout);
  svg += bench_bars(layout, panels);
  svg += bench_limit_lines(layout, limits);
  svg += "</svg>\n";
  return svg;
}

void write_bench_chart(const std::filesystem::path &chart, const Json &bench) {
  write_text(chart, bench_chart_svg(bench));
}

void write_bench_chart(const std::filesystem::path &chart, const std::filesystem::path &results) {
  write_bench_chart(chart, read_json_file(results, "results file"));
}

} // namespace mqlcl::replay
