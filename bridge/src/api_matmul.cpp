// CLMatMul: c = a * b from host arrays to a host array through three buffers of one context, as
// CLBufferWrite A and B, CLGemm and CLBufferRead C would do it, but with the transfers overlapping
// the product where the transfers are staged: B's write, then A's in panels of rows, run on the
// context's upload queue; each panel's product runs on the context's queue once its rows are in;
// C's read runs on the download queue, each chunk once the panel that computes it is done. So
// the product of a panel runs while the next panel's rows are copied in, and C's rows come back
// while later panels compute. On a device that shares the host's memory (a CPU device), where a
// write is a copy by a thread of the driver's, A's and B's writes run at once on two queues.
// Elsewhere (small matrices, products that one panel holds) the four calls run one after another
// on the context's queue.
#include "api_gemm.hpp"
#include "boundary.hpp"
#include "checked_math.hpp"
#include "cl_api.hpp"
#include "device_health.hpp"
#include "gemm/runtime.hpp"
#include "objects.hpp"
#include "os_library.hpp"
#include "staging.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

using namespace mqlcl;

namespace {

// A panel's rows are a multiple of the largest tile's (BM 128), so that no tile of C is split
// between two panels' launches, and there are at most kMaxPanels of them.
constexpr uint32_t kPanelTile = 128;
constexpr uint32_t kMaxPanels = 16;
// A panel's 128 x 128 tiles of C fill whole waves of kTilesPerUnit per compute unit, to at least
// kLeastFill of its last wave: on an H200, panels of about one wave (4 at 4096, 16 at 8192) ran
// the product as fast as one launch while the transfers overlapped it, panels of a wave and a
// third (3 at 4096) cost more than the overlap saved, and panels of half a wave or less (8 at
// 4096, 3 at 2048) more still; on an H100, 2 at 2000 and 2048 saved nothing (docs/performance.md,
// "From host arrays to host arrays").
constexpr uint64_t kTilesPerUnit = 2;
constexpr double kLeastFill = 0.9;
// From this size of B, on a device that shares the host's memory, A's and B's writes run at once:
// with PoCL on two cores, two 16 MiB writes took 1.2 ms side by side against 2.4 ms one after
// the other; a smaller write costs less than the second queue's marker and barrier.
constexpr size_t kSideBySideBytes = size_t{1} << 20;

// The product in panels of `rows` rows of A and C (the last one the rest), `count` of them.
struct Panels {
  uint32_t rows = 0, count = 1;
  uint32_t first_row(uint32_t panel) const { return panel * rows; }
  uint32_t rows_of(uint32_t panel, uint32_t m) const {
    return std::min(rows, m - first_row(panel));
  }
};

// `count` panels of as even a number of rows as whole tiles allow.
Panels split(uint32_t m, uint64_t count) {
  const uint64_t rows = (m + count - 1) / count;
  Panels panels;
  panels.rows = static_cast<uint32_t>(
      std::min<uint64_t>(m, (rows + kPanelTile - 1) / kPanelTile * kPanelTile));
  panels.count = (m + panels.rows - 1) / panels.rows;
  return panels;
}

// MQLCL_MATMUL_PANELS (1 to kMaxPanels, read per call: a measurement's knob), else the most
// panels whose tiles fill their waves (kLeastFill), one where none do.
Panels panels_for(const Device &device, uint32_t m, uint32_t n) {
  const std::string forced = os::environment("MQLCL_MATMUL_PANELS");
  if (!forced.empty())
    return split(m,
                 std::clamp<uint64_t>(std::strtoull(forced.c_str(), nullptr, 10), 1, kMaxPanels));
  const uint64_t wave = kTilesPerUnit * std::max<cl_uint>(device.compute_units, 1);
  const uint64_t tiles_per_row = (uint64_t{n} + kPanelTile - 1) / kPanelTile;
  for (uint64_t count = kMaxPanels; count > 1; --count) {
    const Panels panels = split(m, count);
    const uint64_t tiles = (uint64_t{panels.rows} + kPanelTile - 1) / kPanelTile * tiles_per_row;
    const uint64_t waves = (tiles + wave - 1) / wave;
    if (panels.count == count && double(tiles) >= kLeastFill * double(waves * wave))
      return panels;
  }
  return split(m, 1);
}

// The events one call makes, released when it ends (a deque: slots stay where they are).
class Events {
public:
  Events() = default;
  Events(const Events &) = delete;
  Events &operator=(const Events &) = delete;
  ~Events() {
    for (cl_event event : events_)
      gemm::release_event(event);
  }
  // A place for an event the call is about to make (nullptr until it is made).
  cl_event *slot() {
    events_.push_back(nullptr);
    return &events_.back();
  }
  // A marker on `queue`: done when every command enqueued on it before is.
  cl_event marker(cl_command_queue queue) {
    cl_event *event = slot();
    check_cl(cl_api().clEnqueueMarkerWithWaitList(queue, 0, nullptr, event),
             "CLMatMul: clEnqueueMarkerWithWaitList", MQLCL_ERR_OPENCL_EXECUTE);
    return *event;
  }

private:
  std::deque<cl_event> events_;
};

// `event` while it may still run (or failed: a command that waits for it fails then too), else
// nothing: a wait for a command of another queue that is done would cost a dependency the driver
// tracks for nothing.
cl_event unless_done(cl_event event) {
  cl_int status = CL_QUEUED;
  if (cl_api().clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                              nullptr) == CL_SUCCESS &&
      status == CL_COMPLETE)
    return nullptr;
  return event;
}

