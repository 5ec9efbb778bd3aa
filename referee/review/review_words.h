// A review's decisions in words, for the terminal, the summaries and the pages: "best: 6-4
// right +7.2 ± 0.4 · played 5-0 left +1.1: mistake, −6.1 ± 0.5".
#pragma once

#include <string>

#include "allfives/v1/review.pb.h"

namespace allfives::referee {

// "6-4 right", or "6-4" for a hand's opening play (`opening`), whose end does not matter.
std::string play_words(const v1::Play& play, bool opening);
// "+7.2 ± 0.4", or "+7.2" when exact.
std::string value_words(double value, double se, bool exact);
// One line for a reviewed decision: the best play and the one made with their values, and
// the mark and the loss with its error when the play made was not the best.
std::string decision_words(const v1::ReviewDecision& d);

}  // namespace allfives::referee
