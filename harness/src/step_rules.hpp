// The rules of the catalogue's steps: what their parameters must satisfy on a device (the tuner's
// Step::params_valid), what sizes and devices they can run on, and a step's parameter as its
// launch shapes read it.
#pragma once

#include "error.hpp"
#include "step.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace mqlcl::replay {

inline int64_t param(const GeometryInput &input, const char *name) {
  auto it = input.params.find(name);
  if (it == input.params.end())
    bad_input(fmt::format("the step needs the parameter {} (--param {}=VALUE)", name, name));
  return it->second;
}

// What the library's kernel forms' rules need of the device (bridge/src/gemm/forms.hpp).
gemm::DeviceLimits limits_of(const DeviceCaps &device);

// Whether `device` meets the step's requirement (tensor cores, wgmma).
bool device_meets(Requirement requirement, const DeviceCaps &device);

// Every reason `sizes` cannot run on `step`, independent of the device; empty when they can.
std::vector<std::string> size_problems(const Step &step, const Sizes &sizes, size_t element_size);

// The same for what depends on the device: double support, local memory, largest allocation,
// and on a CPU device the private arrays of a work-group (of --local work-items, or of the
// largest group the runtime may choose).
std::vector<std::string> device_problems(const Step &step, const Sizes &padded,
                                         const DeviceCaps &device, size_t element_size,
                                         bool double_precision,
                                         const std::vector<uint32_t> &requested_local = {});

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

// Step 18's: its form's rules, tiles read through maps (TMA 1 or 2). The form's TMA 0, tiles laid
// out by tile_lines where no map can be written, and B_MN 1, B stored K x N (the replay's B is
// K-contiguous), are CLGemm's (GEMM builds only; `tune --gemm` judges B_MN by the form's rules).
template <gemm::Family family> bool mapped_params_valid(const Params &p, const DeviceCaps &device) {
  const gemm::Form &form = gemm::form_of(family);
  return form_params_valid<family>(p, device) && gemm::value_of(form, p, "TMA") != 0 &&
         gemm::value_of(form, p, "B_MN") == 0;
}

} // namespace mqlcl::replay
