#include "tune/tune_file.h"

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <thread>

#include "allfives/core/rng.h"
#include "allfives/wire/convert.h"
#include "log/match_log.h"
#include "rounds/round_player.h"
#include "tournament/file_typos.h"
#include "tournament/tournament_file.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using google::protobuf::TextFormat;

// "FILE:LINE: " of a top-level field as written, "FILE: " if it was not.
std::string where(const std::string& path, const v1::Tune& t, const TextFormat::ParseInfoTree& tree,
                  const char* field) {
  const auto* f = v1::Tune::descriptor()->FindFieldByName(field);
  if (f->is_repeated() ? t.GetReflection()->FieldSize(t, f) == 0
                       : !t.GetReflection()->HasField(t, f))
    return path + ": ";
  return path + ":" + std::to_string(tree.GetLocation(f, f->is_repeated() ? 0 : -1).line + 1) +
         ": ";
}

// "FILE:LINE: " of params entry `i`.
std::string where_param(const std::string& path, const TextFormat::ParseInfoTree& tree, int i) {
  const auto* f = v1::Tune::descriptor()->FindFieldByName("params");
  return path + ":" + std::to_string(tree.GetLocation(f, i).line + 1) + ": ";
}

void set_defaults(v1::Tune& t) {
  if (!t.pairs_per_iteration()) t.set_pairs_per_iteration(1);
  if (t.alpha() == 0) t.set_alpha(0.602);
  if (t.gamma() == 0) t.set_gamma(0.101);
  if (t.a_ratio() == 0) t.set_a_ratio(0.1);
  if (t.has_confirm()) {
    v1::TuneConfirm& c = *t.mutable_confirm();
    if (c.elo1() == 0 && c.elo0() == 0) c.set_elo1(10);
    if (!c.max_pairs()) c.set_max_pairs(2000);
  }
}

bool good_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// One params entry: a usable name, a range that holds the start, positive gains.
std::string param_problem(const v1::TuneParam& p, const v1::Tune& t, std::set<std::string>& seen) {
  const std::string name = "params '" + p.name() + "': ";
  if (!good_name(p.name())) return "params: name needs 1..64 letters, digits or '_'";
  if (!seen.insert(p.name()).second) return name + "named twice";
  if (t.bot().params().count(p.name()))
    return name + "also in bot.params (a tuned value replaces it; remove one)";
  for (const double v : {p.start(), p.min(), p.max(), p.c_end(), p.r_end()})
    if (!std::isfinite(v)) return name + "every value must be finite";
  if (!(p.min() < p.max())) return name + "min must be below max";
  if (p.start() < p.min() || p.start() > p.max()) return name + "start must lie in [min, max]";
  if (!(p.c_end() > 0) || !(p.r_end() > 0))
    return name + "c_end and r_end must be > 0 (e.g. c_end: a tenth of the range, r_end: 0.002)";
  return "";
}

// The file's own fields (not those a tournament checks).
bool check_tune(const std::string& path, const v1::Tune& t, const TextFormat::ParseInfoTree& tree,
                std::string& why) {
  std::string problem;
  if (!check_safe_name(t.name(), "name", kMaxTournamentNameLength, &problem)) {
    why = where(path, t, tree, "name") + problem + " (e.g. name: \"epsilon\")";
    return false;
  }
  if (t.bot().command().empty() && t.bot().address().empty()) {
    why = where(path, t, tree, "bot") + "bot { name: ... command: ... } is required";
    return false;
  }
  if (t.params().empty()) {
    why = path + ": at least one params { name start min max c_end r_end } is required";
    return false;
  }
  std::set<std::string> seen;
  for (int i = 0; i < t.params_size(); ++i)
    if (std::string p = param_problem(t.params(i), t, seen); !p.empty()) {
      why = where_param(path, tree, i) + p;
      return false;
    }
  if (t.pairs() == 0 || t.pairs() > kMaxTunePairs) {
    why = where(path, t, tree, "pairs") + "pairs must be 1.." + std::to_string(kMaxTunePairs);
    return false;
  }
  if (t.pairs_per_iteration() > t.pairs()) {
    why = where(path, t, tree, "pairs_per_iteration") + "pairs_per_iteration must be 1..pairs";
    return false;
  }
  const bool exponents = t.alpha() > 0 && t.alpha() <= 1 && t.gamma() > 0 && t.gamma() <= 1 &&
                         t.a_ratio() >= 0 && t.a_ratio() <= 10;
  if (!exponents) {
    why = path + ": alpha and gamma must be in (0, 1] and a_ratio in [0, 10]";
    return false;
  }
  Format f;
  if (!wire::from_proto(t.format(), f, nullptr) || num_sides(f) != 2) {
    why = where(path, t, tree, "format") +
          "format must be FORMAT_TWO_PLAYERS or FORMAT_PARTNERSHIPS (a tune compares two sides)";
    return false;
  }
  return true;
}

