#include "step.hpp"

#include <algorithm>

namespace mqlcl::replay {

const char *dim_name(Dim dim) {
  switch (dim) {
  case Dim::rows1:
    return "ROWS1";
  case Dim::colsrows:
    return "COLSROWS";
  case Dim::cols2:
    return "COLS2";
  }
  return "?";
}

uint32_t size_of(const Sizes &sizes, Dim dim) {
  switch (dim) {
  case Dim::rows1:
    return sizes.rows1;
  case Dim::colsrows:
    return sizes.colsrows;
  case Dim::cols2:
    return sizes.cols2;
  }
  return 0;
}

const char *input_rounding_name(InputRounding rounding) {
  switch (rounding) {
  case InputRounding::none:
    return "none";
  case InputRounding::nearest_away:
    return "to nearest, ties away from zero";
  case InputRounding::nearest:
    return "to nearest, ties either way";
  case InputRounding::truncated:
    return "toward zero";
  }
  return "?";
}

const char *layout_name(Layout layout) {
  return layout == Layout::row_major ? "row-major" : "column-major";
}

bool param_may_be_zero(std::string_view name) {
  for (std::string_view off :
       {"INFLIGHT", "ROUND", "PARTS", "FLUSH", "PAD", "FMA_ORDER", "POINTERS", "GATHER", "CARRY",
        "ROTATE_A", "ROTATE_B", "PAIRED_LANES", "LEAVE_OUT"})
    if (name == off)
      return true;
  return false;
}

Arithmetic arithmetic_of(const Step &step) {
  return step.arithmetic != nullptr ? step.arithmetic(step.params) : Arithmetic{};
}

std::vector<KernelArg> kernel_args(const Step &step) {
  if (!step.args.empty())
    return step.args;
  return {{KernelArg::Kind::matrix_a}, {KernelArg::Kind::matrix_b}, {KernelArg::Kind::matrix_c}};
}

Sizes padded_sizes(const Step &step, const Sizes &sizes) {
  return {round_up(sizes.rows1, step.padding.rows1),
          round_up(sizes.colsrows, step.padding.colsrows),
          round_up(sizes.cols2, step.padding.cols2)};
}

PassScratch pass_scratch(const Step &step, const Sizes &padded) {
  PassScratch scratch;
  if (!step.operand_pass)
    return scratch;
  const OperandPass &pass = *step.operand_pass;
  auto parts = step.params.find(pass.parts_param);
  if (parts == step.params.end() || parts->second <= 0)
    return scratch;
  scratch.parts = static_cast<uint32_t>(parts->second);
  scratch.groups = (uint64_t{padded.colsrows} + pass.group - 1) / pass.group;
  scratch.lines_a = pass.operand_a ? padded.rows1 : 0;
  scratch.lines_b = padded.cols2;
  if (pass.tiled()) {
    auto block = [&](const std::string &name) {
      return static_cast<uint32_t>(std::max<int64_t>(1, param_or(step.params, name.c_str(), 1)));
    };
    scratch.block_a = pass.operand_a ? block(pass.block_param_a) : 0;
    scratch.block_b = block(pass.block_param_b);
    scratch.lines_a = pass.operand_a ? round_up(padded.rows1, scratch.block_a) : 0;
    scratch.lines_b = round_up(padded.cols2, scratch.block_b);
  }
  const uint64_t multiple = std::max(pass.group, pass.slice);
  const uint64_t line = (padded.colsrows + multiple - 1) / multiple * multiple * scratch.parts;
  scratch.floats_a = scratch.lines_a * line;
  scratch.floats_b = scratch.lines_b * line;
  return scratch;
}

} // namespace mqlcl::replay
