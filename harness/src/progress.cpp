#include "progress.hpp"

#include "platform.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace mqlcl::replay {

ProgressLine::ProgressLine(std::FILE *stream, bool quiet)
    : stream_(stream), enabled_(!quiet && is_terminal(stream)) {}

ProgressLine::~ProgressLine() {
  clear();
}

void ProgressLine::show(const std::string &text, bool now) {
  if (!enabled_)
    return;
  auto at = std::chrono::steady_clock::now();
  if (!now && at - last_ < std::chrono::milliseconds(250))
    return;
  last_ = at;
  // Padded to the previous line's width, so that a shorter line leaves nothing of it behind.
  fmt::print(stream_, "\r{:<{}}", text, width_);
  width_ = std::max(width_, text.size());
  std::fflush(stream_);
}

void ProgressLine::print(std::FILE *stream, const std::string &text) {
  clear();
  fmt::print(stream, "{}\n", text);
  std::fflush(stream);
}

void ProgressLine::clear() {
  if (!enabled_ || width_ == 0)
    return;
  fmt::print(stream_, "\r{:<{}}\r", "", width_);
  std::fflush(stream_);
  width_ = 0;
}

} // namespace mqlcl::replay
