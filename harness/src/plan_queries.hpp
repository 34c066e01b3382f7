// What the library's CLGemm plans for a product on a device, asked of the library's own planner
// (bridge/src/gemm/planner.hpp, compiled into the harness): step 14's replay and the tuner start
// from it without running a product to learn it.
#pragma once

#include "catalogue.hpp"
#include "gemm/planner.hpp"

#include <mqlcl/mqlcl.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::replay {

// The tuning file's path (gemm::tuning_file_path over the process's environment).
std::filesystem::path tuning_cache_path();

// The sets of the tuning file at `cache`, read strictly: Error(bad_input) where it is not the
// tuner's.
std::vector<gemm::TunedEntry> read_tuning_file(const std::filesystem::path &cache);
// The same of the tuning file at tuning_cache_path().
std::vector<gemm::TunedEntry> tuned_sets();

// What the tuned sets' lookup knows of `device`.
gemm::DeviceFacts facts_of(const DeviceCaps &device);

// Where a plan's tuned set may come from: the tuning file, then the compiled database (as CLGemm
// looks), or the database alone.
enum class TunedSources { cache_and_database, database };

// The plan CLGemm makes on `device` for a product of `shape` with A and B in `layout` ("NN" ...
// "TT") and `precision` (MQLCL_GEMM_*): the tuning file's set (read strictly), else the compiled
// database's, else the defaults, in the form the precision runs on the device; an exact product in
// `forced`'s family where one is given (MQLCL_GEMM_KERNEL). With TunedSources::database, the plan
// as if the tuning file were empty. Step 19's TMA is the one the bridge picks for packed operands
// (gemm::fp64_tma_for_call).
gemm::Plan planned_product(const DeviceCaps &device, const gemm::Shape &shape,
                           const std::string &layout, int32_t precision,
                           std::optional<gemm::Family> forced = std::nullopt,
                           TunedSources sources = TunedSources::cache_and_database);

// "FILE NAME=value ...", a plan's kernel and set as CL_GEMM_PLAN begins: what a run that took
// the plan reports before its origin.
std::string plan_set_text(const gemm::Plan &plan);

} // namespace mqlcl::replay
