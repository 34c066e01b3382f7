// Whether an OpenCL build can read files other than its source text: what keeps the program
// cache from running stale code (program_cache.cpp). The cache keys an entry by the source, the
// options, the device and the driver; a header that the source #includes is none of those, so a
// build that can read one is never cached.
//
// Why not resolve the #includes and hash what they pull in: only the driver's own preprocessor
// knows which files a build reads (its search path, what a quoted name is relative to, #include
// of a macro, #if around an #include, -I folders), and a resolution that differs from it in any
// case runs stale code, the very failure the cache must not have. Keeping such builds out costs
// nothing but their cache hits; the project's own kernels with #include lines reach the driver
// with the included text inlined (harness/src/kernel_source.cpp, cmake/KernelIncludes.cmake), so
// they are cached.
#pragma once

#include <string_view>

namespace mqlcl::program_cache {

// True when `source` holds a directive that reads a file (#include, #include_next, #import,
// #embed, also spelled with %: or ??=, and across line splices and comments), __has_include or
// __has_embed, a #pragma or _Pragma("...") naming include, import, embed or module, or what the
// scan cannot read through (_Pragma of anything but a string literal, a raw string literal).
bool source_reads_files(std::string_view source);

// True when `options` can make the compiler read a file: -I, -include, -imacros, -isystem and
// the other -i options, -f and -X options (module maps, profiles, options for another tool),
// -- options, @response files, or anything naming include, import or embed.
bool options_read_files(std::string_view options);

} // namespace mqlcl::program_cache
