// How far long work has got, as one line on a terminal that rewrites itself ("\r"); nothing at
// all when the stream is not a terminal or the output is JSON, so that logs and pipes stay clean.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace mqlcl::replay {

class ProgressLine {
public:
  // Shown on `stream` when it is a terminal and `quiet` is false (--format json).
  ProgressLine(std::FILE *stream, bool quiet);
  ~ProgressLine();
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  // Replaces the line with `text`, at most four times a second unless `now` (a new phase).
  void show(const std::string &text, bool now = true);
  // Takes the line away, leaving the terminal as it was.
  void clear();
  // `text` as a line of its own on `stream`, a terminal or not (what must stay in a log), after
  // taking the progress line away: the two may share a terminal. The next show() draws it again.
  void print(std::FILE *stream, const std::string &text);

private:
  std::FILE *stream_;
  bool enabled_;
  size_t width_ = 0; // of the line on screen
  std::chrono::steady_clock::time_point last_{};
};

} // namespace mqlcl::replay
