#include "device_health.hpp"

#include "cl_api.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

namespace mqlcl {

namespace {

std::string reason_of(const Device &device) {
  std::lock_guard<std::mutex> lock(device.health->mutex);
  return device.health->reason;
}

void mark_lost(const Device &device, std::string reason) {
  {
    std::lock_guard<std::mutex> lock(device.health->mutex);
    if (device.health->reason.empty())
      device.health->reason = std::move(reason);
  }
  device.health->lost.store(true);
}

[[noreturn]] void fail_device_lost(const Device &device, const char *function) {
  fail(MQLCL_ERR_OPENCL_DEVICE_LOST,
       fmt::format("{}: {} is lost ({}). Its driver has ended every OpenCL context of this "
                   "process on it, typically because a kernel read or wrote outside its buffers. "
                   "Free every context on it (CLContextFree, in every program of the process); a "
                   "new CLContextCreate then tries the device again",
                   function, device.name, reason_of(device)),
       CL_OUT_OF_RESOURCES);
}

// Whether the device refuses a context of its own: a driver that has ended the process's work on
// a device refuses it (NVIDIA's: -9999); a healthy one, short of host memory alone, does not.
bool refuses_new_context(const Device &device, cl_int &status) {
  const ClApi &cl = cl_api();
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(device.platform), 0};
  status = CL_SUCCESS;
  cl_context probe = cl.clCreateContext(properties, 1, &device.id, nullptr, nullptr, &status);
  if (probe != nullptr)
    cl.clReleaseContext(probe);
  return status != CL_SUCCESS && status != CL_OUT_OF_HOST_MEMORY;
}

} // namespace

void check_device_usable(const Device &device, const char *function) {
  if (device.health->lost.load())
    fail_device_lost(device, function);
}

bool fault_like(cl_int status) {
  return status == CL_OUT_OF_RESOURCES || status == CL_INVALID_COMMAND_QUEUE ||
         status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST || status < -1100;
}

void rethrow_after_failure(const Device &device, const char *function, const Failure &failure) {
  if (device.health->lost.load())
    fail_device_lost(device, function);
  cl_int probe_status = CL_SUCCESS;
  if (!fault_like(failure.cl_status()) || !refuses_new_context(device, probe_status))
    throw failure;
  mark_lost(device, fmt::format("{}; a new context: {} ({})", failure.message(),
                                cl_error_name(probe_status), probe_status));
  fail_device_lost(device, function);
}

bool check_device_recoverable(const Device &device) {
  if (!device.health->lost.load())
    return false;
  const int held = device.health->contexts.load();
  if (held > 0)
    fail(MQLCL_ERR_OPENCL_DEVICE_LOST,
         fmt::format("CLContextCreate: {} is lost ({}). The process still holds {} context(s) "
                     "on it, and its driver refuses new ones until every one is gone: free them "
                     "(CLContextFree, in every program), then create a new one",
                     device.name, reason_of(device), held),
         CL_OUT_OF_RESOURCES);
  std::lock_guard<std::mutex> lock(device.health->mutex);
  device.health->reason.clear();
  device.health->lost.store(false); // the driver decides: a refusal marks it lost again
  return true;
}

void note_recovery_failed(const Device &device, const Failure &failure) {
  mark_lost(device, failure.message());
  fail(MQLCL_ERR_OPENCL_DEVICE_LOST,
       fmt::format("CLContextCreate: {} is lost, and its driver still refuses a new context "
                   "with no other context of the process on it ({}): only a restart of the "
                   "process (the terminal) brings it back",
                   device.name, failure.message()),
       failure.cl_status());
}

} // namespace mqlcl
