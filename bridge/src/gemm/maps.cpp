#include "gemm/maps.hpp"

#include "cl_api.hpp"
#include "errors.hpp"
#include "gemm/runtime.hpp"
#include "tensor_maps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace mqlcl::gemm {

namespace {

constexpr uint64_t kMapBytes = 128;        // one CUtensorMap
constexpr uint64_t kProductMapBytes = 256; // A's map, then B's, per product of the batch

size_t element_size_of(TensorElement element) {
  return element == TensorElement::float64 ? 8 : 4;
}

// `map`'s maps, one per product of the batch, at `slot` (0 A, 1 B) of each product's 256 bytes.
void encode_maps(Context &context, const OperandMap &map, uint32_t batch, size_t slot,
                 std::vector<uint64_t> &words) {
  TensorMapRequest request = map.request;
  request.pci_bus = pci_bus(*context.device);
  const Lines &lines = *map.lines;
  const uint64_t base = device_address(context, lines.memory);
  const size_t element = element_size_of(request.element);
  for (uint32_t product = 0; product < batch; ++product) {
    request.address = base + (lines.offset + product * lines.stride) * element;
    const std::array<uint64_t, 16> encoded = encode_tensor_map(request, "CLGemm");
    std::copy(encoded.begin(), encoded.end(),
              words.begin() + product * (kProductMapBytes / 8) + slot * (kMapBytes / 8));
  }
}

// What one operand's maps depend on: the memory and its layout (for a scratch copy, the scratch
// buffer's generation too), the map's matrix, box and element type.
std::string map_key(const ContextState &state, const OperandMap &map) {
  const Lines &lines = *map.lines;
  const TensorMapRequest &r = map.request;
  return fmt::format(
      "{}:{}:{}:{}:{}:{} {}x{}/{} {}x{} s{} e{}", static_cast<const void *>(lines.memory),
      lines.offset, lines.ld, lines.stride, lines.lines,
      lines.copied ? state.scratch_generation[static_cast<size_t>(map.slot)] : 0, r.rows, r.cols,
      r.row_pitch, r.box_rows, r.box_cols, r.swizzle, static_cast<int>(r.element));
}

// The kept maps of `key`, where the buffers they point into still live; else null.
cl_mem kept(ContextState &state, const std::string &key) {
  const auto found = state.maps.find(key);
  if (found == state.maps.end())
    return nullptr;
  bool alive = true;
  for (const auto &owner : found->second.owners)
    alive = alive && !owner.expired();
  state.maps_order.remove(key);
  if (alive) {
    state.maps_order.push_back(key);
    return found->second.memory;
  }
  release_memory(found->second.memory);
  state.maps.erase(found);
  return nullptr;
}

} // namespace

std::string tensor_maps_missing(const ContextState &state) {
  return state.maps_refused.empty() ? tensor_maps_unavailable() : state.maps_refused;
}

bool rows_aligned(const Lines &lines, uint32_t batch, size_t element_size) {
  const uint64_t per_16 = 16 / element_size;
  return lines.ld % per_16 == 0 && lines.offset % per_16 == 0 &&
         (batch == 1 || lines.stride % per_16 == 0);
}

cl_mem kept_maps(Context &context, ContextState &state, const Call &call, const OperandMap *a,
                 const OperandMap *b) {
  const std::string key = fmt::format("{}|{}|{}", a ? map_key(state, *a) : "-",
                                      b ? map_key(state, *b) : "-", call.batch);
  if (cl_mem memory = kept(state, key))
    return memory;
  std::vector<uint64_t> words(call.batch * kProductMapBytes / 8, 0);
  const OperandMap *operands[] = {a, b};
  for (size_t slot = 0; slot < 2; ++slot)
    if (operands[slot] != nullptr)
      encode_maps(context, *operands[slot], call.batch, slot, words);
  cl_int status = CL_SUCCESS;
  KeptMaps maps;
  maps.memory = cl_api().clCreateBuffer(context.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                        words.size() * 8, words.data(), &status);
  check_cl(status, "CLGemm: clCreateBuffer for the tensor maps", MQLCL_ERR_OPENCL_BUFFER_CREATE);
  for (const OperandMap *map : operands)
    if (map != nullptr && !map->lines->copied)
      maps.owners.push_back(map->lines->operand->buffer);
  if (state.maps.size() >= kMaxKeptMaps) {
    release_memory(state.maps[state.maps_order.front()].memory);
    state.maps.erase(state.maps_order.front());
    state.maps_order.pop_front();
  }
  state.maps[key] = maps;
  state.maps_order.push_back(key);
  return maps.memory;
}

} // namespace mqlcl::gemm
