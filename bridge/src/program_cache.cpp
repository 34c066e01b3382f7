#include "program_cache.hpp"

#include "build_inputs.hpp"
#include "cl_api.hpp"
#include "os_library.hpp"
#include "private_folder.hpp"
#include "process_state.hpp"
#include "sha256.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>

namespace mqlcl::program_cache {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "MQLCLPC2";
// An entry larger than this is not read (a cache folder is not a place for gigabytes).
constexpr uint64_t kMaxEntryBytes = uint64_t{512} << 20;
// The entries of one folder take at most this much: past it, the least recently used go.
constexpr uint64_t kLimitBytes = uint64_t{256} << 20;
// A temporary file this old is a dead writer's (a write takes milliseconds).
constexpr std::chrono::hours kStaleTemporary{1};
// Builds of one key take turns under one of this many lock files, and a build waits at most
// kTurnWait for its turn: past it, it builds as if there were no cache.
constexpr unsigned kTurnLocks = 64;
constexpr std::chrono::seconds kTurnWait{120};

void put_u64(std::string &out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

void put_field(std::string &out, std::string_view field) {
  put_u64(out, field.size());
  out.append(field);
}

// Reads fields front to back; any read past the end makes the reader bad for good.
class FieldReader {
public:
  explicit FieldReader(std::string_view bytes) : bytes_(bytes) {}
  bool good() const { return good_; }
  size_t position() const { return position_; }
  uint64_t u64() {
    if (!good_ || bytes_.size() - position_ < 8) {
      good_ = false;
      return 0;
    }
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
      value |= uint64_t{static_cast<unsigned char>(bytes_[position_ + i])} << (8 * i);
    position_ += 8;
    return value;
  }
  std::string_view field() {
    uint64_t length = u64();
    if (!good_ || length > bytes_.size() - position_) {
      good_ = false;
      return {};
    }
    std::string_view value = bytes_.substr(position_, length);
    position_ += length;
    return value;
  }

private:
  std::string_view bytes_;
  size_t position_ = 0;
  bool good_ = true;
};

std::string encode_args(const KernelArgs &kernels) {
  std::string out;
  put_u64(out, kernels.by_name.size());
  for (const auto &[name, args] : kernels.by_name) {
    put_field(out, name);
    put_u64(out, args.size());
    for (const ArgInfo &arg : args) {
      put_u64(out, arg.address);
      put_u64(out, arg.access);
      put_field(out, arg.type_name);
    }
  }
  return out;
}

std::optional<KernelArgs> decode_args(std::string_view bytes) {
  FieldReader in(bytes);
  KernelArgs kernels;
  uint64_t count = in.u64();
  for (uint64_t k = 0; k < count && in.good(); ++k) {
    std::string name(in.field());
    uint64_t arg_count = in.u64();
    if (arg_count > bytes.size()) // each argument takes more than a byte
      return std::nullopt;
    std::vector<ArgInfo> args;
    for (uint64_t a = 0; a < arg_count && in.good(); ++a) {
      ArgInfo arg;
      arg.address = static_cast<uint32_t>(in.u64());
      arg.access = static_cast<uint32_t>(in.u64());
      arg.type_name = std::string(in.field());
      args.push_back(std::move(arg));
    }
    kernels.by_name[name] = std::move(args);
  }
  if (!in.good() || in.position() != bytes.size())
    return std::nullopt;
  return kernels;
}

// The argument information of each of the program's kernels that the driver describes.
KernelArgs describe_kernels(cl_program program) {
  const ClApi &cl = cl_api();
  KernelArgs kernels;
  size_t bytes = 0;
  if (cl.clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &bytes) != CL_SUCCESS)
    return kernels;
  std::string names(bytes, '\0');
  if (cl.clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, bytes, names.data(), nullptr) !=
      CL_SUCCESS)
    return kernels;
  std::istringstream list(names.c_str());
  for (std::string name; std::getline(list, name, ';');) {
    cl_int status = CL_SUCCESS;
    cl_kernel kernel = cl.clCreateKernel(program, name.c_str(), &status);
    if (status != CL_SUCCESS || kernel == nullptr)
      continue;
    cl_uint count = 0;
    std::vector<ArgInfo> args;
    bool described = cl.clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(count), &count,
                                        nullptr) == CL_SUCCESS;
    for (cl_uint i = 0; described && i < count; ++i) {
      ArgInfo arg;
      cl_kernel_arg_address_qualifier address = 0;
      cl_kernel_arg_access_qualifier access = 0;
      char type[256] = {};
      described = cl.clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(address),
                                        &address, nullptr) == CL_SUCCESS &&
                  cl.clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(access),
                                        &access, nullptr) == CL_SUCCESS &&
                  cl.clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_TYPE_NAME, sizeof(type) - 1, type,
                                        nullptr) == CL_SUCCESS;
      arg.address = static_cast<uint32_t>(address);
      arg.access = static_cast<uint32_t>(access);
      arg.type_name = type;
      args.push_back(std::move(arg));
    }
    if (!process_is_exiting())
      cl.clReleaseKernel(kernel);
    if (described)
      kernels.by_name[name] = std::move(args);
  }
  return kernels;
}

