// The program binary cache on disk (docs/api.md, "The program cache"): a program built once for a
// device and driver is loaded from its binary on the next start. Each entry is one file named by
// a hash of its key and holding the whole key (source, build options, device, driver, bridge
// version), so a load never trusts what it did not compare: a missing, corrupt, truncated or
// foreign entry, or one the driver refuses, is a miss, and the caller builds from source and
// stores the result again. Writes go to a file of their own and are renamed into place, so
// processes filling the cache at once never see half an entry; a folder that cannot be written
// only means no entry is kept.
#pragma once

#include "objects.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mqlcl::program_cache {

// What clGetKernelArgInfo said of one argument when the program was built from source. Kept with
// the entry because some drivers (NVIDIA's) have no argument information for a binary build.
struct ArgInfo {
  uint32_t address = 0; // cl_kernel_arg_address_qualifier
  uint32_t access = 0;  // cl_kernel_arg_access_qualifier
  std::string type_name;
};
struct KernelArgs {
  std::map<std::string, std::vector<ArgInfo>> by_name;
};

struct Entry {
  std::string binary;
  std::string build_log;
  KernelArgs kernel_args; // kernels whose arguments the driver described
};

// The folder in use for `device`: MQLCL_PROGRAM_CACHE (a folder; "off" or "0" for none), else
// os::default_cache_folder()/programs, except on PoCL (none). Empty when the cache is off. Read
// at every build.
std::string folder(const Device &device);

// Everything a binary depends on, as text: the bridge's version, the device, platform and driver,
// the build options and the source.
std::string key_of(const Device &device, std::string_view options, std::string_view source);

// The file name of a key's entry: 16 hex digits of its hash and ".bin".
std::string file_name(const std::string &key);

// The bytes of an entry file, and back; decode gives nothing unless every length, the checksum
// and the whole key match.
std::string encode(const std::string &key, const Entry &entry);
std::optional<Entry> decode(std::string_view file, const std::string &key);

// A cache hit: a program built from the entry's binary on the context's device.
struct Loaded {
  cl_program program = nullptr; // built; the caller owns it
  std::string build_log;
  std::shared_ptr<const KernelArgs> kernel_args;
};

// Reads and builds `key`'s entry, building the binary with `options` (or none, where the driver
// refuses them for a binary). Nothing on a miss, whatever the reason. Never throws a Failure.
std::optional<Loaded> load(const Context &context, const std::string &key,
                           const std::string &options) noexcept;

// Stores the binary of the built `program` under `key`, with its log and its kernels' argument
// information; a failure of any kind leaves the cache as it was. Never throws.
void store(const Context &context, const std::string &key, cl_program program,
           const std::string &build_log) noexcept;

// For builds that need no more than a program (the GEMM's): the program of `source` built with
// `options`, from the cache or from source (then stored). On a failed source build, returns the
// program with `status` set, so the caller can read its log; else status is CL_SUCCESS.
cl_program build(const Context &context, std::string_view source, const std::string &options,
                 cl_int &status);

} // namespace mqlcl::program_cache
