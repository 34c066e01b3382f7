#pragma once
// The host side of a staged transfer (staging.cpp): copies between a program's array and the
// context's pinned staging memory, which the copy engine reads or fills while the CPU moves on.
#include <cstddef>

namespace mqlcl {

// Copies `bytes` from `source` to `target` (which do not overlap) with non-temporal stores where
// the CPU has them (SSE2: every x86-64): the target's lines are written without first being read
// into the caches, which a cached copy must do, so one pass moves a third less memory. Ends with
// a store fence, so the copy engine sees every byte once this returns. Elsewhere, memcpy.
void copy_streaming(void *target, const void *source, size_t bytes) noexcept;

// Which copies of a staged transfer stream: MQLCL_STAGING_COPY, read once per process, for
// measuring a host. "auto" (the default): a read's copies into the program's array, not a
// write's into the pinned memory. On an H200's host (driver 580.159.04, 16 threads, two runs
// each way) streaming took a 256 MiB read from 8.7-10.2 ms to 6.7-7.0, and slowed a 256 MiB
// write from 6.2-8.6 ms to 9.2-9.9. "stream": both; "memcpy": neither.
enum class StagingCopy { automatic, streaming, cached };
StagingCopy staging_copy() noexcept;

// One chunk of a staged write (into the pinned memory) or read (out of it), copied the
// process's way.
void copy_for_staged_write(void *pinned, const void *source, size_t bytes) noexcept;
void copy_for_staged_read(void *target, const void *pinned, size_t bytes) noexcept;

} // namespace mqlcl
