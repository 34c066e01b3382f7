#include "fault_layer.hpp"

#if __has_include(<CL/cl_layer.h>)
#include <CL/cl_layer.h>
#define MQLCL_FAULT_ICD_LAYER 1
#endif

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <tuple>

namespace mqlcl_fault {

namespace {

constexpr size_t kCalls = static_cast<size_t>(Call::count);
constexpr size_t kKinds = static_cast<size_t>(Kind::count);

// What a call does to the reference count of which kind of object.
enum class Effect { none, create, retain, release, enqueue_with_event };
struct Role {
  Effect effect = Effect::none;
  Kind kind = Kind::count;
};

constexpr Role role_of(Call call) {
  switch (call) {
  case Call::clCreateContext:
    return {Effect::create, Kind::context};
  case Call::clReleaseContext:
    return {Effect::release, Kind::context};
  case Call::clCreateCommandQueue:
    return {Effect::create, Kind::queue};
  case Call::clReleaseCommandQueue:
    return {Effect::release, Kind::queue};
  case Call::clCreateProgramWithSource:
  case Call::clCreateProgramWithBinary:
    return {Effect::create, Kind::program};
  case Call::clReleaseProgram:
    return {Effect::release, Kind::program};
  case Call::clCreateKernel:
    return {Effect::create, Kind::kernel};
  case Call::clReleaseKernel:
    return {Effect::release, Kind::kernel};
  case Call::clCreateBuffer:
    return {Effect::create, Kind::memory};
  case Call::clReleaseMemObject:
    return {Effect::release, Kind::memory};
  case Call::clRetainEvent:
    return {Effect::retain, Kind::event};
  case Call::clReleaseEvent:
    return {Effect::release, Kind::event};
  case Call::clEnqueueFillBuffer:
  case Call::clEnqueueWriteBuffer:
  case Call::clEnqueueReadBuffer:
  case Call::clEnqueueNDRangeKernel:
  case Call::clEnqueueUnmapMemObject:
  case Call::clEnqueueMarkerWithWaitList:
  case Call::clEnqueueBarrierWithWaitList:
    return {Effect::enqueue_with_event, Kind::event};
  // clEnqueueMapBuffer returns the pointer (NULL and errcode_ret when a fault is injected); the
  // bridge maps without an event, so there is nothing of it to count.
  default:
    return {};
  }
}

struct Plan {
  bool every = false;
  uint64_t at_call = 0; // fire when the call counter reaches this value (0: never)
  cl_int code = CL_SUCCESS;
};

// An object whose release the layer refused, with the driver call that releases it for real.
struct Refused {
  void *object = nullptr;
  cl_int(CL_API_CALL *release)(void *) = nullptr;
};
constexpr size_t kMaxRefused = 64;

struct State {
  std::mutex mutex; // guards plans and refused
  std::array<Plan, kCalls> plans{};
  std::array<Refused, kMaxRefused> refused{};
  std::array<std::atomic<uint64_t>, kCalls> calls{};
  std::array<std::atomic<uint64_t>, kCalls> injected{};
  std::array<std::atomic<int64_t>, kKinds> acquired{};
  std::array<std::atomic<int64_t>, kKinds> released{};
  std::atomic<cl_int> failed_launch_status{CL_SUCCESS};
};

// Process-wide and never destroyed (a std::mutex is not trivially destructible everywhere, MinGW's
// among them), so the wrappers stay usable while the bridge releases its objects during static
// destruction.
State &state = *new State;

// Counts the call and says whether to answer it with an injected code.
bool take_fault(Call call, cl_int &code) {
  size_t index = static_cast<size_t>(call);
  uint64_t number = state.calls[index].fetch_add(1) + 1;
  std::lock_guard<std::mutex> lock(state.mutex);
  Plan &plan = state.plans[index];
  if (!plan.every && plan.at_call != number)
    return false;
  if (!plan.every)
    plan.at_call = 0;
  code = plan.code;
  state.injected[index].fetch_add(1);
  return true;
}

void count(Kind kind, std::array<std::atomic<int64_t>, kKinds> &counter) {
  counter[static_cast<size_t>(kind)].fetch_add(1);
}

// The layer below, per table type (the bridge's ClApi, or the ICD loader's dispatch table).
template <class Table> struct Next { static inline Table table{}; };

template <class Table, Call C> struct Member;
#define MQLCL_FAULT_MEMBER(name)                                                                   \
  template <class Table> struct Member<Table, Call::name> {                                        \
    static constexpr auto pointer = &Table::name;                                                  \
  };
MQLCL_CL_FUNCTIONS(MQLCL_FAULT_MEMBER)
#undef MQLCL_FAULT_MEMBER

template <class Table, Call C, class Function> struct Forward;

template <class Table, Call C, class R, class... Args>
struct Forward<Table, C, R(CL_API_CALL *)(Args...)> {
  static R CL_API_CALL call(Args... args) {
    auto arguments = std::forward_as_tuple(args...);
    cl_int code = CL_SUCCESS;
    if (take_fault(C, code)) {
      if constexpr (role_of(C).effect == Effect::release) // kept, for release_refused()
        keep_refused(std::get<0>(arguments));
      if constexpr (std::is_pointer_v<R>) { // the create functions: NULL, code in errcode_ret
        cl_int *errcode_ret = std::get<sizeof...(Args) - 1>(arguments);
        if (errcode_ret != nullptr)
          *errcode_ret = code;
        return nullptr;
      } else {
        return code;
      }
    }
    R result = (Next<Table>::table.*Member<Table, C>::pointer)(args...);

    constexpr Role role = role_of(C);
    if constexpr (role.effect == Effect::create) {
      if (result != nullptr)
        count(role.kind, state.acquired);
    } else if constexpr (role.effect == Effect::retain) {
      if (result == CL_SUCCESS)
        count(role.kind, state.acquired);
    } else if constexpr (role.effect == Effect::release) {
      if (result == CL_SUCCESS)
        count(role.kind, state.released);
    } else if constexpr (role.effect == Effect::enqueue_with_event) {
      cl_event *event = std::get<sizeof...(Args) - 1>(arguments);
      if (result == CL_SUCCESS && event != nullptr && *event != nullptr)
        count(role.kind, state.acquired);
    }
    if constexpr (C == Call::clGetEventInfo) {
      cl_int failed = state.failed_launch_status.load();
      void *value = std::get<3>(arguments);
      if (result == CL_SUCCESS && failed != CL_SUCCESS &&
          std::get<1>(arguments) == CL_EVENT_COMMAND_EXECUTION_STATUS && value != nullptr)
        std::memcpy(value, &failed, sizeof(failed));
    }
    return result;
  }