// Commands enqueued on `queue` from now on wait for `event`.
void wait_on_queue(cl_command_queue queue, cl_event event) {
  check_cl(cl_api().clEnqueueBarrierWithWaitList(queue, 1, &event, nullptr),
           "CLMatMul: clEnqueueBarrierWithWaitList", MQLCL_ERR_OPENCL_EXECUTE);
}

// After a failure on the side queues: nothing of the call is left running or waiting when it
// returns (a write still reading the caller's array, a read still filling it).
void finish_side_queues(Context &context) noexcept {
  for (cl_command_queue queue :
       {context.side_queues.upload, context.queue, context.side_queues.download})
    if (queue != nullptr)
      cl_api().clFinish(queue);
}

// The context's side queues, made on first use; the caller holds their mutex.
void ensure_side_queues(Context &context) {
  SideQueues &side = context.side_queues;
  if (side.upload == nullptr)
    side.upload = create_queue(context, "CLMatMul");
  if (side.download == nullptr)
    side.download = create_queue(context, "CLMatMul");
}

// What one call moves: the operands' host arrays and buffers, and its product.
struct MatMul {
  gemm::Call call; // the whole product, checked
  const char *a = nullptr, *b = nullptr;
  char *c = nullptr;
  size_t element_size = 4;
  size_t a_bytes() const { return size_t{call.m} * call.k * element_size; }
  size_t b_bytes() const { return size_t{call.k} * call.n * element_size; }
  size_t c_bytes() const { return size_t{call.m} * call.n * element_size; }
};

// The four calls, one after another on the context's queue.
void run_in_order(Context &context, const MatMul &product) {
  const gemm::Call &call = product.call;
  write_to_device(context, call.b.buffer->memory, 0, product.b_bytes(), product.b, "CLMatMul");
  write_to_device(context, call.a.buffer->memory, 0, product.a_bytes(), product.a, "CLMatMul");
  gemm::enqueue(context, call);
  read_from_device(context, call.c.buffer->memory, 0, product.c_bytes(), product.c, "CLMatMul");
}

// Whether A's and B's writes run side by side (the file's comment).
bool writes_side_by_side(const Context &context, const MatMul &product) {
  return context.device->host_unified_memory && product.b_bytes() >= kSideBySideBytes &&
         !staging_pays_off(context, product.b_bytes());
}

// B's write on the upload queue (after what the context's queue holds: a kernel may still read
// B) beside A's on the context's queue, neither blocking; the product after both, then C's
// blocking read. The caller holds the side queues' mutex.
void run_side_by_side(Context &context, const MatMul &product) {
  const gemm::Call &call = product.call;
  SideQueues &side = context.side_queues;
  Events events;
  try {
    const cl_event earlier = events.marker(context.queue);
    cl_event *b_written = events.slot();
    write_to_device(context, call.b.buffer->memory, 0, product.b_bytes(), product.b, "CLMatMul",
                    {side.upload, [&](size_t, size_t) { return unless_done(earlier); }, b_written});
    write_to_device(context, call.a.buffer->memory, 0, product.a_bytes(), product.a, "CLMatMul",
                    {context.queue, nullptr, events.slot()});
    if (*b_written != nullptr)
      wait_on_queue(context.queue, *b_written);
    gemm::enqueue(context, call);
    read_from_device(context, call.c.buffer->memory, 0, product.c_bytes(), product.c, "CLMatMul");
  } catch (...) {
    finish_side_queues(context);
    throw;
  }
}

