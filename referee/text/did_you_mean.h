// "Did you mean ...?": the valid name nearest to a mistyped one, for unknown flags, commands,
// fields and enum values, so that a typo's message names the fix.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allfives::referee {

// The name of `names` nearest to `word`, if one is near enough to be what was meant: the
// fewest single-character edits (insert, delete, replace, swap two neighbours), letter case
// ignored, at most a third of the word's length (and at least 2). A name that ends with
// `word` after a prefix shared by every name (the FORMAT_ of FORMAT_TWO_PLAYERS) is compared
// without that prefix too, and a word of 4 or more characters may be the start of a longer name
// (one edit more). Ties go to the first name in `names`.
std::optional<std::string> nearest_name(std::string_view word,
                                        const std::vector<std::string>& names);

// "a, b or c" (or another last word: "a, b and c").
std::string name_list(const std::vector<std::string>& names, const char* last = "or");

}  // namespace allfives::referee
