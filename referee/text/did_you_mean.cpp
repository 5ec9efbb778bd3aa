#include "text/did_you_mean.h"

#include <algorithm>
#include <cctype>

namespace allfives::referee {
namespace {

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Optimal string alignment distance, letter case ignored.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The prefix every name shares up to and including its last '_' ("FORMAT_"), or "".
size_t shared_prefix(const std::vector<std::string>& names) {
  if (names.size() < 2) return 0;
  size_t n = names[0].size();
  for (const std::string& name : names) {
    size_t i = 0;
    while (i < n && i < name.size() && name[i] == names[0][i]) ++i;
    n = i;
  }
  const size_t underscore = names[0].rfind('_', n == 0 ? 0 : n - 1);
  return n == 0 || underscore == std::string::npos ? 0 : underscore + 1;
}

}  // namespace

std::optional<std::string> nearest_name(std::string_view word,
                                        const std::vector<std::string>& names) {
  const size_t prefix = shared_prefix(names);
  const size_t allowed = std::max<size_t>(2, word.size() / 3);
  std::optional<std::string> best;
  size_t best_distance = allowed + 1;
  for (const std::string& name : names) {
    size_t d = edit_distance(word, name);
    if (prefix > 0) d = std::min(d, edit_distance(word, std::string_view(name).substr(prefix)));
    // The start of a long name, mistyped ("--moev" for "--move-time-ms"), ranks after a whole one.
    if (word.size() >= 4 && name.size() > word.size())
      d = std::min(d, edit_distance(word, std::string_view(name).substr(0, word.size())) + 1);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

std::string name_list(const std::vector<std::string>& names, const char* last) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? std::string(" ") + last + " " : std::string(", ");
    out += names[i];
  }
  return out;
}

}  // namespace allfives::referee
