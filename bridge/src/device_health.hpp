// A device whose driver has ended this process's work on it. When a kernel faults (reads or
// writes outside its buffers), NVIDIA's OpenCL driver (580) fails every later call of every
// context of the process on that device, and refuses new contexts: in MetaTrader, every
// program's OpenCL in the terminal. The bridge tells such a device lost from an ordinary failure,
// then answers every call on its objects with MQLCL_ERR_OPENCL_DEVICE_LOST and a message that
// says what happened and what to do, and lets CLContextCreate try again once the process holds
// no context on it (docs/api.md, "A device that faults").
#pragma once

#include "devices.hpp"
#include "errors.hpp"
#include "opencl.hpp"

namespace mqlcl {

// Throws Failure(MQLCL_ERR_OPENCL_DEVICE_LOST) naming `function` when `device` is lost.
void check_device_usable(const Device &device, const char *function);

// Whether `status` is what a call gets from a driver whose device has faulted (CL_OUT_OF_RESOURCES,
// CL_INVALID_COMMAND_QUEUE, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, or a vendor's code
// below the Khronos range, such as NVIDIA's -9999).
bool fault_like(cl_int status);

// After `failure` of `function`'s work on `device`: when its status is fault-like and the device
// is found lost (it refuses a new context), marks the device lost and throws the device-lost
// failure in its place; else rethrows `failure`.
[[noreturn]] void rethrow_after_failure(const Device &device, const char *function,
                                        const Failure &failure);

// Runs `body`, `function`'s work on `device`, turning a failure that shows a lost device into
// the device-lost failure.
template <class Body>
auto watching_device(const Device &device, const char *function, Body &&body) {
  try {
    return body();
  } catch (const Failure &failure) {
    rethrow_after_failure(device, function, failure);
  }
}

// CLContextCreate on a lost device: refused while the process holds a context on it (the driver
// refuses until every one is gone); else the loss is set aside and creation tried. Returns
// whether the device was lost, for note_recovery_failed.
bool check_device_recoverable(const Device &device);

// The creation after check_device_recoverable returned true failed with `failure`: the device is
// lost again, for good as far as this process can tell; throws the device-lost failure.
[[noreturn]] void note_recovery_failed(const Device &device, const Failure &failure);

} // namespace mqlcl