// The bots as written, for the probe: relative paths from the tune file's folder.
v1::TournamentBot as_bot(const v1::TournamentBot& b, const std::string& name) {
  v1::TournamentBot out = b;
  out.set_name(name);
  return out;
}

// A bot of the loaded probe as a file's entry with absolute paths: program and arguments from
// the resolved command, the read-only folders resolved.
v1::TournamentBot resolved(const v1::TournamentBot& b, const BotSpec& spec) {
  v1::TournamentBot out = b;
  if (spec.started()) {
    out.set_command(spec.command[0]);
    out.clear_args();
    for (size_t i = 1; i < spec.command.size(); ++i) out.add_args(spec.command[i]);
    out.clear_read_only_dirs();
    for (const std::string& dir : spec.confinement.read_only_dirs) out.add_read_only_dirs(dir);
  }
  return out;
}

// The tuned bot and the opponents under the names the iterations use, as written.
v1::Tournament probe_of(const v1::Tune& t) {
  v1::Tournament probe;
  probe.set_name(t.name());
  copy_match_terms(t, probe);
  probe.set_seed(1);
  *probe.add_bots() = as_bot(t.bot(), t.name() + "-plus");
  for (const v1::TournamentBot& o : t.opponents()) *probe.add_bots() = o;
  if (t.opponents().empty()) *probe.add_bots() = as_bot(t.bot(), t.name() + "-minus");
  return probe;
}

bool load_bots(TuneDef& d, std::string& why) {
  const v1::Tournament probe = probe_of(d.proto);
  std::string text;
  TextFormat::PrintToString(probe, &text);
  TournamentDef def;
  if (!load_tournament_text(text, d.path, def, &why)) {
    why = d.path + ": the bots or the match terms are not those of a valid tournament: " +
          why.substr(why.find(": ") + 2);
    return false;
  }
  for (int i = 0; i < probe.bots_size(); ++i)
    d.bots.push_back(resolved(probe.bots(i), def.bots[static_cast<size_t>(i)]));
  if (d.proto.opponents().empty()) d.bots.pop_back();  // the minus copy is made per iteration
  return true;
}

void add_bot(v1::Tournament& t, const v1::TournamentBot& tuned, const std::string& name,
             const std::map<std::string, double>& values) {
  v1::TournamentBot* b = t.add_bots();
  *b = tuned;
  b->set_name(name);
  for (const auto& [key, value] : values) (*b->mutable_params())[key] = value;
}

}  // namespace

bool parse_tune(const std::string& path, const std::string& text, v1::Tune& out,
                std::string* error) {
  TextFormat::Parser parser;
  FirstParseError errors(v1::Tune::descriptor());
  TextFormat::ParseInfoTree tree;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  v1::Tune t;
  if (!parser.ParseFromString(text, &t)) {
    if (error) *error = errors.describe(path, text);
    return false;
  }
  set_defaults(t);
  std::string why;
  if (!check_tune(path, t, tree, why)) {
    if (error) *error = why;
    return false;
  }
  out = std::move(t);
  return true;
}