  // The driver's release of an object this layer refused to release.
  static cl_int CL_API_CALL release_for_real(void *object) {
    using Object = std::tuple_element_t<0, std::tuple<Args...>>;
    return call(static_cast<Object>(object));
  }

  template <class Object> static void keep_refused(Object object) {
    std::lock_guard<std::mutex> lock(state.mutex);
    for (Refused &slot : state.refused)
      if (slot.object == nullptr) {
        slot = Refused{object, &release_for_real};
        return;
      }
  }
};

template <class Table> Table wrap(const Table &next) {
  Next<Table>::table = next;
  Table ours = next; // entries the bridge does not use pass straight through
#define MQLCL_FAULT_WRAP(name) ours.name = &Forward<Table, Call::name, decltype(Table::name)>::call;
  MQLCL_CL_FUNCTIONS(MQLCL_FAULT_WRAP)
#undef MQLCL_FAULT_WRAP
  return ours;
}

} // namespace

const char *name_of(Call call) noexcept {
  switch (call) {
#define MQLCL_FAULT_NAME(name)                                                                     \
  case Call::name:                                                                                 \
    return #name;
    MQLCL_CL_FUNCTIONS(MQLCL_FAULT_NAME)
#undef MQLCL_FAULT_NAME
  case Call::count:
    break;
  }
  return "?";
}

const char *name_of(Kind kind) noexcept {
  static const char *const names[] = {"context", "queue", "program", "kernel", "memory", "event"};
  return kind < Kind::count ? names[static_cast<size_t>(kind)] : "?";
}

void fail_every(Call call, cl_int code) noexcept {
  std::lock_guard<std::mutex> lock(state.mutex);
  state.plans[static_cast<size_t>(call)] = Plan{true, 0, code};
}

void fail_call(Call call, uint64_t nth, cl_int code) noexcept {
  std::lock_guard<std::mutex> lock(state.mutex);
  size_t index = static_cast<size_t>(call);
  state.plans[index] = Plan{false, state.calls[index].load() + nth, code};
}

void report_failed_launches(cl_int status) noexcept {
  state.failed_launch_status.store(status);
}

int64_t release_refused() noexcept {
  std::array<Refused, kMaxRefused> refused;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    refused = state.refused;
    state.refused.fill(Refused{});
  }
  int64_t count = 0;
  for (const Refused &slot : refused)
    if (slot.object != nullptr && slot.release(slot.object) == CL_SUCCESS)
      ++count;
  return count;
}

