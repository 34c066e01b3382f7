// The error model: internal code throws Failure; the boundary (boundary.hpp) turns it into
// MQL5's failure value plus this thread's last-error record. Nothing else crosses the C ABI.
#pragma once

#include "opencl.hpp"

#include <cstdint>
#include <exception>
#include <string>

namespace mqlcl {

// One failure: the MQL5 code (MQLCL_ERR_*), the raw OpenCL status behind it (CL_SUCCESS when
// the bridge refused the call before OpenCL saw it) and a message naming what failed.
class Failure : public std::exception {
public:
  Failure(int32_t code, std::string message, cl_int cl_status = CL_SUCCESS)
      : code_(code), cl_status_(cl_status), message_(std::move(message)) {}
  int32_t code() const noexcept { return code_; }
  cl_int cl_status() const noexcept { return cl_status_; }
  const std::string &message() const noexcept { return message_; }
  const char *what() const noexcept override { return message_.c_str(); }

private:
  int32_t code_;
  cl_int cl_status_;
  std::string message_;
};

[[noreturn]] void fail(int32_t code, std::string message, cl_int cl_status = CL_SUCCESS);

// Throws Failure(code) with "call: CL_NAME (n)" when status is not CL_SUCCESS.
void check_cl(cl_int status, const char *call, int32_t code);

// "CL_INVALID_VALUE", or "unknown OpenCL error N" (MQL5's wording for codes it does not know).
std::string cl_error_name(cl_int status);

// This thread's last failure, as CLGetLastError and CL_LAST_ERROR report it.
struct LastError {
  int32_t code = 0;
  cl_int cl_status = CL_SUCCESS;
  std::string message;
};
// The calling thread's record. Each thread's record is on the heap behind a native TLS slot
// (pthread key, Windows TLS index), never in a C++ thread_local with a destructor: glibc and
// MinGW keep a library loaded while a thread that built such an object lives, so dlclose or
// FreeLibrary would release nothing. When no slot or memory is left, the code and status are
// still kept (in trivially destructible thread_locals) and the message is lost.
int32_t last_error_code() noexcept;
cl_int last_error_cl_status() noexcept;
std::string last_error_message(); // "" when there is none
void reset_last_error() noexcept;
void record_failure(int32_t code, cl_int cl_status, const char *message) noexcept;
// Frees the calling thread's record (Windows: DllMain on DLL_THREAD_DETACH; elsewhere the
// pthread key's destructor does it as the thread ends). Every thread's record, and the TLS slot,
// go when the library unloads (process_state.hpp).
void release_thread_last_error() noexcept;

} // namespace mqlcl
