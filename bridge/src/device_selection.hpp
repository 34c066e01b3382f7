// Which device CLContextCreate means: a device ordinal or one of MQL5's selectors, spread over
// the machine's GPUs where asked (device_spread.hpp), then the MQLCL_DEVICE override.
#pragma once

#include "devices.hpp"

#include <cstdint>
#include <memory>

namespace mqlcl {

// The device CLContextCreate(selector_or_ordinal) means, after the MQLCL_DEVICE override.
// Throws Failure(ERR_OPENCL_SELECTDEVICE) when none matches.
std::shared_ptr<const Device> select_device(int32_t selector_or_ordinal);

} // namespace mqlcl
