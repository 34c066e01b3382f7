// The error boundary every export runs inside: whatever goes wrong below becomes the MQL5
// failure value and this thread's last error. No exception ever leaves the library.
#pragma once

#include "errors.hpp"

#include <mqlcl/mqlcl.h>

#include <new>

namespace mqlcl {

template <class Result, class Body> Result guarded(Result failure_value, Body &&body) noexcept {
  try {
    return body();
  } catch (const Failure &failure) {
    record_failure(failure.code(), failure.cl_status(), failure.message().c_str());
  } catch (const std::bad_alloc &) {
    record_failure(MQLCL_ERR_NOT_ENOUGH_MEMORY, CL_OUT_OF_HOST_MEMORY, "out of host memory");
  } catch (const std::exception &error) {
    record_failure(MQLCL_ERR_OPENCL_INTERNAL, CL_SUCCESS, error.what());
  } catch (...) {
    record_failure(MQLCL_ERR_OPENCL_INTERNAL, CL_SUCCESS, "unknown internal error");
  }
  return failure_value;
}

// For the void exports (the CL*Free functions): a failure only changes the last error.
template <class Body> void guarded_void(Body &&body) noexcept {
  guarded(0, [&] {
    body();
    return 0;
  });
}

} // namespace mqlcl
