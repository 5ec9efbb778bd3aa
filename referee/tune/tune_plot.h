// Each tuned parameter's path over a tune as an SVG picture (OUT/tune.svg, shown by
// `referee serve`): one line per parameter, its value scaled to its [min, max].
#pragma once

#include <string>
#include <vector>

#include "allfives/v1/tune.pb.h"
#include "tune/tune_file.h"

namespace allfives::referee {

std::string tune_svg(const TuneDef& d, const std::vector<v1::TuneIteration>& done);

}  // namespace allfives::referee
