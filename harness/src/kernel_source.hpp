// A kernel file's text as the OpenCL compiler gets it: its `#include "relative/path"` lines
// replaced by the files they name. The host resolves them, not the compiler (whose -I the library
// cannot use: it embeds its kernels and has no folder at run time, and a Windows path with spaces
// breaks -I). cmake/KernelIncludes.cmake does the same for the kernels compiled into the library
// and the MQL5 package; the two must agree (tests/harness/test_units.cpp, tests/mql5 check it).
#pragma once

#include <filesystem>
#include <string>

namespace mqlcl::replay {

// `text`, read from `file`, with each line of the form `#include "path"` (spaces around, and a
// `//` comment after, allowed) replaced by the text of `path`, relative to the folder of the file
// that includes it, its own includes inlined the same way. Each file goes in once: a second
// include of it, or an include of `file`, is replaced by nothing. Other lines, other #include
// forms (<...>) included, are kept as they are. Throws Error(bad_input) naming the including file
// and the missing one when an included file cannot be read.
std::string inline_kernel_includes(const std::string &text, const std::filesystem::path &file);

// The text of the kernel file `path`, its includes inlined; Error(bad_input) when it is missing.
std::string read_kernel_source(const std::filesystem::path &path);

} // namespace mqlcl::replay
