// Owners: a program that declares itself one (CLOwnerCreate) gets handles that only threads
// acting for it can use or free, and frees all of them with one call (CLOwnerFree). A thread acts
// for at most one owner at a time (CLOwnerSelect); a thread that never selects one acts for
// none, owner 0, whose handles behave as they always did: callers who never declare ownership see
// no change.
#pragma once

#include <cstdint>

namespace mqlcl {

// The owner the calling thread acts for; 0 for none.
int32_t current_owner() noexcept;

// Throws Failure(MQLCL_ERR_OPENCL_NOT_OWNER) when the calling thread acts for an owner that has
// been freed meanwhile (by CLOwnerFree on another thread): it may create nothing more.
void check_current_owner_live();

} // namespace mqlcl