// The single binary of a program built for one device; empty when the driver gives none.
std::string binary_of(cl_program program) {
  const ClApi &cl = cl_api();
  size_t size = 0;
  if (cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) !=
          CL_SUCCESS ||
      size == 0 || size > kMaxEntryBytes)
    return {};
  std::string binary(size, '\0');
  auto *pointer = reinterpret_cast<unsigned char *>(binary.data());
  if (cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(pointer), &pointer, nullptr) !=
      CL_SUCCESS)
    return {};
  return binary;
}

// An entry's name: 32 hex digits (128 bits of the key's SHA-256) and ".bin".
bool is_entry_name(const std::string &name) {
  return name.size() == 36 && name.compare(32, 4, ".bin") == 0 &&
         name.find_first_not_of("0123456789abcdef") == 32;
}

bool is_temporary_name(const std::string &name) {
  return name.find(".tmp-") != std::string::npos;
}

int64_t now_nanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Keeps the folder's entries within kLimitBytes, the least recently used (loads touch theirs)
// going first, and removes dead writers' temporary files. Other files are left alone.
void evict(const os::PrivateFolder &folder) {
  std::vector<os::FolderFile> entries;
  uint64_t total = 0;
  const int64_t stale_before =
      now_nanoseconds() -
      std::chrono::duration_cast<std::chrono::nanoseconds>(kStaleTemporary).count();
  for (os::FolderFile &file : folder.files()) {
    if (is_entry_name(file.name)) {
      total += file.bytes;
      entries.push_back(std::move(file));
    } else if (is_temporary_name(file.name) && file.modified < stale_before) {
      folder.remove(file.name);
    }
  }
  if (total <= kLimitBytes)
    return;
  std::sort(entries.begin(), entries.end(), [](const os::FolderFile &a, const os::FolderFile &b) {
    return a.modified != b.modified ? a.modified < b.modified : a.name < b.name;
  });
  for (const os::FolderFile &entry : entries) {
    if (total <= kLimitBytes)
      break;
    folder.remove(entry.name);
    total -= entry.bytes;
  }
}

// Folders already noted in a build log (take_note), by path: each is noted once per process.
// Made by process_wide (process_state.hpp), as every set the bridge keeps.
struct NotedFolders {
  std::mutex mutex;
  std::set<std::string> paths;
};

NotedFolders &noted_folders() {
  static NotedFolders &instance = process_wide<NotedFolders>();
  return instance;
}

} // namespace

std::string folder(const Device &device) {
  std::string chosen = os::environment("MQLCL_PROGRAM_CACHE");
  if (chosen == "off" || chosen == "0")
    return {};
  if (!chosen.empty())
    return chosen;
  // PoCL keeps a kernel cache of its own, and its program binaries cost a compile of every
  // kernel to make: by default the bridge keeps none for it.
  if (device.platform_name == "Portable Computing Language")
    return {};
  std::string base = os::default_cache_folder();
  return base.empty() ? std::string() : (fs::u8path(base) / "programs").u8string();
}

