#include "program_cache.hpp"

#include "cl_api.hpp"
#include "os_library.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <system_error>
#include <thread>

namespace mqlcl::program_cache {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "MQLCLPC1";
// An entry larger than this is not read (a cache folder is not a place for gigabytes).
constexpr uint64_t kMaxEntryBytes = uint64_t{512} << 20;

uint64_t fnv1a(std::string_view bytes, uint64_t hash = 0xcbf29ce484222325ull) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

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

std::optional<std::string> read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size <= 0 || static_cast<uint64_t>(size) > kMaxEntryBytes)
    return std::nullopt;
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), size))
    return std::nullopt;
  return bytes;
}

// A name no other writer, in this process or another, picks at the same time.
std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t mix = std::random_device{}();
  mix = mix * 0x9E3779B97F4A7C15ull ^
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  mix ^= std::hash<std::thread::id>{}(std::this_thread::get_id()) + counter.fetch_add(1);
  return fmt::format(".tmp-{:016x}", mix);
}

// Writes `bytes` as `folder`/`name` through a file of its own renamed into place.
void write_atomically(const fs::path &folder, const std::string &name, const std::string &bytes) {
  std::error_code error;
  fs::create_directories(folder, error);
  const fs::path target = folder / name;
  const fs::path temporary = folder / (name + unique_suffix());
  bool written = false;
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    written =
        out && out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) && out.flush();
  }
  if (written) {
    // Windows refuses to replace a file that another thread or process has open or is renaming
    // into place: that writer's entry is as whole as ours, so ours goes. Removing the target to
    // retry could remove that entry and leave none (six threads writing one entry under Wine:
    // none left in 1 run of 10).
    fs::rename(temporary, target, error);
    written = !error;
  }
  if (!written)
    fs::remove(temporary, error);
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
  return fmt::format("{:016x}.bin", fnv1a(key));
}

std::string encode(const std::string &key, const Entry &entry) {
  std::string out(kMagic);
  put_field(out, key);
  put_field(out, entry.binary);
  put_field(out, entry.build_log);
  put_field(out, encode_args(entry.kernel_args));
  put_u64(out, fnv1a(out));
  return out;
}

std::optional<Entry> decode(std::string_view file, const std::string &key) {
  if (file.size() < kMagic.size() + 8 || file.substr(0, kMagic.size()) != kMagic)
    return std::nullopt;
  std::string_view body = file.substr(0, file.size() - 8);
  FieldReader checksum(file.substr(body.size()));
  if (checksum.u64() != fnv1a(body))
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

std::optional<Loaded> load(const Context &context, const std::string &key,
                           const std::string &options) noexcept {
  try {
    std::string where = folder(*context.device);
    if (where.empty())
      return std::nullopt;
    std::optional<std::string> file = read_file(fs::u8path(where) / file_name(key));
    std::optional<Entry> entry = file ? decode(*file, key) : std::nullopt;
    if (!entry)
      return std::nullopt;
    const ClApi &cl = cl_api();
    cl_device_id device = context.device->id;
    size_t length = entry->binary.size();
    auto *binary = reinterpret_cast<const unsigned char *>(entry->binary.data());
    cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
    Loaded loaded;
    loaded.program = cl.clCreateProgramWithBinary(context.context, 1, &device, &length, &binary,
                                                  &binary_status, &status);
    if (status == CL_SUCCESS && binary_status == CL_SUCCESS && loaded.program != nullptr) {
      status = cl.clBuildProgram(loaded.program, 1, &device, options.c_str(), nullptr, nullptr);
      if (status == CL_INVALID_BUILD_OPTIONS && !options.empty())
        status = cl.clBuildProgram(loaded.program, 1, &device, "", nullptr, nullptr);
      if (status == CL_SUCCESS) {
        loaded.build_log = std::move(entry->build_log);
        loaded.kernel_args = std::make_shared<const KernelArgs>(std::move(entry->kernel_args));
        return loaded;
      }
    }
    if (loaded.program != nullptr)
      cl.clReleaseProgram(loaded.program);
  } catch (...) {
  }
  return std::nullopt;
}

void store(const Context &context, const std::string &key, cl_program program,
           const std::string &build_log) noexcept {
  try {
    std::string where = folder(*context.device);
    if (where.empty())
      return;
    Entry entry;
    entry.binary = binary_of(program);
    if (entry.binary.empty())
      return;
    entry.build_log = build_log;
    entry.kernel_args = describe_kernels(program);
    write_atomically(fs::u8path(where), file_name(key), encode(key, entry));
  } catch (...) {
  }
}

cl_program build(const Context &context, std::string_view source, const std::string &options,
                 cl_int &status) {
  const std::string key = key_of(*context.device, options, source);
  if (std::optional<Loaded> loaded = load(context, key, options)) {
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

} // namespace mqlcl::program_cache
