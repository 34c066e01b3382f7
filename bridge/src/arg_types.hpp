// The size of a by-value kernel argument from its OpenCL C type name, as clGetKernelArgInfo's
// CL_KERNEL_ARG_TYPE_NAME gives it (no qualifiers, no whitespace; "uint" for "unsigned int").
#pragma once

#include "opencl.hpp"

#include <cstddef>
#include <string>

namespace mqlcl {

// Bytes of a scalar (char ... double, half), a vector of 2, 3, 4, 8 or 16 of them (a 3-vector is
// as large as a 4-vector), or size_t, ptrdiff_t, intptr_t, uintptr_t (the device's address
// bits); 0 for any other name: structs, unions, enums and typedef'd names, whose layout the
// driver alone knows.
size_t by_value_size(const std::string &type_name, cl_uint address_bits) noexcept;

} // namespace mqlcl
