// CLExecute and CLExecutionStatus. Launch geometry OpenCL 1.2 would reject is rejected here
// first, with the cl_int OpenCL would have returned kept as CL_LAST_ERROR, and so are ranges a
// driver would accept and then fail to run (check_launch_size).
#include "boundary.hpp"
#include "cl_api.hpp"
#include "device_health.hpp"
#include "objects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

using namespace mqlcl;

namespace {

struct Geometry {
  cl_uint dimensions = 1;
  std::array<size_t, 3> offset{};
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{};
  bool runtime_chooses_local = true;
};

std::string range_text(const Geometry &g) {
  std::string text = std::to_string(g.global[0]);
  for (uint32_t d = 1; d < g.dimensions; ++d)
    text += " x " + std::to_string(g.global[d]);
  return text;
}

// A work-group the device and the kernel can run, and that divides the range.
void check_work_group(const Kernel &kernel, const Geometry &g) {
  const Device &device = *kernel.program->context->device;
  size_t group = 1;
  for (uint32_t d = 0; d < g.dimensions; ++d) {
    if (g.local[d] > device.max_work_item_sizes[d])
      fail(MQLCL_ERR_OPENCL_EXECUTE,
           fmt::format("CLExecute: local_work_size[{}] = {} exceeds the device's {}", d, g.local[d],
                       device.max_work_item_sizes[d]),
           CL_INVALID_WORK_ITEM_SIZE);
    if (g.global[d] % g.local[d] != 0)
      fail(MQLCL_ERR_OPENCL_EXECUTE,
           fmt::format("CLExecute: local_work_size[{}] = {} does not divide global_work_size[{}] "
                       "= {}",
                       d, g.local[d], d, g.global[d]),
           CL_INVALID_WORK_GROUP_SIZE);
    group *= g.local[d];
  }
  size_t limit = std::min(device.max_work_group_size, kernel.work_group_size);
  if (group > limit)
    fail(MQLCL_ERR_OPENCL_EXECUTE,
         fmt::format("CLExecute: a work-group of {} work-items exceeds the {} that kernel {} "
                     "allows on this device",
                     group, limit, kernel.name),
         CL_INVALID_WORK_GROUP_SIZE);
}

// A launch the driver can count: at most SIZE_MAX work-items in all (three uint32 sizes reach
// 2^96), and no more work-groups than the device's known limit (Device::max_work_groups). Where
// the runtime picks the work-group size, a group may hold a single work-item, so work-items are
// counted against that limit.
void check_launch_size(const Device &device, const Geometry &g) {
  size_t items = 1, groups = 1;
  for (uint32_t d = 0; d < g.dimensions; ++d) {
    if (g.global[d] > SIZE_MAX / items)
      fail(MQLCL_ERR_OPENCL_EXECUTE,
           fmt::format("CLExecute: a range of {} work-items is more than size_t counts",
                       range_text(g)),
           CL_INVALID_GLOBAL_WORK_SIZE);
    items *= g.global[d];
    groups *= g.runtime_chooses_local ? g.global[d] : g.global[d] / g.local[d];
  }
  if (device.max_work_groups != 0 && groups > device.max_work_groups)
    fail(MQLCL_ERR_OPENCL_EXECUTE,
         g.runtime_chooses_local
             ? fmt::format("CLExecute: a range of {} work-items with the work-group size left to "
                           "the runtime may make more than the {} work-groups {} can run; give a "
                           "local_work_size",
                           range_text(g), device.max_work_groups, device.name)
             : fmt::format("CLExecute: a range of {} work-items makes {} work-groups; {} runs at "
                           "most {}",
                           range_text(g), groups, device.name, device.max_work_groups),
         CL_INVALID_GLOBAL_WORK_SIZE);
}

Geometry check_geometry(const Kernel &kernel, uint32_t work_dim, const uint32_t *offsets,
                        const uint32_t *global_sizes, const uint32_t *local_sizes) {
  Geometry g;
  if (work_dim == 0) // MQL5's CLExecute(kernel): one work-item
    return g;
  if (work_dim > 3)
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("CLExecute: work_dim is {}; it must be 0 (a single work-item) to 3", work_dim),
         CL_INVALID_WORK_DIMENSION);
  if (global_sizes == nullptr)
    fail(MQLCL_ERR_INVALID_PARAMETER, "CLExecute: global_work_size is NULL");
  g.dimensions = work_dim;
  size_t zero_locals = 0;
  for (uint32_t d = 0; d < work_dim; ++d) {
    g.offset[d] = offsets != nullptr ? offsets[d] : 0;
    g.global[d] = global_sizes[d];
    g.local[d] = local_sizes != nullptr ? local_sizes[d] : 0;
    zero_locals += g.local[d] == 0 ? 1 : 0;
    if (g.global[d] == 0)
      fail(MQLCL_ERR_OPENCL_EXECUTE, fmt::format("CLExecute: global_work_size[{}] is 0", d),
           CL_INVALID_GLOBAL_WORK_SIZE);
  }
  if (zero_locals != 0 && zero_locals != work_dim)
    fail(MQLCL_ERR_INVALID_PARAMETER,
         "CLExecute: local_work_size must be all zero (runtime chooses) or all non-zero",
         CL_INVALID_WORK_GROUP_SIZE);
  g.runtime_chooses_local = zero_locals == work_dim;
  if (!g.runtime_chooses_local)
    check_work_group(kernel, g);
  check_launch_size(*kernel.program->context->device, g);
  return g;
}

