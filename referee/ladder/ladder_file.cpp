#include "ladder/ladder_file.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <filesystem>

#include "allfives/wire/convert.h"
#include "log/match_log.h"
#include "rounds/round_player.h"
#include "tournament/file_typos.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using google::protobuf::TextFormat;

// "FILE:LINE: " of a field as written, "FILE: " if it was not.
std::string where(const std::string& path, const v1::Ladder& l,
                  const TextFormat::ParseInfoTree& tree, const char* field) {
  const auto* f = v1::Ladder::descriptor()->FindFieldByName(field);
  if (!l.GetReflection()->HasField(l, f)) return path + ": ";
  return path + ":" + std::to_string(tree.GetLocation(f, -1).line + 1) + ": ";
}

void set_defaults(v1::Ladder& l) {
  if (!l.placement_opponents()) l.set_placement_opponents(4);
  if (!l.round_opponents()) l.set_round_opponents(2);
  if (!l.history_every()) l.set_history_every(10);
  const UploadLimits defaults;
  if (!l.max_upload_bytes()) l.set_max_upload_bytes(defaults.max_bytes);
  if (!l.max_upload_files()) l.set_max_upload_files(defaults.max_files);
  if (!l.check_decisions()) l.set_check_decisions(100);
  if (!l.submissions_per_hour()) l.set_submissions_per_hour(10);
}

}  // namespace

bool load_ladder(const std::string& path, const std::string& default_python, LadderDef& out,
                 std::string* error) {
  auto fail = [&](std::string why) {
    if (error) *error = std::move(why);
    return false;
  };
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return fail(path + ": no such file");
  if (fs::file_size(path, ec) > kMaxLadderFileBytes)
    return fail(path + ": larger than " + std::to_string(kMaxLadderFileBytes) + " bytes");
  std::string text;
  if (!read_tournament_text(path, text, error, "the ladder file")) return false;
  LadderDef d;
  d.path = fs::absolute(path, ec).lexically_normal().string();
  TextFormat::Parser parser;
  FirstParseError errors(v1::Ladder::descriptor());
  TextFormat::ParseInfoTree tree;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(text, &d.proto)) return fail(errors.describe(path, text));
  v1::Ladder& l = d.proto;
  std::string why;
  if (!check_safe_name(l.name(), "name", kMaxLadderNameLength, &why))
    return fail(where(path, l, tree, "name") + why + " (the ladder's name, e.g. name: \"club\")");
  if (l.format() == v1::FORMAT_UNSPECIFIED)
    return fail(where(path, l, tree, "format") +
                "format is required: FORMAT_TWO_PLAYERS, FORMAT_THREE_PLAYERS, "
                "FORMAT_FOUR_PLAYERS or FORMAT_PARTNERSHIPS");
  for (const char* f : {"placement_opponents", "round_opponents"}) {
    const auto* field = v1::Ladder::descriptor()->FindFieldByName(f);
    if (l.GetReflection()->GetUInt32(l, field) > kMaxOpponents)
      return fail(where(path, l, tree, f) + f + " must be 1.." + std::to_string(kMaxOpponents));
  }
  set_defaults(l);
  if (l.python().empty()) {
    l.set_python(default_python);
  } else if (l.python().find('/') != std::string::npos && l.python()[0] != '/') {
    l.set_python((fs::path(d.path).parent_path() / l.python()).lexically_normal().string());
  }
  // Everything a round's tournament file checks (times, limits, target...), checked now on a
  // round of two stand-in bots, so that a bad value is refused before anyone submits.
  const std::vector<RoundBot> stand_ins = {
      {"a", {"/bin/true"}}, {"b", {"/bin/true"}}, {"c", {"/bin/true"}}, {"d", {"/bin/true"}}};
  const v1::Tournament probe = round_tournament(l, l.name() + "-r1", 1, stand_ins, "/", 1);
  TournamentDef def;
  if (!load_tournament_text(round_file_text(probe, nullptr), d.path, def, &why, {},
                            LoadOptions{.check_programs = false}))
    return fail(path + ": the match terms are not those of a valid tournament: " +
                why.substr(why.find(": ") + 2));
  out = std::move(d);
  return true;
}

v1::Tournament round_tournament(const v1::Ladder& l, const std::string& name, uint64_t seed,
                                const std::vector<RoundBot>& bots, const std::string& out_dir,
                                int concurrency) {
  v1::Tournament t;
  t.set_name(name);
  copy_match_terms(l, t);
  t.set_seed(seed);
  t.set_out_dir(out_dir);
  t.set_concurrency(static_cast<uint32_t>(concurrency));
  Format f;
  const int rotations = wire::from_proto(l.format(), f, nullptr) ? seat_rotations(f) : 2;
  t.set_matches_per_pairing(static_cast<uint32_t>(rotations));
  for (const RoundBot& b : bots) {
    v1::TournamentBot* tb = t.add_bots();
    tb->set_name(b.name);
    if (!b.argv.empty()) tb->set_command(b.argv[0]);
    for (size_t i = 1; i < b.argv.size(); ++i) tb->add_args(b.argv[i]);
    *tb->mutable_limits() = l.limits();
  }
  if (!bots.empty()) t.add_candidates(bots[0].name);
  return t;
}

std::string round_file_text(const v1::Tournament& t, std::string* error) {
  return tournament_file_text(t, "# A round of a ladder, written by `referee ladder run`.\n",
                              error);
}

}  // namespace allfives::referee
