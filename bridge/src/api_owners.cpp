// CLOwnerCreate, CLOwnerSelect, CLOwnerFree: the owners themselves live in owners.cpp, their
// handles in the registry's tables (objects.hpp).
#include "boundary.hpp"
#include "objects.hpp"
#include "owners.hpp"

using namespace mqlcl;

namespace {

// Frees every object `owner` holds, children first, so parents go with their last child.
size_t release_owned(int32_t owner) {
  Registry &live = registry();
  auto kernels = live.kernels.take_owned(owner);
  auto buffers = live.buffers.take_owned(owner);
  auto programs = live.programs.take_owned(owner);
  auto contexts = live.contexts.take_owned(owner);
  size_t count = kernels.size() + buffers.size() + programs.size() + contexts.size();
  kernels.clear(); // the releases, in this order, outside the tables' locks
  buffers.clear();
  programs.clear();
  contexts.clear();
  return count;
}

} // namespace

extern "C" {

MQLCL_API int32_t CLOwnerCreate(void) {
  return guarded(-1, [] { return create_owner(); });
}

MQLCL_API int32_t CLOwnerSelect(int32_t owner) {
  return guarded(0, [&] {
    select_owner(owner, "CLOwnerSelect");
    return 1;
  });
}

MQLCL_API int32_t CLOwnerFree(int32_t owner) {
  return guarded(-1, [&] {
    // Retired first, under the owner's lock: a table then refuses a new object of this owner
    // (handle_table.hpp), so none is left behind by the take below.
    retire_owner(owner, "CLOwnerFree");
    return static_cast<int32_t>(release_owned(owner));
  });
}

} // extern "C"