void clear_faults() noexcept {
  std::lock_guard<std::mutex> lock(state.mutex);
  state.plans.fill(Plan{});
  state.failed_launch_status.store(CL_SUCCESS);
}

uint64_t calls(Call call) noexcept {
  return state.calls[static_cast<size_t>(call)].load();
}

uint64_t faults_injected(Call call) noexcept {
  return state.injected[static_cast<size_t>(call)].load();
}

int64_t acquired(Kind kind) noexcept {
  return state.acquired[static_cast<size_t>(kind)].load();
}

int64_t released(Kind kind) noexcept {
  return state.released[static_cast<size_t>(kind)].load();
}

int64_t live_total() noexcept {
  int64_t total = 0;
  for (size_t k = 0; k < kKinds; ++k)
    total += live(static_cast<Kind>(k));
  return total;
}

mqlcl::ClApi wrap_api(const mqlcl::ClApi &next) {
  return wrap(next);
}

namespace {
std::atomic<bool> exit_marked{false};
std::array<uint64_t, kCalls> calls_at_exit_mark{};
} // namespace

void check_no_calls_from_here_to_exit() noexcept {
  for (size_t c = 0; c < kCalls; ++c)
    calls_at_exit_mark[c] = state.calls[c].load();
  exit_marked.store(true);
}

} // namespace mqlcl_fault

#if !defined(_WIN32)
#include <cstdio>
#include <unistd.h>

namespace {
__attribute__((destructor)) void report_calls_during_exit() {
  using namespace mqlcl_fault;
  if (!exit_marked.load())
    return;
  bool called = false;
  for (size_t c = 0; c < kCalls; ++c) {
    uint64_t during = state.calls[c].load() - calls_at_exit_mark[c];
    if (during != 0) {
      std::fprintf(stderr, "OpenCL called during exit: %s x%llu\n", name_of(static_cast<Call>(c)),
                   static_cast<unsigned long long>(during));
      called = true;
    }
  }
  if (called) {
    std::fflush(stderr);
    _exit(kCalledDuringExit);
  }
}
} // namespace
#endif

// ---- The same wrappers as an OpenCL layer of the ICD loader (OPENCL_LAYERS) -----------------
#ifdef MQLCL_FAULT_ICD_LAYER

extern "C" {

CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param_name, size_t param_value_size,
                                               void *param_value, size_t *param_value_size_ret) {
  if (param_name != CL_LAYER_API_VERSION)
    return CL_INVALID_VALUE;
  const cl_layer_api_version version = CL_LAYER_API_VERSION_100;
  if (param_value_size_ret != nullptr)
    *param_value_size_ret = sizeof(version);
  if (param_value != nullptr) {
    if (param_value_size < sizeof(version))
      return CL_INVALID_VALUE;
    std::memcpy(param_value, &version, sizeof(version));
  }
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries,
                                            const cl_icd_dispatch *target_dispatch,
                                            cl_uint *num_entries_ret,
                                            const cl_icd_dispatch **layer_dispatch_ret) {
  constexpr cl_uint kEntries = sizeof(cl_icd_dispatch) / sizeof(void *);
  if (target_dispatch == nullptr || num_entries_ret == nullptr || layer_dispatch_ret == nullptr ||
      num_entries < kEntries)
    return CL_INVALID_VALUE;
  static cl_icd_dispatch layer;
  layer = mqlcl_fault::wrap(*target_dispatch);
  *num_entries_ret = kEntries;
  *layer_dispatch_ret = &layer;
  return CL_SUCCESS;
}

} // extern "C"

#endif // MQLCL_FAULT_ICD_LAYER