std::string key_of(const Device &device, std::string_view options, std::string_view source) {
  if (options_read_files(options) || source_reads_files(source))
    return {};
  std::string platform_version;
  try {
    platform_version = platform_info_string(device.platform, CL_PLATFORM_VERSION);
  } catch (const Failure &) {
  }
  return fmt::format("mqlcl {}.{}.{} program cache\nplatform: {} | {} | {}\ndevice: {} | {} | "
                     "vendor id {} | cc {} | driver {} | address bits {}\noptions: {}\nsource:\n{}",
                     MQLCL_VERSION_MAJOR, MQLCL_VERSION_MINOR, MQLCL_VERSION_PATCH,
                     device.platform_name, device.platform_vendor, platform_version, device.name,
                     device.vendor, device.vendor_id, device.compute_capability,
                     device.driver_version, device.address_bits, options, source);
}

std::string file_name(const std::string &key) {
  return to_hex(sha256(key)).substr(0, 32) + ".bin";
}

std::string encode(const std::string &key, const Entry &entry) {
  std::string out(kMagic);
  put_field(out, key);
  put_field(out, entry.binary);
  put_field(out, entry.build_log);
  put_field(out, encode_args(entry.kernel_args));
  const Sha256Digest digest = sha256(out);
  out.append(digest.begin(), digest.end());
  return out;
}

std::optional<Entry> decode(std::string_view file, const std::string &key) {
  constexpr size_t kDigestBytes = sizeof(Sha256Digest);
  if (file.size() < kMagic.size() + kDigestBytes || file.substr(0, kMagic.size()) != kMagic)
    return std::nullopt;
  std::string_view body = file.substr(0, file.size() - kDigestBytes);
  const Sha256Digest digest = sha256(body);
  if (file.substr(body.size()) !=
      std::string_view(reinterpret_cast<const char *>(digest.data()), digest.size()))
    return std::nullopt;
  FieldReader in(body.substr(kMagic.size()));
  std::string_view stored_key = in.field();
  Entry entry;
  entry.binary = std::string(in.field());
  entry.build_log = std::string(in.field());
  std::string_view args = in.field();
  if (!in.good() || in.position() != body.size() - kMagic.size() || stored_key != key ||
      entry.binary.empty())
    return std::nullopt;
  std::optional<KernelArgs> kernels = decode_args(args);
  if (!kernels)
    return std::nullopt;
  entry.kernel_args = std::move(*kernels);
  return entry;
}

namespace {

// `key`'s whole entry in the cache folder, if there is one (the driver may still refuse it).
std::optional<Entry> read_entry(const Context &context, const std::string &key) {
  if (key.empty())
    return std::nullopt;
  const os::PrivateFolder cache(folder(*context.device), false); // a read makes no folder
  std::optional<std::string> file = cache.read(file_name(key), kMaxEntryBytes);
  return file ? decode(*file, key) : std::nullopt;
}

// The program of `entry`'s binary, built by the driver; nothing when the driver refuses it.
std::optional<Loaded> load_entry(const Context &context, const std::string &key, Entry &entry,
                                 const std::string &options) {
  const ClApi &cl = cl_api();
  cl_device_id device = context.device->id;
  size_t length = entry.binary.size();
  auto *binary = reinterpret_cast<const unsigned char *>(entry.binary.data());
  cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
  Loaded loaded;
  loaded.program = cl.clCreateProgramWithBinary(context.context, 1, &device, &length, &binary,
                                                &binary_status, &status);
  if (status == CL_SUCCESS && binary_status == CL_SUCCESS && loaded.program != nullptr) {
    status = cl.clBuildProgram(loaded.program, 1, &device, options.c_str(), nullptr, nullptr);
    if (status == CL_INVALID_BUILD_OPTIONS && !options.empty())
      status = cl.clBuildProgram(loaded.program, 1, &device, "", nullptr, nullptr);
    if (status == CL_SUCCESS) {
      // Recently used: the last to be evicted.
      os::PrivateFolder(folder(*context.device), false).touch(file_name(key));
      loaded.build_log = std::move(entry.build_log);
      loaded.kernel_args = std::make_shared<const KernelArgs>(std::move(entry.kernel_args));
      return loaded;
    }
  }
  if (loaded.program != nullptr)
    cl.clReleaseProgram(loaded.program);
  return std::nullopt;
}

} // namespace