bool load_tune(const std::string& path, TuneDef& out, std::string* error) {
  std::string text, why;
  if (!read_tournament_text(path, text, error, "the tune file")) return false;
  TuneDef d;
  std::error_code ec;
  d.path = fs::absolute(path, ec).lexically_normal().string();
  if (!parse_tune(path, text, d.proto, error)) return false;
  if (!load_bots(d, why)) {
    if (error) *error = why;
    return false;
  }
  TuneDef terms = tune_terms(d.proto);
  terms.path = d.path;
  terms.bots = std::move(d.bots);
  out = std::move(terms);
  return true;
}

TuneDef tune_terms(const v1::Tune& t) {
  TuneDef d;
  d.proto = t;
  set_defaults(d.proto);
  for (const v1::TuneParam& p : t.params())
    d.params.push_back({p.name(), p.start(), p.min(), p.max(), p.c_end(), p.r_end()});
  d.schedule = {d.proto.pairs(), d.proto.pairs_per_iteration(), d.proto.alpha(), d.proto.gamma(),
                d.proto.a_ratio() * static_cast<double>(d.proto.pairs())};
  d.out_dir = t.out_dir().empty() ? default_tune_out_dir(t) : t.out_dir();
  return d;
}

std::string default_tune_out_dir(const v1::Tune& t) {
  return "tunes-out/" + t.name();
}

std::string plus_name(const TuneDef& d) {
  return d.proto.name() + "-plus";
}
std::string minus_name(const TuneDef& d) {
  return d.proto.name() + "-minus";
}

std::map<std::string, double> named(const TuneDef& d, const std::vector<double>& values) {
  std::map<std::string, double> out;
  for (size_t j = 0; j < d.params.size(); ++j) out[d.params[j].name] = values[j];
  return out;
}

v1::Tournament iteration_tournament(const TuneDef& d, uint64_t i, uint32_t pairs,
                                    const std::vector<double>& plus,
                                    const std::vector<double>& minus, int concurrency) {
  v1::Tournament t;
  t.set_name(d.proto.name() + "-i" + std::to_string(i));
  copy_match_terms(d.proto, t);
  t.set_seed(derive_seed(d.proto.seed(), i) & ((uint64_t{1} << 63) - 1));
  Format f;
  wire::from_proto(d.proto.format(), f, nullptr);
  t.set_matches_per_pairing(pairs * static_cast<uint32_t>(seat_rotations(f)));
  t.set_concurrency(static_cast<uint32_t>(concurrency));
  t.set_out_dir(fs::absolute(d.out_dir).lexically_normal().string());
  add_bot(t, d.bots[0], plus_name(d), named(d, plus));
  add_bot(t, d.bots[0], minus_name(d), named(d, minus));
  for (size_t o = 1; o < d.bots.size(); ++o) *t.add_bots() = d.bots[o];
  if (d.bots.size() > 1) {
    t.add_candidates(plus_name(d));
    t.add_candidates(minus_name(d));
  }
  return t;
}

v1::Tournament confirm_tournament(const TuneDef& d, const std::vector<double>& tuned,
                                  int concurrency) {
  v1::Tournament t;
  t.set_name(d.proto.name() + "-confirm");
  copy_match_terms(d.proto, t);
  t.set_seed(derive_seed(d.proto.seed(), ~uint64_t{0}) & ((uint64_t{1} << 63) - 1));
  t.set_concurrency(static_cast<uint32_t>(concurrency));
  t.set_out_dir(fs::absolute(d.out_dir).lexically_normal().string());
  std::vector<double> start;
  for (const SpsaParam& p : d.params) start.push_back(p.start);
  add_bot(t, d.bots[0], d.proto.name() + "-tuned", named(d, tuned));
  add_bot(t, d.bots[0], d.proto.name() + "-start", named(d, start));
  const v1::TuneConfirm& c = d.proto.confirm();
  v1::Sprt* s = t.mutable_sprt();
  s->set_elo0(c.elo0());
  s->set_elo1(c.elo1() == 0 && c.elo0() == 0 ? 10 : c.elo1());
  s->set_alpha(c.alpha());
  s->set_beta(c.beta());
  s->set_max_pairs(c.max_pairs() ? c.max_pairs() : 2000);
  return t;
}

}  // namespace allfives::referee