// The kernel's last launch event, retained, so it can be waited on without holding the kernel.
struct LaunchEvent {
  cl_event event = nullptr;
  LaunchEvent(Kernel &kernel, const char *function) {
    std::lock_guard<std::mutex> lock(kernel.mutex);
    if (kernel.last_launch == nullptr)
      fail(MQLCL_ERR_OPENCL_EXECUTE,
           fmt::format("{}: kernel {} has not been executed yet", function, kernel.name));
    check_cl(cl_api().clRetainEvent(kernel.last_launch), "clRetainEvent",
             MQLCL_ERR_OPENCL_INTERNAL);
    event = kernel.last_launch;
  }
  ~LaunchEvent() {
    try {
      cl_api().clReleaseEvent(event);
    } catch (...) {
    }
  }
  LaunchEvent(const LaunchEvent &) = delete;
  LaunchEvent &operator=(const LaunchEvent &) = delete;
};

// The launch's status for CLExecutionStatus: 0-3, or a Failure. NVIDIA's driver (580) reports a
// launch that faulted as CL_COMPLETE, and only a wait on its event fails (with -9999), so a
// complete launch's event is waited on too, which returns at once.
int32_t launch_status(const Kernel &kernel, cl_event event) {
  const ClApi &cl = cl_api();
  cl_int status = CL_COMPLETE;
  check_cl(
      cl.clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr),
      "CLExecutionStatus: clGetEventInfo", MQLCL_ERR_OPENCL_EXECUTE);
  if (status == CL_COMPLETE)
    status = cl.clWaitForEvents(1, &event);
  if (status < 0)
    fail(MQLCL_ERR_OPENCL_EXECUTE,
         fmt::format("CLExecutionStatus: the last launch of {} failed: {} ({})", kernel.name,
                     cl_error_name(status), status),
         status);
  return static_cast<int32_t>(status);
}

} // namespace

namespace mqlcl {

// Nanoseconds between the start and end of the kernel's last launch (waits for it to finish).
int64_t last_launch_nanoseconds(Kernel &kernel) {
  LaunchEvent launch(kernel, "CL_KERNEL_EXECUTION_TIME");
  const ClApi &cl = cl_api();
  watching_device(*kernel.program->context->device, "CL_KERNEL_EXECUTION_TIME", [&] {
    check_cl(cl.clWaitForEvents(1, &launch.event), "clWaitForEvents", MQLCL_ERR_OPENCL_EXECUTE);
  });
  return profiled_nanoseconds(launch.event, launch.event);
}

} // namespace mqlcl

extern "C" {

MQLCL_API int32_t CLExecute(int32_t kernel_handle, uint32_t work_dim,
                            const uint32_t *global_work_offset, const uint32_t *global_work_size,
                            const uint32_t *local_work_size) {
  return guarded(0, [&] {
    auto kernel = kernel_of(kernel_handle, "CLExecute");
    Geometry g =
        check_geometry(*kernel, work_dim, global_work_offset, global_work_size, local_work_size);
    const Context &context = *kernel->program->context;
    const ClApi &cl = cl_api();
    std::lock_guard<std::mutex> lock(kernel->mutex); // arguments cannot change mid-launch
    for (size_t i = 0; i < kernel->arg_set.size(); ++i)
      if (!kernel->arg_set[i])
        fail(MQLCL_ERR_OPENCL_EXECUTE,
             fmt::format("CLExecute: argument {} of kernel {} is not set", i, kernel->name),
             CL_INVALID_KERNEL_ARGS);
    watching_device(*context.device, "CLExecute", [&] {
      cl_event launch = nullptr;
      cl_int status = cl.clEnqueueNDRangeKernel(
          context.queue, kernel->kernel, g.dimensions, g.offset.data(), g.global.data(),
          g.runtime_chooses_local ? nullptr : g.local.data(), 0, nullptr, &launch);
      check_cl(status, fmt::format("CLExecute: clEnqueueNDRangeKernel({})", kernel->name).c_str(),
               MQLCL_ERR_OPENCL_EXECUTE);
      if (kernel->last_launch != nullptr)
        cl.clReleaseEvent(kernel->last_launch);
      kernel->last_launch = launch;
      // Submit now, so CLExecutionStatus sees progress without anyone waiting on the queue.
      check_cl(cl.clFlush(context.queue), "CLExecute: clFlush", MQLCL_ERR_OPENCL_EXECUTE);
    });
    return 1;
  });
}

MQLCL_API int32_t CLExecutionStatus(int32_t kernel_handle) {
  return guarded(-1, [&] {
    auto kernel = kernel_of(kernel_handle, "CLExecutionStatus");
    LaunchEvent launch(*kernel, "CLExecutionStatus");
    return watching_device(*kernel->program->context->device, "CLExecutionStatus",
                           [&] { return launch_status(*kernel, launch.event); });
  });
}

} // extern "C"
