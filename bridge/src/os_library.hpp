// Loading a shared library and finding a symbol in it: one implementation per OS.
#pragma once

#include <string>

namespace mqlcl::os {

// Returns nullptr on failure and puts the system's reason into `error`.
void *open_library(const std::string &utf8_name, std::string &error) noexcept;
void *find_symbol(void *library, const char *name) noexcept;

// The OpenCL library names tried in order when MQLCL_OPENCL_LIBRARY is not set.
const char *const *default_opencl_library_names() noexcept;

// The CUDA driver's library name (libcuda.so.1, nvcuda.dll).
const char *cuda_driver_library_name() noexcept;

// Value of an environment variable, empty when unset.
std::string environment(const char *name);

} // namespace mqlcl::os
