// One product of the library's CLGemm as an MQL5 program makes it: its inputs (the same values on
// every run), the fp64 product it is checked against, and the library's run of it (a fresh
// context, three buffers, a first call that builds, then timed calls). `gemm` times it against
// the anchors; `tune --gemm` times it with each parameter set it tries.
#pragma once

#include "anchors.hpp"
#include "bridge.hpp"
#include "runner.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::replay {

// FP32-accurate products also keep max |C - ref| / max |ref| within this.
constexpr double kAccurateError = 1e-5;

// max |C - ref| / max |ref|, and whether every element is within the precision's bound.
struct Checked {
  double error_ratio = 0;
  bool verified = false;
};

// The library's run: the first call timed on the host (the build included) and the plan it ran
// (CL_GEMM_PLAN), then `repeat` calls timed by CL_GEMM_EXECUTION_TIME; C as doubles.
struct LibraryRun {
  bool ok = false;
  std::string why_not;
  std::string plan;
  std::string passes; // of the last timed call: each kernel and its time (CL_GEMM_PASSES)
  // The first call and the read of C: on the first context, its programs built (or loaded, as the
  // program cache holds them), and on a second one, the cache holding what the first built.
  double first_call_seconds = 0, warm_first_call_seconds = 0;
  Samples seconds;
  std::vector<double> product;
};

// `count` values uniform in [-1, 1), drawn as doubles from mt19937(seed) and rounded to T: a
// product's inputs (seeds 1 and 2), the same for gemm and bench's host section.
template <class T> std::vector<T> random_values(size_t count, uint32_t seed);

// A context of its own with the three buffers of one product (A and B read-only, C read-write,
// packed), and the calls a program makes on them; each returns false with the bridge's last
// error set.
template <class T> class ProductOnDevice {
public:
  ProductOnDevice(const BridgeApi &cl, int32_t device, const GeneralGemm &g, int32_t precision);
  bool ok() const; // the context and the buffers were made
  int32_t context() const { return context_.get(); }
  bool write_a(const T *a) const;
  bool write_b(const T *b) const;
  bool write_inputs(const T *a, const T *b) const;  // ok(), then A and B
  bool call() const;                                // CLGemm: enqueues the product
  bool read(T *c) const;                            // waits for it
  bool mat_mul(const T *a, const T *b, T *c) const; // CLMatMul: all of it (NN, batch 1)
  // The call and the read of C into host_c, timed: on a context's first call, its build (or its
  // load from the program cache) included.
  std::optional<double> first_call(std::vector<T> &host_c) const;

private:
  const BridgeApi &cl_;
  GeneralGemm g_;
  int32_t precision_;
  Handle context_, a_, b_, c_;
};

// "4096x4096x4096 NN float accurate": a case's name in gemm's table (and what --cases matches).
std::string gemm_case_label(const GeneralGemm &shape, int32_t precision);

class GemmProduct {
public:
  // `shape` without its data: the inputs are made here (uniform in [-1, 1), seeds 1 and 2,
  // rounded to float for float products), and the reference with them.
  GemmProduct(const GeneralGemm &shape, int32_t precision);
  GemmProduct(const GemmProduct &) = delete;
  GemmProduct &operator=(const GemmProduct &) = delete;

  // The shape with its inputs (a, b) and, for TF32, cuBLAS's tensor-op math asked for.
  const GeneralGemm &shape() const { return shape_; }
  int32_t precision() const { return precision_; }
  double flops() const { return 2.0 * shape_.m * shape_.n * shape_.k * shape_.batch; }
  // "4096x4096x4096 NN float accurate"
  std::string label() const;

  // A product of these inputs checked as this precision must be: every element within the
  // bound of its arithmetic (TF32: against the product of the inputs rounded to TF32), and
  // FP32-accurate within kAccurateError overall. Its error ratio is max |C - ref| / max |ref|,
  // for a double product over up to 32 rows of each matrix against a reference summed in long
  // double (an FP64 reference's own error would be most of it).
  Checked check(const std::vector<double> &product) const;

  LibraryRun run_library(const Bridge &bridge, int32_t device, uint32_t repeat) const;

private:
  GeneralGemm shape_;
  int32_t precision_;
  // The largest |C - exact| over the rows exact_rows_ holds.
  double worst_on_exact_rows(const std::vector<double> &product) const;

  std::vector<double> a_, b_, reference_;
  std::vector<double> exact_rows_;     // double only: sampled rows of each product, in long double
  std::vector<double> tf32_reference_; // TF32 only: the product of the rounded inputs
  double tf32_tolerance_ = 0;
};

// One product through CLGemm as `bench` times it beside the steps: the problem's A by rows times
// B by columns, `precision` one of MQLCL_GEMM_*, `repeat` timed calls after a first that builds;
// the product is left to the caller to verify.
AnchorResult library_gemm(const Bridge &bridge, int32_t device, const GemmProblem &problem,
                          int32_t precision, uint32_t repeat);

} // namespace mqlcl::replay
