#include "match/match_result.h"

#include <algorithm>
#include <cctype>

namespace allfives::referee {

std::string describe(v1::FaultKind kind) {
  if (!v1::FaultKind_IsValid(kind)) return "unknown";
  std::string word = v1::FaultKind_Name(kind);
  const std::string prefix = "FAULT_KIND_";
  if (word.rfind(prefix, 0) == 0) word.erase(0, prefix.size());
  std::transform(word.begin(), word.end(), word.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  return word;
}

void placements(std::span<const int> scores, int faulting_side, std::span<int> place) {
  const int n = static_cast<int>(scores.size());
  for (int a = 0; a < n; ++a) {
    if (a == faulting_side) {
      place[a] = n;
      continue;
    }
    place[a] = 1;
    for (int b = 0; b < n; ++b)
      if (b != a && b != faulting_side && scores[b] > scores[a]) ++place[a];
  }
}

std::vector<int> placements(const std::vector<int>& scores, int faulting_side) {
  std::vector<int> place(scores.size(), 1);
  placements(scores, faulting_side, place);
  return place;
}

}  // namespace allfives::referee
