#include "arg_types.hpp"

#include <cstdlib>
#include <cstring>

namespace mqlcl {

namespace {

struct Scalar {
  const char *name;
  size_t size;
};

// The element types of OpenCL C's vectors, and so scalars too.
constexpr Scalar kElements[] = {{"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2},
                                {"int", 4},  {"uint", 4},  {"long", 8},  {"ulong", 8},
                                {"half", 2}, {"float", 4}, {"double", 8}};
// Scalars only, as a driver might still spell them.
constexpr Scalar kOtherScalars[] = {{"unsignedchar", 1},
                                    {"unsignedshort", 2},
                                    {"unsignedint", 4},
                                    {"unsigned", 4},
                                    {"unsignedlong", 8}};
constexpr const char *kPointerSized[] = {"size_t", "ptrdiff_t", "intptr_t", "uintptr_t"};

size_t element_size(const std::string &name) noexcept {
  for (const Scalar &element : kElements)
    if (name == element.name)
      return element.size;
  return 0;
}

size_t scalar_size(const std::string &name, cl_uint address_bits) noexcept {
  if (size_t size = element_size(name))
    return size;
  for (const Scalar &scalar : kOtherScalars)
    if (name == scalar.name)
      return scalar.size;
  for (const char *pointer_sized : kPointerSized)
    if (name == pointer_sized)
      return address_bits / 8;
  return 0;
}

// "float4" -> 16, "float3" -> 16 (a 3-vector is as large as a 4-vector); 0 when not a vector.
size_t vector_size(const std::string &name) noexcept {
  size_t digits = name.find_last_not_of("0123456789") + 1;
  if (digits == 0 || digits == name.size() || name.size() - digits > 2 || name[digits] == '0')
    return 0;
  size_t element = element_size(name.substr(0, digits));
  switch (std::atoi(name.c_str() + digits)) {
  case 2:
    return element * 2;
  case 3:
  case 4:
    return element * 4;
  case 8:
    return element * 8;
  case 16:
    return element * 16;
  default:
    return 0;
  }
}

} // namespace

size_t by_value_size(const std::string &type_name, cl_uint address_bits) noexcept {
  try {
    std::string name; // "unsigned int" as well as "unsignedint": whitespace carries nothing
    for (char c : type_name)
      if (c != ' ' && c != '\t' && c != '\n')
        name += c;
    if (size_t size = scalar_size(name, address_bits))
      return size;
    return vector_size(name);
  } catch (...) { // out of memory: unknown, so the driver's own check applies
    return 0;
  }
}

} // namespace mqlcl
