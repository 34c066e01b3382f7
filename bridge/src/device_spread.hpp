// Spreading processes over a machine's GPUs (docs/api.md, "Several GPUs"). Each process that asks
// takes a slot of the device with the fewest live processes: a file in the runtime folder that it
// keeps locked while it lives (os::PrivateFolder::lock), so a process that ends, even by a crash,
// frees its slot with no clean-up by anyone (an unload of the library frees it too). Choosers
// take turns under a lock file of their own, so four processes starting at once on two GPUs get
// two each. The folder is used only when it is the user's alone (private_folder.hpp), and a turn
// is waited for 10 s at most.
#pragma once

#include "devices.hpp"

#include <string>
#include <vector>

namespace mqlcl {

// The devices a spread chooses among: MQLCL_SPREAD_DEVICES (comma-separated ordinals), else the
// devices of the first device's kind (GPU, accelerator, CPU) on its platform. Throws
// Failure(ERR_OPENCL_SELECTDEVICE) when the variable is malformed or names a missing device.
std::vector<const Device *> spread_candidates(const DeviceList &list);

// The device this process uses for spread contexts: chosen on the first call and kept (per set
// of candidates). When the runtime folder cannot be used (it cannot be made, or others could
// change it), or the choosers' turn does not come within 10 s, a device picked by the process id.
const Device *spread_device(const DeviceList &list);

// MQLCL_DEVICE_POLICY=spread (any case): MQLCL_USE_ANY and MQLCL_USE_GPU_ONLY spread too. Unset
// or empty: false. Throws Failure(ERR_OPENCL_SELECTDEVICE) for any other value.
bool policy_spreads();

} // namespace mqlcl
