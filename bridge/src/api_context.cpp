// CLContextCreate / CLContextFree, handle types and the per-thread last error.
#include "boundary.hpp"
#include "cl_api.hpp"
#include "device_health.hpp"
#include "device_selection.hpp"
#include "objects.hpp"
#include "utf16.hpp"

#include <fmt/format.h>

using namespace mqlcl;

namespace {

// A context and its in-order, profiling queue on `device`.
std::shared_ptr<Context> create_context(std::shared_ptr<const Device> device) {
  auto context = std::make_shared<Context>();
  context->device = std::move(device);
  ++context->device->health->contexts; // until ~Context
  const Device &chosen = *context->device;
  const ClApi &cl = cl_api();
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(chosen.platform), 0};
  cl_int status = CL_SUCCESS;
  context->context = cl.clCreateContext(properties, 1, &chosen.id, nullptr, nullptr, &status);
  check_cl(status, "CLContextCreate: clCreateContext", MQLCL_ERR_OPENCL_CONTEXT_CREATE);
  if (context->context == nullptr)
    fail(MQLCL_ERR_OPENCL_CONTEXT_CREATE, "CLContextCreate: clCreateContext returned no context");
  context->queue = create_queue(*context, "CLContextCreate");
  return context;
}

} // namespace

extern "C" {

MQLCL_API int32_t CLContextCreate(int32_t device) {
  return guarded(MQLCL_INVALID_HANDLE, [&] {
    std::shared_ptr<const Device> chosen = select_device(device);
    const bool recovering = check_device_recoverable(*chosen);
    try {
      return registry().contexts.insert(create_context(chosen));
    } catch (const Failure &failure) {
      if (recovering)
        note_recovery_failed(*chosen, failure);
      throw;
    }
  });
}

MQLCL_API void CLContextFree(int32_t context) {
  guarded_void([&] {
    if (!registry().contexts.remove(context))
      fail_not_live(registry().contexts, context, "CLContextFree", "context");
  });
}

MQLCL_API int32_t CLHandleType(int32_t handle) {
  return guarded(MQLCL_OPENCL_INVALID, [&] {
    Registry &live = registry();
    int32_t type = HandleBits::type_of(handle);
    bool alive = (type == MQLCL_OPENCL_CONTEXT && live.contexts.find(handle)) ||
                 (type == MQLCL_OPENCL_PROGRAM && live.programs.find(handle)) ||
                 (type == MQLCL_OPENCL_KERNEL && live.kernels.find(handle)) ||
                 (type == MQLCL_OPENCL_BUFFER && live.buffers.find(handle));
    return alive ? type : MQLCL_OPENCL_INVALID;
  });
}

MQLCL_API int32_t CLGetLastError(void) {
  return last_error_code();
}

MQLCL_API void CLResetLastError(void) {
  reset_last_error();
}

MQLCL_API void CLSetLastError(int32_t code, const char16_t *description) {
  guarded_void([&] {
    if (code < 0)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("CLSetLastError: code {} is not an error code (0 or more)", code));
    if (code == 0) {
      reset_last_error();
      return;
    }
    const std::string message = description != nullptr ? utf16_to_utf8(description) : "";
    record_failure(code, CL_SUCCESS, message.c_str());
  });
}

} // extern "C"
