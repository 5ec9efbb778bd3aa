// The SPRT across shards: a shard reads the finished matches of the other shards of its
// tournament, the folders beside its own under one output parent (a shared file system, as
// clusters have), so that every shard follows the merged test and stops when it decides.
// What a peer folder holds is untrusted input: it is read only up to its last complete line,
// every line is checked as `referee standings` checks it (and against the schedule), and a
// folder that breaks a rule is dropped from the reading with a note saying why.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "allfives/v1/tournament.pb.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {

class ShardPeers {
 public:
  // The peers of the shard writing `own_dir` (playing `def`): every other folder under
  // own_dir's parent whose tournament.txtpb holds the same definition.
  ShardPeers(const TournamentDef& def, std::string own_dir);

  // The peers' matches finished since the last call (in each peer's index order), each a
  // checked scheduled match of `def`. Folders that appeared since are looked at; a folder that
  // holds another definition is ignored, one whose index breaks a rule stops being read (its
  // earlier lines stay counted); each such event adds one note to `notes`.
  std::vector<v1::IndexEntry> poll(std::vector<std::string>& notes);

  // How many peer folders are being read.
  size_t reading() const;

 private:
  // kIgnored: its definition is another one (looked at again if its file changes).
  enum class State { kWaiting, kReading, kIgnored, kDropped };
  struct Peer {
    State state = State::kWaiting;
    uintmax_t definition_size = 0;  // of an ignored folder's tournament.txtpb
    std::filesystem::file_time_type definition_time{};
    uint64_t offset = 0;  // bytes of complete lines read from its index
    uint64_t lines = 0;
  };
  void discover();
  void look_at(const std::string& dir, Peer& peer, std::vector<std::string>& notes);
  void read_new(const std::string& dir, Peer& peer, std::vector<v1::IndexEntry>& out,
                std::vector<std::string>& notes);
  std::string line_problem(const std::string& line, v1::IndexEntry& e) const;

  const TournamentDef& def_;
  std::string own_dir_, parent_;
  std::string own_definition_;  // def_.proto serialized, as peers must hold it
  Schedule schedule_;
  EntryExpectations expected_;
  std::map<std::string, Peer> peers_;  // by folder
};

}  // namespace allfives::referee
