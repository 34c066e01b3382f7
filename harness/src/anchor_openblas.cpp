// OpenBLAS's cblas_sgemm, the anchor on CPUs.
#include "anchors_detail.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace mqlcl::replay {

AnchorResult openblas_sgemm(const GemmProblem &p, uint32_t repeat, int threads) {
  AnchorResult result;
  result.name = fmt::format("OpenBLAS sgemm ({} threads)", threads);
  result.timing = "steady_clock around cblas_sgemm, after one warm-up call";
  std::string tried;
  auto library = load_first({"libopenblas.so.0", "libopenblas.so", "libopenblas.dll"}, {}, tried);
  if (!library || !library->has("cblas_sgemm")) {
    result.note = "OpenBLAS is not installed (tried " + tried + ")";
    return result;
  }
  // cblas.h: CblasRowMajor 101, CblasNoTrans 111, CblasTrans 112.
  using Sgemm = void(int, int, int, int, int, int, float, const float *, int, const float *, int,
                     float, float *, int);
  auto &sgemm = library->get<Sgemm>("cblas_sgemm");
  if (library->has("openblas_set_num_threads"))
    library->get<void(int)>("openblas_set_num_threads")(threads);
  result.note = library->location().string();
  if (library->has("openblas_get_config"))
    result.note += std::string(" (") + library->get<const char *()>("openblas_get_config")() + ")";
  result.product.assign(size_t{p.m} * p.n, 0.0f);
  for (uint32_t r = 0; r <= repeat; ++r) {
    auto start = Clock::now();
    sgemm(101, 111, 112, static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), 1.0f,
          p.a->data(), static_cast<int>(p.k), p.b->data(), static_cast<int>(p.k), 0.0f,
          result.product.data(), static_cast<int>(p.n));
    double seconds = seconds_since(start);
    if (r > 0)
      result.seconds.values.push_back(seconds);
  }
  result.available = true;
  return result;
}

} // namespace mqlcl::replay
