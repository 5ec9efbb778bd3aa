#include "tournament/gauntlet.h"

#include <algorithm>
#include <map>

namespace allfives::referee {
namespace {

// Every k-combination of `items` (in increasing order each).
void combinations(const std::vector<int>& items, size_t k, std::vector<int>& current, size_t from,
                  std::vector<std::vector<int>>& out) {
  if (current.size() == k) {
    out.push_back(current);
    return;
  }
  for (size_t i = from; i < items.size(); ++i) {
    current.push_back(items[i]);
    combinations(items, k, current, i + 1, out);
    current.pop_back();
  }
}

}  // namespace

bool read_candidates(TournamentDef& t, const FieldLocator& at, std::string& why) {
  const v1::Tournament& p = t.proto;
  std::map<std::string, int> index;
  for (int i = 0; i < p.bots_size(); ++i) index[p.bots(i).name()] = i;
  t.candidate.assign(static_cast<size_t>(p.bots_size()), false);
  for (int i = 0; i < p.bots_size(); ++i)
    if (p.bots(i).candidate()) t.candidate[static_cast<size_t>(i)] = true;
  for (const std::string& name : p.candidates()) {
    const auto it = index.find(name);
    if (it == index.end()) {
      why = at("candidates") + "candidate '" + name + "' is not one of the bots";
      return false;
    }
    t.candidate[static_cast<size_t>(it->second)] = true;
  }
  const auto candidates = std::count(t.candidate.begin(), t.candidate.end(), true);
  if (candidates == 0) return true;
  const long baselines = p.bots_size() - candidates;
  const int needed = bots_per_pairing(t.config.format) - 1;
  if (baselines < needed) {
    why = at(p.candidates_size() > 0 ? "candidates" : "bots") + "a gauntlet in format " +
          std::string(to_string(t.config.format)) + " needs at least " + std::to_string(needed) +
          " baseline bot(s) (bots that are not candidates), the file has " +
          std::to_string(baselines);
    return false;
  }
  return true;
}

std::vector<std::vector<int>> pairings_of(const TournamentDef& t) {
  const int n = static_cast<int>(t.bots.size());
  const size_t k = static_cast<size_t>(bots_per_pairing(t.config.format));
  std::vector<std::vector<int>> out;
  std::vector<int> current;
  const bool gauntlet =
      std::find(t.candidate.begin(), t.candidate.end(), true) != t.candidate.end();
  if (!gauntlet) {
    std::vector<int> all(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
    combinations(all, k, current, 0, out);
  } else {
    std::vector<int> baselines;
    for (int i = 0; i < n; ++i)
      if (!t.candidate[static_cast<size_t>(i)]) baselines.push_back(i);
    for (int c = 0; c < n; ++c) {
      if (!t.candidate[static_cast<size_t>(c)]) continue;
      std::vector<std::vector<int>> rest;
      combinations(baselines, k - 1, current, 0, rest);
      for (std::vector<int>& r : rest) {
        r.push_back(c);
        std::sort(r.begin(), r.end());
        out.push_back(std::move(r));
      }
    }
  }
  // Colexicographic: compare from the largest index down. A pairing with an appended bot holds
  // the largest index there is, so it sorts after every pairing without it.
  std::sort(out.begin(), out.end(), [](const std::vector<int>& a, const std::vector<int>& b) {
    return std::lexicographical_compare(a.rbegin(), a.rend(), b.rbegin(), b.rend());
  });
  return out;
}

}  // namespace allfives::referee
