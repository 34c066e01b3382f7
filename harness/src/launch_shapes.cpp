// The launch shapes of the catalogue's steps: how each kernel is launched over the product, and
// how each says so (--list).
#include "error.hpp"
#include "step_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace mqlcl::replay {

namespace {

// --local for a launch of `dims` dimensions over `global`: checked, or all zero when not given.
std::array<uint32_t, 3> requested_local(const GeometryInput &input, uint32_t dims,
                                        const std::array<uint32_t, 3> &global, const char *range) {
  std::array<uint32_t, 3> local{0, 0, 0};
  const std::vector<uint32_t> &wanted = input.requested_local;
  if (wanted.empty())
    return local;
  if (wanted.size() != dims)
    bad_input(fmt::format("it is launched over a {}-D range ({}), so --local takes {} value{}",
                          dims, range, dims, dims == 1 ? "" : "s (--local X,Y)"));
  uint64_t group = 1;
  for (uint32_t d = 0; d < dims; ++d) {
    if (wanted[d] == 0 || global[d] % wanted[d] != 0)
      bad_input(fmt::format("--local {} does not divide the global size {} of dimension {} ({}); "
                            "OpenCL 1.2 needs every local size to divide its global size",
                            wanted[d], global[d], d, range));
    if (wanted[d] > input.device.max_work_item_sizes[d])
      bad_input(fmt::format("--local {} exceeds the device's {} work-items in dimension {}",
                            wanted[d], input.device.max_work_item_sizes[d], d));
    local[d] = wanted[d];
    group *= wanted[d];
  }
  if (group > input.device.max_work_group_size)
    bad_input(fmt::format("a work-group of {} work-items exceeds the device's maximum of {}", group,
                          input.device.max_work_group_size));
  return local;
}

// The steps beyond the article own their work-group shape; --local cannot change it.
void refuse_local(const GeometryInput &input) {
  if (!input.requested_local.empty())
    bad_input("this step's work-group shape follows from its tile parameters: change them with "
              "--param (mqlcl-replay --list shows them) instead of --local");
}

LaunchGeometry launch_one_per_element(const GeometryInput &input) {
  LaunchGeometry geometry;
  geometry.work_dim = 2;
  geometry.global = {input.sizes.rows1, input.sizes.cols2, 1};
  geometry.local = requested_local(input, 2, geometry.global, "ROWS1 x COLS2");
  return geometry;
}

LaunchGeometry launch_one_per_row(const GeometryInput &input) {
  LaunchGeometry geometry;
  geometry.work_dim = 1;
  geometry.global = {input.sizes.rows1, 1, 1};
  geometry.local = requested_local(input, 1, geometry.global, "ROWS1");
  return geometry;
}

LaunchGeometry launch_blocks_2d(const GeometryInput &input) {
  refuse_local(input);
  uint32_t blk = static_cast<uint32_t>(param(input, "BLK"));
  LaunchGeometry geometry;
  geometry.work_dim = 2;
  geometry.global = {round_up(input.sizes.cols2, blk), round_up(input.sizes.rows1, blk), 1};
  geometry.local = {blk, blk, 1};
  return geometry;
}

// One work-group of `threads` work-items per BM x BN tile of C, the tiles one after another.
LaunchGeometry one_group_per_tile(const GeometryInput &input, uint32_t threads) {
  refuse_local(input);
  const uint32_t bm = static_cast<uint32_t>(param(input, "BM")),
                 bn = static_cast<uint32_t>(param(input, "BN"));
  LaunchGeometry geometry;
  geometry.work_dim = 1;
  geometry.global = {ceil_div(input.sizes.rows1, bm) * ceil_div(input.sizes.cols2, bn) * threads, 1,
                     1};
  geometry.local = {threads, 1, 1};
  return geometry;
}

// The tile's work-items: one per TM x TN block of it, one warp per WM x WN block of it, or a
// warpgroup of 128 per 64 rows.
LaunchGeometry launch_tiles_1d(const GeometryInput &input) {
  return one_group_per_tile(input, static_cast<uint32_t>(param(input, "BM") / param(input, "TM") *
                                                         param(input, "BN") / param(input, "TN")));
}

LaunchGeometry launch_warp_tiles_1d(const GeometryInput &input) {
  return one_group_per_tile(input,
                            static_cast<uint32_t>(param(input, "BM") / param(input, "WM") *
                                                  param(input, "BN") / param(input, "WN") * 32));
}

LaunchGeometry launch_warpgroup_tiles_1d(const GeometryInput &input) {
  return one_group_per_tile(input, static_cast<uint32_t>(param(input, "BM") * 2));
}

LaunchGeometry launch_register_blocks_2d(const GeometryInput &input) {
  refuse_local(input);
  uint32_t lx = static_cast<uint32_t>(param(input, "LX")),
           ly = static_cast<uint32_t>(param(input, "LY"));
  LaunchGeometry geometry;
  geometry.work_dim = 2;
  geometry.global = {
      round_up(ceil_div(input.sizes.cols2, static_cast<uint32_t>(param(input, "RN"))), lx),
      round_up(ceil_div(input.sizes.rows1, static_cast<uint32_t>(param(input, "RM"))), ly), 1};
  geometry.local = {lx, ly, 1};
  return geometry;
}

} // namespace

uint64_t cpu_runtime_group_size(uint32_t global, const DeviceCaps &device) {
  uint64_t limit =
      std::min<uint64_t>({global, device.max_work_group_size, device.max_work_item_sizes[0]});
  uint64_t local = std::max<uint64_t>(limit, 1);
  while (global % local != 0)
    --local;
  uint64_t groups = global / local;
  for (uint64_t splits = device.compute_units / groups; splits > 1; --splits)
    if (local % splits == 0) {
      local /= splits;
      break;
    }
  return local;
}

const LaunchShape one_per_element{"2-D, ROWS1 x COLS2 work-items", launch_one_per_element};
const LaunchShape one_per_row{"1-D, ROWS1 work-items", launch_one_per_row};
const LaunchShape blocks_2d{"2-D, BLK x BLK work-groups over ROWS1 x COLS2", launch_blocks_2d};
const LaunchShape tiles_1d{"1-D, one work-group of (BM/TM)*(BN/TN) work-items per BM x BN tile",
                           launch_tiles_1d};
const LaunchShape warp_tiles_1d{"1-D, one work-group of (BM/WM)*(BN/WN) warps per BM x BN tile",
                                launch_warp_tiles_1d};
const LaunchShape warpgroup_tiles_1d{
    "1-D, one work-group of BM/64 warpgroups (BM*2 work-items) per BM x BN tile",
    launch_warpgroup_tiles_1d};
const LaunchShape register_blocks_2d{"2-D, one work-item per RM x RN block, LX x LY work-groups",
                                     launch_register_blocks_2d};

} // namespace mqlcl::replay
