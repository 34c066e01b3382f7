// CLBlast's SGEMM on the raw device, as an anchor.
#include "anchors_detail.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace mqlcl::replay {

AnchorResult RawDevice::clblast_sgemm(const GemmProblem &p, uint32_t repeat) {
  AnchorResult result;
  result.name = "CLBlast SGEMM";
  // CLBlast may run helper kernels (padding, transposes) before its main one and returns only
  // the last event, so the call is timed whole: until its queue is empty.
  result.timing = "steady_clock from CLBlastSgemm to clFinish of its queue, after one warm-up "
                  "call";
  if (!ok_) {
    result.note = why_not_;
    return result;
  }
  std::string tried;
  auto library = load_first({"libclblast.so.1", "libclblast.so", "clblast.dll"},
                            {environment("MQLCL_CLBLAST_LIBRARY_DIR")}, tried);
  if (!library) {
    result.note = "CLBlast is not installed (tried " + tried + ")";
    return result;
  }
  // The C API of clblast_c.h: layouts 101 row-major; transposes 111 no, 112 yes; 0 is success.
  using Sgemm = int(int, int, int, size_t, size_t, size_t, float, cl_mem, size_t, size_t, cl_mem,
                    size_t, size_t, float, cl_mem, size_t, size_t, cl_command_queue *, cl_event *);
  if (!library->has("CLBlastSgemm")) {
    result.note = "the CLBlast library lacks CLBlastSgemm";
    return result;
  }
  auto &sgemm = library->get<Sgemm>("CLBlastSgemm");
  result.note = library->location().string();

  const RawOpenCL &cl = *cl_;
  auto context = static_cast<cl_context>(context_);
  auto queue = static_cast<cl_command_queue>(queue_);
  RawBuffer a(cl, context, p.a->size() * 4), b(cl, context, p.b->size() * 4),
      c(cl, context, size_t{p.m} * p.n * 4);
  if (a.memory == nullptr || b.memory == nullptr || c.memory == nullptr) {
    result.note = "could not create the raw OpenCL buffers";
    return result;
  }
  cl.clEnqueueWriteBuffer(queue, a.memory, CL_TRUE, 0, p.a->size() * 4, p.a->data(), 0, nullptr,
                          nullptr);
  cl.clEnqueueWriteBuffer(queue, b.memory, CL_TRUE, 0, p.b->size() * 4, p.b->data(), 0, nullptr,
                          nullptr);
  // A row-major (lda K); B as stored is N x K row-major, so op(B) = B^T with ldb K; C ldc N.
  cl.clFinish(queue);
  for (uint32_t r = 0; r <= repeat; ++r) {
    cl_event event = nullptr;
    auto start = Clock::now();
    int status = sgemm(101, 111, 112, p.m, p.n, p.k, 1.0f, a.memory, 0, p.k, b.memory, 0, p.k, 0.0f,
                       c.memory, 0, p.n, &queue, &event);
    cl.clFinish(queue);
    double seconds = seconds_since(start);
    if (status != 0) {
      result.note = fmt::format("CLBlastSgemm failed with status {}", status);
      return result;
    }
    cl.clReleaseEvent(event);
    if (r > 0) // the first call compiles CLBlast's kernels
      result.seconds.values.push_back(seconds);
  }
  result.product.resize(size_t{p.m} * p.n);
  cl.clEnqueueReadBuffer(queue, c.memory, CL_TRUE, 0, result.product.size() * 4,
                         result.product.data(), 0, nullptr, nullptr);
  result.available = true;
  return result;
}

} // namespace mqlcl::replay
