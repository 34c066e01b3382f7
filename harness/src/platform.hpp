// The little the harness needs from the operating system, with a Windows and a POSIX branch.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

namespace mqlcl::replay {

// This executable's path (Boost.DLL's program_location, portable).
std::filesystem::path executable_path();

// Whether `stream` is a terminal (progress is shown only there).
bool is_terminal(std::FILE *stream);

// Why the operating system refuses to load `library` (dlerror() / FormatMessage()), for the
// message when Boost.DLL's load fails: Boost.DLL reports only "bad file descriptor".
std::string library_load_error(const std::filesystem::path &library);

// The stack threads get by default: RLIMIT_STACK's soft limit, or 2 MiB when it is unlimited
// (glibc's rule on x86-64, see pthread_create(3)), less what ThreadSanitizer takes of it in a
// tsan build; absent on Windows.
std::optional<uint64_t> default_thread_stack_bytes();

} // namespace mqlcl::replay