// The panels' products, each after its rows of A are in (B's are in before A's), the next panel's
// rows copied while it runs; returns each panel's end, in order.
std::vector<cl_event> run_panels(Context &context, const MatMul &product, const Panels &panels,
                                 Events &events) {
  const gemm::Call &call = product.call;
  cl_command_queue upload = context.side_queues.upload;
  // The uploads come after whatever the context's queue holds (a kernel may still read A or B).
  const cl_event earlier = events.marker(context.queue);
  const TransferRoute after_earlier{upload, [&](size_t, size_t) { return unless_done(earlier); }};
  write_to_device(context, call.b.buffer->memory, 0, product.b_bytes(), product.b, "CLMatMul",
                  after_earlier);
  std::vector<cl_event> done;
  for (uint32_t panel = 0; panel < panels.count; ++panel) {
    const size_t row_bytes = size_t{call.k} * product.element_size;
    const size_t first = size_t{panels.first_row(panel)} * row_bytes;
    const size_t bytes = size_t{panels.rows_of(panel, call.m)} * row_bytes;
    write_to_device(context, call.a.buffer->memory, first, bytes, product.a + first, "CLMatMul",
                    after_earlier);
    wait_on_queue(context.queue, events.marker(upload));
    gemm::Call part = call;
    part.m = panels.rows_of(panel, call.m);
    part.a.offset = uint64_t{panels.first_row(panel)} * call.k;
    part.c.offset = uint64_t{panels.first_row(panel)} * call.n;
    part.index64 = gemm::needs_index64(part);
    gemm::enqueue(context, part, panel > 0);
    done.push_back(events.marker(context.queue));
  }
  return done;
}

// Pipelined on the side queues (the file's comment); the caller holds their mutex.
void run_pipelined(Context &context, const MatMul &product, const Panels &panels) {
  Events events;
  SideQueues &side = context.side_queues;
  try {
    const std::vector<cl_event> done = run_panels(context, product, panels, events);
    // Each chunk of C after the panel that computes its last row.
    const size_t panel_bytes = size_t{panels.rows} * product.call.n * product.element_size;
    const TransferRoute after_its_panel{
        side.download, [&](size_t, size_t end) {
          return unless_done(done[std::min(done.size() - 1, (end - 1) / panel_bytes)]);
        }};
    read_from_device(context, product.call.c.buffer->memory, 0, product.c_bytes(), product.c,
                     "CLMatMul", after_its_panel);
  } catch (...) {
    finish_side_queues(context);
    throw;
  }
}

void check_host_array(const void *data, size_t bytes, const char *name) {
  if (data == nullptr)
    fail(MQLCL_ERR_INVALID_PARAMETER, fmt::format("CLMatMul: {} is NULL", name));
  if (!host_range_fits(data, 0, bytes, 1))
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("CLMatMul: {}'s {} bytes overflow the address space", name, bytes));
}

int32_t matmul(int32_t buffer_a, int32_t buffer_b, int32_t buffer_c, int32_t element_type,
               int32_t precision, const void *a, const void *b, void *c, uint32_t m, uint32_t n,
               uint32_t k) {
  MatMul product;
  product.call = checked_gemm_call(buffer_a, buffer_b, buffer_c, element_type, precision, 0, 0, m,
                                   n, k, 1.0, 0.0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0);
  product.element_size = product.call.double_precision ? 8 : 4;
  // CLGemm may read A and B from one buffer; here both are written to its start.
  if (product.call.a.buffer->memory == product.call.b.buffer->memory)
    fail(MQLCL_ERR_INVALID_PARAMETER,
         "CLMatMul: A and B are one buffer; a and b would both be written to its start");
  check_host_array(a, product.a_bytes(), "a");
  check_host_array(b, product.b_bytes(), "b");
  check_host_array(c, product.c_bytes(), "c");
  product.a = static_cast<const char *>(a);
  product.b = static_cast<const char *>(b);
  product.c = static_cast<char *>(c);
  Context &context = *product.call.c.buffer->context;
  watching_device(*context.device, "CLMatMul", [&] {
    const Panels panels = panels_for(*context.device, m, n);
    const bool side_by_side = writes_side_by_side(context, product);
    // One panel overlaps nothing: the side queues' events would only cost time.
    if (!side_by_side && (panels.count == 1 || !staging_pays_off(context, product.c_bytes()))) {
      run_in_order(context, product);
      return;
    }
    std::lock_guard<std::mutex> lock(context.side_queues.mutex);
    ensure_side_queues(context);
    if (side_by_side)
      run_side_by_side(context, product);
    else
      run_pipelined(context, product, panels);
  });
  return 1;
}

} // namespace

extern "C" {

MQLCL_API int32_t CLMatMul(int32_t buffer_a, int32_t buffer_b, int32_t buffer_c,
                           int32_t element_type, int32_t precision, const void *a, const void *b,
                           void *c, uint32_t m, uint32_t n, uint32_t k) {
  return guarded(0, [&] {
    return matmul(buffer_a, buffer_b, buffer_c, element_type, precision, a, b, c, m, n, k);
  });
}

} // extern "C"
