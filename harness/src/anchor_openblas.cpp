// OpenBLAS's cblas_sgemm and cblas_dgemm: the anchor on CPUs, and the CPU product MQL5's own
// matrix.MatMul runs.
#include "anchors_detail.hpp"

#include <fmt/format.h>

#include <optional>
#include <type_traits>

namespace mqlcl::replay {

namespace {

// cblas.h: CblasRowMajor 101, CblasNoTrans 111, CblasTrans 112.
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

} // namespace

template <class T>
AnchorResult openblas_gemm(uint32_t m, uint32_t n, uint32_t k, const T *a, const T *b,
                           bool b_transposed, T *c, uint32_t repeat, int threads) {
  constexpr bool is_double = std::is_same_v<T, double>;
  const char *function = is_double ? "cblas_dgemm" : "cblas_sgemm";
  AnchorResult result;
  result.name = fmt::format("OpenBLAS {} ({} threads)", is_double ? "dgemm" : "sgemm", threads);
  result.timing = fmt::format("steady_clock around {}, after one warm-up call", function);
  std::string tried;
  auto library = load_openblas(tried);
  if (!library || !library->has(function)) {
    result.note = "OpenBLAS is not installed (tried " + tried + ")";
    return result;
  }
  using Gemm = void(int, int, int, int, int, int, T, const T *, int, const T *, int, T, T *, int);
  auto &gemm = library->get<Gemm>(function);
  if (library->has("openblas_set_num_threads"))
    library->get<void(int)>("openblas_set_num_threads")(threads);
  result.note = library->location().string();
  if (library->has("openblas_get_config"))
    result.note += std::string(" (") + library->get<const char *()>("openblas_get_config")() + ")";
  for (uint32_t r = 0; r <= repeat; ++r) {
    auto start = Clock::now();
    gemm(kRowMajor, kNoTrans, b_transposed ? kTrans : kNoTrans, static_cast<int>(m),
         static_cast<int>(n), static_cast<int>(k), T(1), a, static_cast<int>(k), b,
         static_cast<int>(b_transposed ? k : n), T(0), c, static_cast<int>(n));
    double seconds = seconds_since(start);
    if (r > 0)
      result.seconds.values.push_back(seconds);
  }
  result.available = true;
  return result;
}

template AnchorResult openblas_gemm<float>(uint32_t, uint32_t, uint32_t, const float *,
                                           const float *, bool, float *, uint32_t, int);
template AnchorResult openblas_gemm<double>(uint32_t, uint32_t, uint32_t, const double *,
                                            const double *, bool, double *, uint32_t, int);

AnchorResult openblas_sgemm(const GemmProblem &p, uint32_t repeat, int threads) {
  std::vector<float> product(size_t{p.m} * p.n, 0.0f);
  AnchorResult result =
      openblas_gemm(p.m, p.n, p.k, p.a->data(), p.b->data(), true, product.data(), repeat, threads);
  if (result.available)
    result.product = std::move(product);
  return result;
}

} // namespace mqlcl::replay
