// The replay catalogue: each step of the article as data (step.hpp says what a step is made of).
// The runner (runner.hpp) has one code path for all of them; a new step is a new entry here, plus
// at most a small geometry function (launch_shapes.cpp) and its rules (step_rules.hpp).
#pragma once

#include "step.hpp"
#include "step_rules.hpp"

#include <string_view>
#include <vector>

namespace mqlcl::replay {

// The article's ten scripts in its order, the fixed col_local, then the steps beyond the article.
const std::vector<Step> &replay_steps();
const Step *find_step(const std::vector<Step> &steps, std::string_view name);

// A step of one of CLGemm's kernel forms alone, for the tuner: named as the form's sets are tuned
// (gemm::step_of), with the form's kernel file, defaults, tunables and rules. The Ozaki scheme's
// integer products are tuned so; the replay runs no such step.
Step form_step(gemm::Family family);

} // namespace mqlcl::replay
