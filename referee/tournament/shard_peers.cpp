#include "tournament/shard_peers.h"

#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "allfives/wire/convert.h"
#include "log/match_log.h"
#include "tournament/index_file.h"
#include "tournament/output_folder.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

// How long a definition file that does not match may still be being written.
constexpr std::chrono::seconds kSettle{3};
// Read at most this much of a peer's index per poll, so a huge index is taken in steps.
constexpr uint64_t kMaxReadPerPoll = uint64_t{8} << 20;

std::string canonical_or_self(const std::string& dir) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  return ec ? dir : p.string();
}

}  // namespace

ShardPeers::ShardPeers(const TournamentDef& def, std::string own_dir)
    : def_(def), own_dir_(canonical_or_self(own_dir)), schedule_(def) {
  parent_ = fs::path(own_dir_).parent_path().string();
  own_definition_ = def.proto.SerializeAsString();
  expected_.format = wire::to_proto(def.config.format);
  expected_.target = def.config.target;
  expected_.max_hands = def.config.max_hands;
  for (const BotSpec& b : def.bots) expected_.bots.insert(b.display_name);
}

size_t ShardPeers::reading() const {
  size_t n = 0;
  for (const auto& [dir, peer] : peers_) n += peer.state == State::kReading ? 1 : 0;
  return n;
}

void ShardPeers::discover() {
  std::error_code ec;
  for (fs::directory_iterator it(parent_, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    const std::string dir = canonical_or_self(it->path().string());
    if (dir == own_dir_ || peers_.count(dir)) continue;
    peers_[dir] = Peer{};
  }
}

// A waiting folder becomes a peer once its tournament.txtpb holds this very definition.
void ShardPeers::look_at(const std::string& dir, Peer& peer, std::vector<std::string>& notes) {
  const std::string file = output_path(dir, kDefinitionFile);
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(file, ec);
  if (ec || !fs::exists(st)) return;  // not (yet) a tournament folder
  const auto drop = [&](const std::string& why) {
    peer.state = State::kDropped;
    notes.push_back("the SPRT across shards ignores " + dir + ": " + why);
  };
  if (!fs::is_regular_file(st)) return drop(file + " is not a regular file");
  std::string text, why;
  if (!read_tournament_text(file, text, &why)) return drop(why);
  v1::Tournament theirs;
  const bool parsed = google::protobuf::TextFormat::ParseFromString(text, &theirs);
  if (parsed && theirs.SerializeAsString() == own_definition_) {
    peer.state = State::kReading;
    return;
  }
  // A shard starting writes its copy as this one reads it: a file changed in the last seconds
  // is looked at again, and one that changes later too (its size or time).
  const auto written = fs::last_write_time(file, ec);
  const auto size = fs::file_size(file, ec);
  if (ec || fs::file_time_type::clock::now() - written < kSettle) return;
  if (peer.state == State::kIgnored && size == peer.definition_size &&
      written == peer.definition_time)
    return;
  const bool said = peer.state == State::kIgnored;
  peer.state = State::kIgnored;
  peer.definition_size = size;
  peer.definition_time = written;
  if (!said)
    notes.push_back("the SPRT across shards ignores " + dir + ": " + file +
                    (parsed ? " holds another tournament definition than this shard's (another "
                              "file, or this file changed); only shards of one definition "
                              "decide together"
                            : " cannot be read as a tournament definition"));
}

std::string ShardPeers::line_problem(const std::string& line, v1::IndexEntry& e) const {
  std::string why;
  if (!from_json_line(line, &e, &why)) return why;
  if (e.tournament_hash() != def_.hash)
    return "a match of another tournament definition (hash " + e.tournament_hash() +
           ", this file " + def_.hash + ")";
  const uint64_t ordinal = e.match().ordinal();
  if (ordinal >= schedule_.size())
    return "ordinal " + std::to_string(ordinal) + " is beyond this file's schedule of " +
           std::to_string(schedule_.size()) + " matches";
  if (!google::protobuf::util::MessageDifferencer::Equals(e.match(), schedule_.at(ordinal)))
    return "match '" + e.match().match_id() + "' is not match " + std::to_string(ordinal) +
           " of this file's schedule (id, seed or seats differ)";
  return entry_problem(e, expected_);
}

// The complete lines appended to a peer's index since the last read; a torn last line waits.
void ShardPeers::read_new(const std::string& dir, Peer& peer, std::vector<v1::IndexEntry>& out,
                          std::vector<std::string>& notes) {
  const std::string path = output_path(dir, kIndexFile);
  const auto drop = [&](const std::string& why) {
    peer.state = State::kDropped;
    notes.push_back("the SPRT across shards stops reading " + dir + ": " + why +
                    (peer.lines > 0
                         ? " (its " + std::to_string(peer.lines) + " earlier lines stay counted)"
                         : ""));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno != ENOENT) drop("cannot open " + path + ": " + std::strerror(errno));
    return;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return drop(path + " is not a regular file");
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < peer.offset) {
    ::close(fd);
    return drop(path + " is shorter than what was read of it (" + std::to_string(size) + " < " +
                std::to_string(peer.offset) + " bytes): replaced or edited");
  }
  std::string chunk(static_cast<size_t>(std::min(size - peer.offset, kMaxReadPerPoll)), '\0');
  const ssize_t got =
      chunk.empty() ? 0 : ::pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(peer.offset));
  ::close(fd);
  if (got < 0) return drop("cannot read " + path + ": " + std::strerror(errno));
  chunk.resize(static_cast<size_t>(got));
  size_t start = 0;
  for (size_t nl; (nl = chunk.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string where = path + ":" + std::to_string(peer.lines + 1) + ": ";
    if (nl - start > kMaxIndexLineBytes) return drop(where + "a line longer than 64 KiB");
    v1::IndexEntry e;
    if (const std::string why = line_problem(chunk.substr(start, nl - start), e); !why.empty())
      return drop(where + why);
    peer.offset += nl + 1 - start;
    ++peer.lines;
    out.push_back(std::move(e));
  }
  // What follows the last newline is a line being written (or torn by a crash): read it again
  // once it is complete. Longer than any line can be, it never will be.
  if (chunk.size() - start > kMaxIndexLineBytes)
    drop(path + ":" + std::to_string(peer.lines + 1) + ": a line longer than 64 KiB");
}

std::vector<v1::IndexEntry> ShardPeers::poll(std::vector<std::string>& notes) {
  discover();
  std::vector<v1::IndexEntry> out;
  for (auto& [dir, peer] : peers_) {
    if (peer.state == State::kWaiting || peer.state == State::kIgnored) look_at(dir, peer, notes);
    if (peer.state == State::kReading) read_new(dir, peer, out, notes);
  }
  return out;
}

}  // namespace allfives::referee