std::optional<Loaded> load(const Context &context, const std::string &key,
                           const std::string &options) noexcept {
  try {
    if (std::optional<Entry> entry = read_entry(context, key))
      return load_entry(context, key, *entry, options);
  } catch (...) {
  }
  return std::nullopt;
}

void store(const Context &context, const std::string &key, cl_program program,
           const std::string &build_log) noexcept {
  try {
    if (key.empty())
      return;
    const os::PrivateFolder cache(folder(*context.device));
    if (!cache.usable())
      return;
    Entry entry;
    entry.binary = binary_of(program);
    if (entry.binary.empty())
      return;
    entry.build_log = build_log;
    entry.kernel_args = describe_kernels(program);
    const std::string bytes = encode(key, entry);
    if (bytes.size() <= kLimitBytes && cache.write_atomically(file_name(key), bytes))
      evict(cache);
  } catch (...) {
  }
}

cl_program build(const Context &context, std::string_view source, const std::string &options,
                 cl_int &status) {
  const std::string key = key_of(*context.device, options, source);
  std::optional<BuildTurn> turn;
  if (std::optional<Loaded> loaded = load_or_take_turn(context, key, options, turn)) {
    status = CL_SUCCESS;
    return loaded->program;
  }
  const ClApi &cl = cl_api();
  const char *text = source.data();
  size_t length = source.size();
  cl_program program = cl.clCreateProgramWithSource(context.context, 1, &text, &length, &status);
  if (status != CL_SUCCESS)
    return program;
  cl_device_id device = context.device->id;
  status = cl.clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  if (status == CL_SUCCESS)
    store(context, key, program, std::string());
  return program;
}

BuildTurn::BuildTurn(const Context &context, const std::string &key) noexcept {
  try {
    if (key.empty())
      return;
    const os::PrivateFolder cache(folder(*context.device));
    lock_ = cache.lock(fmt::format("build-{:02x}.lock", sha256(key)[0] % kTurnLocks), kTurnWait);
  } catch (...) {
  }
}

BuildTurn::~BuildTurn() {
  os::unlock_file(lock_);
}

std::optional<Loaded> load_or_take_turn(const Context &context, const std::string &key,
                                        const std::string &options,
                                        std::optional<BuildTurn> &turn) noexcept {
  try {
    if (key.empty())
      return std::nullopt;
    std::optional<Entry> entry = read_entry(context, key);
    if (!entry) {
      turn.emplace(context, key);
      // The turn's last holder may have stored it: then the turn goes before the load, so those
      // who waited load at once, side by side.
      entry = read_entry(context, key);
      if (!entry)
        return std::nullopt;
      turn.reset();
    }
    if (std::optional<Loaded> loaded = load_entry(context, key, *entry, options))
      return loaded;
    if (!turn)
      turn.emplace(context, key); // an entry the driver refused: rebuilt in turn
  } catch (...) {
  }
  return std::nullopt;
}

std::string take_note(const Device &device) {
  const std::string where = folder(device);
  if (where.empty())
    return {};
  const os::PrivateFolder cache(where, false);
  if (cache.state() != os::PrivateFolder::State::unsafe)
    return {};
  NotedFolders &noted = noted_folders();
  std::lock_guard<std::mutex> lock(noted.mutex);
  if (!noted.paths.insert(where).second)
    return {};
  return fmt::format("mqlcl: the program cache folder {} {}, so it is not used: programs are "
                     "built from source (noted once per process)\n",
                     where, cache.refusal());
}

} // namespace mqlcl::program_cache
