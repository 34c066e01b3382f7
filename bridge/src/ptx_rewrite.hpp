// The text side of the -mqlcl-nv-sm90a build option (docs/api.md): NVIDIA's OpenCL compiles for
// `.target sm_90` on an H100/H200, whose assembler refuses Hopper-only instructions such as
// wgmma.mma_async (they need sm_90a). Kernels write those inside inline asm behind the marker
// "//@sm_90a ", a PTX comment in the driver's own build; the bridge then retargets the driver's
// PTX to sm_90a, drops the markers and builds the result as a program binary (api_program.cpp).
// Pure functions over text, so every input, garbage included, can be tested without a device.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mqlcl {

inline constexpr std::string_view kSm90aOption = "-mqlcl-nv-sm90a";
inline constexpr std::string_view kSm90aMarker = "//@sm_90a ";

// Removes every whole-word `option` (outside double quotes) from `options` with the blanks after
// it; says whether there was one. The rest of `options` is left as it was.
bool take_build_option(std::string &options, std::string_view option);

struct PtxRewrite {
  std::string ptx;                  // the rewritten text, when there is no error
  std::optional<std::string> error; // why the binary is not PTX for sm_90 ("it is empty", ...)
};

// `binary` (trailing NULs dropped) with its `.target sm_90` directive made `.target sm_90a` and
// every kSm90aMarker removed, the rest of each line kept. An error when the binary is empty, is
// not text (a NUL inside) or its first `.target` directive names anything but sm_90.
PtxRewrite retarget_ptx_to_sm90a(std::string_view binary);

} // namespace mqlcl
