// Owners: a program that declares itself one (CLOwnerCreate) gets handles that only threads
// acting for it can use or free, and frees all of them with one call (CLOwnerFree). A thread acts
// for at most one owner at a time (CLOwnerSelect); a thread that never selects one acts for
// none, owner 0, whose handles behave as they always did: callers who never declare ownership see
// no change. This file keeps the owners themselves; the handle tables (handle_table.hpp) record
// whose each handle is, and api_owners.cpp frees an owner's handles.
#pragma once

#include <cstdint>

namespace mqlcl {

// The owner the calling thread acts for; 0 for none.
int32_t current_owner() noexcept;

// Throws Failure(MQLCL_ERR_OPENCL_NOT_OWNER) when the calling thread acts for an owner that has
// been freed meanwhile (by CLOwnerFree on another thread): it may create nothing more.
void check_current_owner_live();

// Makes a new owner, a random id > 0, and has the calling thread act for it.
int32_t create_owner();

// Has the calling thread act for `owner` (0: for none). Throws Failure(NOT_OWNER), naming
// `function`, when `owner` is not live.
void select_owner(int32_t owner, const char *function);

// Ends `owner`: no thread may create anything for it from now on, and the calling thread, when
// it acts for it, acts for none. Throws Failure(NOT_OWNER), naming `function`, when `owner` is
// not live. The owner's handles are the caller's to free.
void retire_owner(int32_t owner, const char *function);

} // namespace mqlcl
