#include "device_selection.hpp"

#include "device_spread.hpp"
#include "errors.hpp"
#include "os_library.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <string>

namespace mqlcl {

namespace {

std::string lowercase(std::string text) {
  for (char &c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// MQLCL_DEVICE: a device ordinal, or a case-insensitive part of a device's match_text().
const Device *device_from_environment(const DeviceList &list) {
  std::string wanted = os::environment("MQLCL_DEVICE");
  if (wanted.empty())
    return nullptr;
  char *end = nullptr;
  long ordinal = std::strtol(wanted.c_str(), &end, 10);
  if (end != wanted.c_str() && *end == '\0') {
    if (ordinal >= 0 && static_cast<size_t>(ordinal) < list.devices.size())
      return &list.devices[static_cast<size_t>(ordinal)];
  } else {
    for (const Device &device : list.devices)
      if (lowercase(device.match_text()).find(lowercase(wanted)) != std::string::npos)
        return &device;
  }
  fail(MQLCL_ERR_OPENCL_SELECTDEVICE,
       fmt::format("MQLCL_DEVICE={} matches none of the {} devices", wanted, list.devices.size()));
}

} // namespace

std::shared_ptr<const Device> select_device(int32_t selector) {
  std::shared_ptr<const DeviceList> list = device_list();
  if (list->devices.empty())
    fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED, "OpenCL platforms are installed but have no device");
  auto share = [&](const Device &device) { return std::shared_ptr<const Device>(list, &device); };
  auto first = [&](auto accept, const char *what) {
    for (const Device &device : list->devices)
      if (accept(device))
        return &device;
    fail(MQLCL_ERR_OPENCL_SELECTDEVICE,
         fmt::format("no {} among the {} OpenCL devices", what, list->devices.size()));
  };
  auto is_gpu = [](const Device &d) {
    return (d.type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
  };

  const Device *chosen = nullptr;
  switch (selector) {
  case MQLCL_USE_SPREAD:
    chosen = spread_device(*list);
    break;
  case MQLCL_USE_ANY:
    chosen = policy_spreads() ? spread_device(*list) : &list->devices.front();
    break;
  case MQLCL_USE_CPU_ONLY:
    chosen =
        first([](const Device &d) { return (d.type & CL_DEVICE_TYPE_CPU) != 0; }, "CPU device");
    break;
  case MQLCL_USE_GPU_ONLY:
    chosen = policy_spreads() && is_gpu(list->devices.front()) ? spread_device(*list)
                                                               : first(is_gpu, "GPU device");
    break;
  case MQLCL_USE_GPU_DOUBLE_ONLY:
    chosen =
        first([&](const Device &d) { return is_gpu(d) && d.has_fp64; }, "GPU with double support");
    break;
  default:
    if (selector < 0 || static_cast<size_t>(selector) >= list->devices.size())
      fail(MQLCL_ERR_OPENCL_SELECTDEVICE,
           fmt::format("device {} does not exist: {} OpenCL device(s), ordinals 0-{}, or "
                       "selectors -1 (any), -2 (CPU), -3 (GPU), -4 (GPU with double), "
                       "-100 (spread)",
                       selector, list->devices.size(), list->devices.size() - 1));
    chosen = &list->devices[static_cast<size_t>(selector)];
  }
  if (const Device *overridden = device_from_environment(*list))
    chosen = overridden;
  return share(*chosen);
}

} // namespace mqlcl
