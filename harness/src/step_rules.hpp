// The rules of the catalogue's steps: what their parameters must satisfy on a device (the tuner's
// Step::params_valid), and the small parameter arithmetic that the step table, the launch shapes
// and the rules share. Internal to the catalogue (catalogue.cpp, launch_shapes.cpp,
// step_rules.cpp); catalogue.hpp is the harness's view of all three.
#pragma once

#include "catalogue.hpp"
#include "error.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace mqlcl::replay {

inline uint32_t round_up(uint32_t value, uint32_t multiple) {
  return multiple <= 1 ? value : (value + multiple - 1) / multiple * multiple;
}

inline int64_t param(const GeometryInput &input, const char *name) {
  auto it = input.params.find(name);
  if (it == input.params.end())
    bad_input(fmt::format("the step needs the parameter {} (--param {}=VALUE)", name, name));
  return it->second;
}

inline int64_t param_or(const Params &params, const char *name, int64_t fallback) {
  auto it = params.find(name);
  return it == params.end() ? fallback : it->second;
}

inline uint32_t ceil_div(uint32_t value, uint32_t divisor) {
  return (value + divisor - 1) / divisor;
}

// Whether a set of parameters can build and run on `device`, by kernel family.
bool single_buffered_valid(const Params &p, const DeviceCaps &device);
bool warp_tiles_valid(const Params &p, const DeviceCaps &device);
bool warpgroup_tiles_valid(const Params &p, const DeviceCaps &device);
bool tiled_tiles_valid(const Params &p, const DeviceCaps &device);

// The library's kernel forms (bridge/src/gemm/forms.hpp) judge their own parameters, as for a
// float product: steps 13, 14 and 18 run them.
template <gemm::Family family> bool form_params_valid(const Params &p, const DeviceCaps &device) {
  return gemm::form_of(family).valid(p, limits_of(device), sizeof(float));
}

} // namespace mqlcl::replay
