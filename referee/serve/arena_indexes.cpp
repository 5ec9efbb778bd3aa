#include "serve/arena_indexes.h"

#include <fcntl.h>
#include <unistd.h>

#include "tournament/schedule.h"
#include "tournament/tournament_file.h"

namespace allfives::referee::serve {

uint64_t log_name_hash(std::string_view name) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

const LogSummary& ArenaSite::Indexes::summary(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  auto it = summaries.find(path);
  if (it != summaries.end() && same_version(it->second.size, it->second.mtime, st))
    return it->second.summary;
  if (summaries.size() >= kMaxSummaries) summaries.clear();
  Summary& s = summaries[path];
  s.size = st.st_size;
  s.mtime = st.st_mtim;
  s.summary = summarize_log(path);
  return s.summary;
}

bool ArenaSite::Indexes::grown(const Entry& e, const std::string& index, const struct stat& st) {
  if (!e.ok || e.inode != st.st_ino || st.st_size <= e.size) return false;
  if (e.read_to.offset == 0) return true;
  const int fd = ::open(index.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char before = 0;
  const bool read = ::pread(fd, &before, 1, static_cast<off_t>(e.read_to.offset - 1)) == 1;
  ::close(fd);
  return read && before == '\n';
}

void ArenaSite::Indexes::read_definition(const std::string& tournament_file, Entry& e) {
  TournamentDef def;
  if (tournament_file.empty() ||
      !load_tournament(tournament_file, def, &e.no_sprt, {}, LoadOptions{.check_programs = false}))
    return;
  e.monitors = make_sprt_monitors(def);
  e.planned = Schedule(def).size();
}

std::shared_ptr<const ArenaSite::Indexes::Entry> ArenaSite::Indexes::get(
    const std::string& index, const std::string& tournament_file) {
  struct stat st {
  }, tf{};
  const bool exists = !index.empty() && ::stat(index.c_str(), &st) == 0;
  const bool has_file = !tournament_file.empty() && ::stat(tournament_file.c_str(), &tf) == 0;
  // The key holds both versions: a resumed run rewrites tournament.txtpb.
  const std::string key = index + "\n" + tournament_file + "\n" +
                          std::to_string(has_file ? tf.st_mtim.tv_sec : 0) + "." +
                          std::to_string(has_file ? tf.st_mtim.tv_nsec : 0);
  auto it = by_path.find(key);
  if (it != by_path.end() && exists && same_version(it->second->size, it->second->mtime, st))
    return it->second;
  auto e = std::make_shared<Entry>();
  e->ok = true;
  if (exists) {
    if (it != by_path.end() && grown(*it->second, index, st))
      *e = *it->second;  // the lines read stay; the new ones are added
    else
      read_definition(has_file ? tournament_file : "", *e);
    e->size = st.st_size;
    e->mtime = st.st_mtim;
    e->inode = st.st_ino;
    e->ok = fold_index(index, *e);
  }
  if (by_path.size() >= kMaxFolders) by_path.clear();
  if (exists) by_path[key] = e;
  return e;
}

// The index's lines from where `e`'s reading stopped folded into it: the standings, the SPRTs'
// state (standings.json's "sprt"), the hashes of the logs it names and what the filters look
// at.
bool ArenaSite::Indexes::fold_index(const std::string& index, Entry& e) {
  std::vector<std::string> notes;
  const size_t sorted = e.indexed_logs.size();
  const bool ok = read_index_stream_from(
      index, e.read_to,
      [&](v1::IndexEntry&& entry, uint64_t start) {
        ++e.finished;
        e.starts.push_back(start);
        e.indexed_logs.push_back(log_name_hash(entry.log_file()));
        e.bots.insert(entry.match().seat_bots().begin(), entry.match().seat_bots().end());
        if (entry.fault_seat() >= 0) e.kinds.insert(entry.fault_kind());
        Entry::Filtered f{static_cast<uint32_t>(e.seat_bots.size()),
                          static_cast<uint32_t>(entry.match().seat_bots_size()), entry.fault_seat(),
                          entry.fault_kind()};
        for (const std::string& bot : entry.match().seat_bots()) {
          const auto [it, added] =
              e.bot_ids.emplace(bot, static_cast<uint32_t>(e.bot_names.size()));
          if (added) e.bot_names.push_back(bot);
          e.seat_bots.push_back(it->second);
        }
        e.filtered.push_back(f);
        e.sums.add(entry);
        for (SprtMonitor& m : e.monitors) m.add(entry);
      },
      notes, &e.error);
  if (!ok) return false;
  std::sort(e.indexed_logs.begin() + static_cast<std::ptrdiff_t>(sorted), e.indexed_logs.end());
  std::inplace_merge(e.indexed_logs.begin(),
                     e.indexed_logs.begin() + static_cast<std::ptrdiff_t>(sorted),
                     e.indexed_logs.end());
  e.standings = e.sums.finish();
  for (const std::string& n : notes) e.standings.notes.push_back(n);
  for (const SprtMonitor& m : e.monitors) e.standings.sprt.push_back(m.summary());
  if (!e.no_sprt.empty()) e.standings.notes.push_back("no SPRT state: " + e.no_sprt);
  return true;
}

}  // namespace allfives::referee::serve
