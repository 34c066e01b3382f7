// The program binary cache on disk (docs/api.md, "The program cache"): a program built once for a
// device and driver is loaded from its binary on the next start. Each entry is one file named by
// a hash of its key and holding the whole key (source, build options, device, driver, bridge
// version) and a SHA-256 of it all, so a load never trusts what it did not compare: a missing,
// corrupt, truncated or foreign entry, or one the driver refuses, is a miss, and the caller
// builds from source and stores the result again. A build that can read other files (#include,
// -I: build_inputs.hpp) has no key and is never cached, so a changed header is never stale.
//
// The trust model: an entry is code the device will run, so the cache lives only in a folder no
// one else can write (private_folder.hpp: on POSIX made 0700, refused when another user owns it
// or others may write it, entries 0600, no link or FIFO followed); a refused folder means no
// cache and a note in one build log (take_note). The SHA-256 finds damage, not malice: anyone
// who can write the folder can recompute it, which is why the folder's owner and mode are what
// keeps others out.
//
// Writes go to a file of their own and are renamed into place, so processes filling the cache at
// once never see half an entry; a folder that cannot be written only means no entry is kept. The
// entries of a folder take at most 256 MiB: past it, the least recently used go. Processes and
// threads building one program at once take turns (BuildTurn): one builds, the others load.
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
// the build options and the source. Empty when the build can read other files (build_inputs.hpp):
// an empty key is never loaded nor stored.
std::string key_of(const Device &device, std::string_view options, std::string_view source);

// The file name of a key's entry: 32 hex digits of its SHA-256 and ".bin".
std::string file_name(const std::string &key);

// The bytes of an entry file, and back; decode gives nothing unless the magic, every length, the
// SHA-256 of the rest and the whole key match.
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

// A turn at building one key, across the threads and processes that share the cache folder:
// held from construction (waiting at most 120 s for another holder; past that, or without a
// cache folder, as on PoCL by default, it holds nothing) to destruction. Builds of one program at
// once so build it once, and a driver's own cache is never written by one process while another
// reads it back (PoCL's cache races so, and the build fails).
class BuildTurn {
public:
  BuildTurn(const Context &context, const std::string &key) noexcept;
  ~BuildTurn();
  BuildTurn(const BuildTurn &) = delete;
  BuildTurn &operator=(const BuildTurn &) = delete;

private:
  void *lock_ = nullptr;
};

// load, and with no entry takes `key`'s turn: when the turn's previous holder stored the entry,
// lets the turn go and loads it. On a miss (no entry, or one the driver refused) `turn` holds the
// turn: the caller builds, stores, then drops it.
std::optional<Loaded> load_or_take_turn(const Context &context, const std::string &key,
                                        const std::string &options,
                                        std::optional<BuildTurn> &turn) noexcept;

// Once per process and folder, when `device`'s cache folder is refused as unsafe: a line for the
// build log that says so and why. Empty otherwise.
std::string take_note(const Device &device);

// For builds that need no more than a program (the GEMM's): the program of `source` built with
// `options`, from the cache or from source (then stored). On a failed source build, returns the
// program with `status` set, so the caller can read its log; else status is CL_SUCCESS. Takes
// the key's turn on a miss.
cl_program build(const Context &context, std::string_view source, const std::string &options,
                 cl_int &status);

} // namespace mqlcl::program_cache
