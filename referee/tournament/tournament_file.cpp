#include "tournament/tournament_file.h"

#include <fcntl.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "allfives/core/rng.h"
#include "allfives/wire/convert.h"
#include "log/match_log.h"
#include "process/bot_process.h"
#include "process/limit_ranges.h"
#include "tournament/file_typos.h"
#include "tournament/gauntlet.h"
#include "tournament/schedule.h"
#include "tournament/sprt.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using google::protobuf::FieldDescriptor;
using google::protobuf::TextFormat;

// A word of a bot's command line after the program, or an entry of its args, is a path when it
// contains a '/' and is not a flag; a relative one is read from the tournament file's folder,
// like the program, so a file and its bots can move together.
std::string resolve_argument(const std::string& arg, const fs::path& base) {
  if (arg.find('/') == std::string::npos || arg.starts_with('-')) return arg;
  const fs::path p(arg);
  return p.is_absolute() ? arg : (base / p).lexically_normal().string();
}

// What a definition's hash is computed over (definition_hash): every field but those that
// do not change results.
v1::Tournament hash_key(const v1::Tournament& p) {
  // Where and how fast do not change results, nor do the choice of matches (candidates, and
  // matches_per_pairing: deal sequence d of a pairing is the same whatever the count) and when
  // to stop (sprt); everything else does.
  v1::Tournament key = p;
  // Seed 0, given or not, hashes as before seeds had presence (folders keep their hashes).
  if (key.seed() == 0) key.clear_seed();
  key.clear_matches_per_pairing();
  key.clear_concurrency();
  key.clear_out_dir();
  key.clear_startup_timeout_ms();
  key.clear_candidates();
  key.clear_sprt();
  for (v1::TournamentBot& b : *key.mutable_bots()) b.clear_candidate();
  return key;
}

std::string hex_of(uint64_t h) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// FNV-1a (fnv1a64) continued over more bytes.
uint64_t fnv_more(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x00000100000001B3ull;
  }
  return h;
}

// The definition's hash, and those of its every smaller tournament (its first k bots). The
// serialized key is its name (field 1), its bots (field 2, one record each), then the rest, in
// field order: one FNV pass over the bots serves every k, so a file of 1,000 bots loads at once.
void set_hashes(TournamentDef& t) {
  const v1::Tournament& p = t.proto;
  t.hash = definition_hash(p);
  t.earlier_hashes.clear();
  v1::Tournament key = hash_key(p);
  std::vector<std::string> bots;
  for (const v1::TournamentBot& b : key.bots()) {
    v1::Tournament one;
    *one.add_bots() = b;
    bots.push_back(one.SerializeAsString());  // the bot's record: tag, length, bytes
  }
  key.clear_bots();
  v1::Tournament name_only;
  name_only.set_name(key.name());
  const std::string head = name_only.SerializeAsString();
  const std::string all = key.SerializeAsString();
  const std::string_view tail = std::string_view(all).substr(head.size());
  uint64_t h = fnv_more(0xCBF29CE484222325ull, head);
  const int from = bots_per_pairing(t.config.format);
  for (int k = 0; k + 1 < p.bots_size(); ++k) {
    h = fnv_more(h, bots[static_cast<size_t>(k)]);
    if (k + 1 >= from) t.earlier_hashes.push_back(hex_of(fnv_more(h, tail)));
  }
}

}  // namespace

std::string definition_hash(const v1::Tournament& p) {
  std::string bytes;
  hash_key(p).SerializeToString(&bytes);
  return hex_of(fnv1a64(bytes));
}

// One bot per side (partners are one bot in two seats), each side in each seat once.
int seat_rotations(Format f) {
  return num_sides(f);
}
int bots_per_pairing(Format f) {
  return num_sides(f);
}

bool read_tournament_text(const std::string& path, std::string& text, std::string* error,
                          const char* what) {
  auto fail = [&](std::string why) {
    if (error) *error = std::move(why);
    return false;
  };
  std::string why;
  text.clear();
  const int fd = open_regular_file(path, O_RDONLY, &why);
  if (fd < 0) return fail(why + " (" + what + ")");
  bool too_large = false;
  const int err = read_chunks(fd, [&](std::string_view chunk) {
    too_large = text.size() + chunk.size() > kMaxTournamentFileBytes;
    if (!too_large) text.append(chunk);
    return !too_large;
  });
  ::close(fd);
  if (err != 0) return fail(path + ": cannot read: " + std::strerror(err));
  if (too_large)
    return fail(path + ": the file is larger than " + std::to_string(kMaxTournamentFileBytes) +
                " bytes; " + what + " is far smaller");
  return true;
}

namespace {

// "FILE:LINE: " for a field of `p` (the line of its first occurrence, or of the file's end).
FieldLocator field_lines(const std::string& path, const v1::Tournament& p,
                         const TextFormat::ParseInfoTree& tree) {
  return [&path, &p, &tree](const char* field) {
    const FieldDescriptor* f = v1::Tournament::descriptor()->FindFieldByName(field);
    // A field never written has no line; ParseInfoTree throws on a repeated field's index -1.
    const bool present = f->is_repeated() ? p.GetReflection()->FieldSize(p, f) > 0
                                          : p.GetReflection()->HasField(p, f);
    const int line = present ? tree.GetLocation(f, f->is_repeated() ? 0 : -1).line : -1;
    std::string where = path;
    if (line >= 0) where += ':' + std::to_string(line + 1);
    return where + ": ";
  };
}

// "FILE:LINE: " for bot `i` (the line of its name, else of its entry).
std::string bot_lines(const std::string& path, const TextFormat::ParseInfoTree& tree, int i) {
  const FieldDescriptor* bots_field = v1::Tournament::descriptor()->FindFieldByName("bots");
  const TextFormat::ParseInfoTree* sub = tree.GetTreeForNested(bots_field, i);
  const auto loc =
      sub ? sub->GetLocation(v1::TournamentBot::descriptor()->FindFieldByName("name"), -1)
          : TextFormat::ParseLocation{};
  return path + ":" +
         std::to_string((loc.line >= 0 ? loc.line : tree.GetLocation(bots_field, i).line) + 1) +
         ": ";
}

// A bot reached at an address: nothing of a started bot's confinement applies to it.
bool read_address_bot(const v1::TournamentBot& b, BotSpec& spec, std::string& why) {
  why.clear();
  if (!parse_bot_spec(b.address(), spec, &why) || spec.started()) {
    why = "bot '" + b.name() + "': " +
          (why.empty() || spec.started()
               ? "address must be unix:PATH or host:port, not '" + b.address() + "'"
               : why);
    return false;
  }
  if (b.has_sandbox() || b.has_limits() || b.read_only_dirs_size() > 0) {
    why = "bot '" + b.name() +
          "': sandbox, limits and read_only_dirs apply only to a bot the referee "
          "starts (command), not to one reached at an address";
    return false;
  }
  return true;
}

// A started bot's limits and folders, each within its range, into its Confinement.
bool read_confinement(const v1::TournamentBot& b, const fs::path& base, const LoadOptions& options,
                      Confinement& c, std::string& why) {
  const v1::BotLimits& l = b.limits();
  for (const std::string& problem :
       {limit_problem(kMemoryMibRange, l.memory_mib(), "limits.memory_mib",
                      "the referee's --memory-mib"),
        limit_problem(kProcessesRange, l.processes(), "limits.processes",
                      "the referee's --max-processes"),
        limit_problem(kOpenFilesRange, l.open_files(), "limits.open_files",
                      "the referee's --max-open-files"),
        limit_problem(kFileSizeMibRange, l.file_size_mib(), "limits.file_size_mib",
                      "the referee's --max-file-size-mib")})
    if (!problem.empty()) {
      why = "bot '" + b.name() + "': " + problem;
      return false;
    }
  c.sandbox = !b.has_sandbox() || b.sandbox();
  if (l.memory_mib() != 0) c.limits.memory_mib = l.memory_mib();
  if (l.processes() != 0) c.limits.processes = l.processes();
  if (l.open_files() != 0) c.limits.open_files = l.open_files();
  if (l.file_size_mib() != 0) c.limits.file_size_mib = l.file_size_mib();
  if (l.cpu_percent() > kMaxCpuPercent) {
    why = "bot '" + b.name() + "': limits.cpu_percent must be 1.." +
          std::to_string(kMaxCpuPercent) + " (percent of one CPU), not " +
          std::to_string(l.cpu_percent());
    return false;
  }
  c.limits.cpu_percent = l.cpu_percent();
  for (const std::string& dir : b.read_only_dirs()) {
    const fs::path full = fs::path(dir).is_absolute() ? fs::path(dir) : base / dir;
    std::error_code ec;
    if (options.check_programs && !fs::is_directory(full, ec)) {
      why = "bot '" + b.name() + "': read_only_dirs entry '" + dir + "' is not a folder (" +
            full.string() + ")";
      return false;
    }
    c.read_only_dirs.push_back(full.lexically_normal().string());
  }
  return true;
}

// A bot the referee starts: its program found (relative paths from the file's folder `base`),
// the paths among its arguments resolved, its confinement read.
bool read_started_bot(const v1::TournamentBot& b, const fs::path& base, const LoadOptions& options,
                      BotSpec& spec, std::string& why) {
  if (!parse_bot_spec(b.command(), spec, &why, base.string())) return false;
  // "unix:..." or "host:port" parses as an address, which has no program to start.
  if (!spec.started()) {
    why = "bot '" + b.name() + "': command '" + b.command() +
          "' is an address; a bot that is already serving goes in `address`";
    return false;
  }
  if (options.check_programs) {
    const auto program = find_program(spec.command[0], base.string(), &why);
    if (!program) {
      why = "bot '" + b.name() + "': " + why +
            (spec.command[0].find('/') != std::string::npos && spec.command[0][0] != '/'
                 ? " (relative paths start at the tournament file's folder)"
                 : "") +
            (spec.command.size() > 1 ? std::string("; ") + kCommandSplitRule : "");
      return false;
    }
    spec.command[0] = fs::path(*program).lexically_normal().string();
  } else if (spec.command[0].find('/') != std::string::npos) {
    spec.command[0] = (base / spec.command[0]).lexically_normal().string();
  }
  for (size_t w = 1; w < spec.command.size(); ++w)
    spec.command[w] = resolve_argument(spec.command[w], base);
  for (const std::string& a : b.args()) spec.command.push_back(resolve_argument(a, base));
  return read_confinement(b, base, options, spec.confinement, why);
}

// A bot's `params`: names a bot's code can use as identifiers, finite values.
bool read_params(const v1::TournamentBot& b, BotSpec& spec, std::string& why) {
  for (const auto& [name, value] : b.params()) {
    const bool good_name =
        !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
    if (!good_name || !std::isfinite(value)) {
      why = "bot '" + b.name() + "': params entry '" + name +
            "' needs a name of 1..64 letters, digits or '_' and a finite value";
      return false;
    }
    spec.params[name] = value;
  }
  return true;
}

// One entry of `bots`: a unique safe name, exactly one of command and address, its times.
bool read_bot(const v1::TournamentBot& b, int i, const fs::path& base, const LoadOptions& options,
              std::set<std::string>& names, BotSpec& spec, std::string& why) {
  if (b.name().empty()) {
    why = "bot " + std::to_string(i + 1) + " has no name";
    return false;
  }
  // Names become parts of file names (match ids) and of lines in the index.
  if (!check_safe_name(b.name(), "bot name", kMaxBotNameLength, &why)) return false;
  if (!names.insert(b.name()).second) {
    why = "duplicate bot name '" + b.name() + "'";
    return false;
  }
  if (b.command().empty() == b.address().empty()) {
    why = "bot '" + b.name() + "' needs exactly one of command or address";
    return false;
  }
  if (!(b.address().empty() ? read_started_bot(b, base, options, spec, why)
                            : read_address_bot(b, spec, why)))
    return false;
  if (b.move_time_ms() > kMaxMoveTimeMs || b.time_bank_ms() > kMaxTimeBankMs) {
    why = "bot '" + b.name() + "': move_time_ms must be 1.." + std::to_string(kMaxMoveTimeMs) +
          " and time_bank_ms 1.." + std::to_string(kMaxTimeBankMs) +
          " (or 0: the tournament's), got " + std::to_string(b.move_time_ms()) + " and " +
          std::to_string(b.time_bank_ms());
    return false;
  }
  if (!read_params(b, spec, why)) return false;
  spec.display_name = b.name();
  spec.named = true;
  return true;
}

// Every number within a range that makes sense, before any is used (4000000000 matches per
// pairing must not wrap around to none).
bool check_ranges(const v1::Tournament& p, const FieldLocator& at, std::string& why) {
  const auto ms = [](std::chrono::milliseconds t) { return std::to_string(t.count()); };
  struct Range {
    const char* field;
    uint32_t value, max;
    std::string zero;  // what 0 means
  };
  for (const Range& r :
       {Range{"matches_per_pairing", p.matches_per_pairing(), kMaxMatchesPerPairing,
              "one per seat rotation"},
        Range{"move_time_ms", p.move_time_ms(), kMaxMoveTimeMs, ms(wire::kDefaultMoveTime)},
        Range{"time_bank_ms", p.time_bank_ms(), kMaxTimeBankMs, ms(wire::kDefaultTimeBank)},
        Range{"startup_timeout_ms", p.startup_timeout_ms(), kMaxStartupTimeoutMs,
              ms(wire::kDefaultStartupTimeout)},
        Range{"concurrency", p.concurrency(), kMaxConcurrency, "the number of cores"},
        Range{"target_score", p.target_score(), static_cast<uint32_t>(kMaxTarget),
              "the rule book's target"},
        Range{"max_hands", p.max_hands(), static_cast<uint32_t>(kMaxHandLimit),
              std::to_string(kDefaultMaxHands)}})
    if (r.value > r.max) {
      why = at(r.field) + r.field + " must be 1.." + std::to_string(r.max) + " (or 0: " + r.zero +
            "), got " + std::to_string(r.value);
      return false;
    }
  return true;
}

// The fields left 0 (or out) given their defaults; the name from the file's when not given.
bool apply_defaults(v1::Tournament& p, Format format, const std::string& path,
                    const FieldLocator& at, std::string& why) {
  const int rotations = seat_rotations(format);
  if (p.matches_per_pairing() == 0 && p.has_sprt() && rotations == 2)
    p.set_matches_per_pairing(
        2 * (p.sprt().max_pairs() > 0 ? std::min(p.sprt().max_pairs(), kMaxSprtPairs) : 10000));
  if (p.matches_per_pairing() == 0) p.set_matches_per_pairing(static_cast<uint32_t>(rotations));
  if (p.matches_per_pairing() % static_cast<uint32_t>(rotations) != 0) {
    why = at("matches_per_pairing") + "matches_per_pairing must be a multiple of " +
          std::to_string(rotations) +
          " (each deal sequence is played once in every seat rotation), got " +
          std::to_string(p.matches_per_pairing());
    return false;
  }
  const auto ms_u32 = [](std::chrono::milliseconds t) { return static_cast<uint32_t>(t.count()); };
  if (p.move_time_ms() == 0) p.set_move_time_ms(ms_u32(wire::kDefaultMoveTime));
  if (p.time_bank_ms() == 0) p.set_time_bank_ms(ms_u32(wire::kDefaultTimeBank));
  if (p.startup_timeout_ms() == 0) p.set_startup_timeout_ms(ms_u32(wire::kDefaultStartupTimeout));
  if (p.max_hands() == 0) p.set_max_hands(static_cast<uint32_t>(kDefaultMaxHands));
  if (p.target_score() == 0) p.set_target_score(static_cast<uint32_t>(standard_target(format)));
  const bool named = !p.name().empty();
  if (!named) p.set_name(fs::path(path).stem().string());
  if (!check_safe_name(p.name(), "the tournament name", kMaxTournamentNameLength, &why)) {
    why = at("name") + why +
          (named ? std::string(" (it names the output folder tournaments-out/NAME)")
                 : "; it comes from the file's name when `name` is not given: give one");
    return false;
  }
  return true;
}

// The match's terms, the concurrency and the output folder, from the checked fields.
void set_terms(TournamentDef& t) {
  const v1::Tournament& p = t.proto;
  t.config.target = static_cast<int>(p.target_score());
  t.config.max_hands = static_cast<int>(p.max_hands());
  t.time.move_time = std::chrono::milliseconds(p.move_time_ms());
  t.time.time_bank = std::chrono::milliseconds(p.time_bank_ms());
  t.startup_timeout = std::chrono::milliseconds(p.startup_timeout_ms());
  t.time.handshake = t.startup_timeout;  // the Hello's deadline, counted from MatchStart
  t.concurrency = p.concurrency() > 0
                      ? static_cast<int>(p.concurrency())
                      : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  t.out_dir = p.out_dir().empty() ? "tournaments-out/" + p.name() : p.out_dir();
  for (const v1::TournamentBot& b : p.bots()) {
    TimeControl time = t.time;
    if (b.move_time_ms() > 0) time.move_time = std::chrono::milliseconds(b.move_time_ms());
    if (b.time_bank_ms() > 0) time.time_bank = std::chrono::milliseconds(b.time_bank_ms());
    t.bot_time.push_back(time);
  }
}

// The format and the bots (at least as many as a match seats).
bool read_format_and_bots(TournamentDef& t, const std::string& path,
                          const TextFormat::ParseInfoTree& tree, const FieldLocator& at,
                          const LoadOptions& options, std::string& why) {
  const v1::Tournament& p = t.proto;
  if (p.format() == v1::FORMAT_UNSPECIFIED) {
    why = at("format") +
          "format is required: FORMAT_TWO_PLAYERS, FORMAT_THREE_PLAYERS, "
          "FORMAT_FOUR_PLAYERS or FORMAT_PARTNERSHIPS";
    return false;
  }
  if (!wire::from_proto(p.format(), t.config.format, &why)) {
    why = at("format") + why;
    return false;
  }
  const Format format = t.config.format;
  const int needed = bots_per_pairing(format);
  if (p.bots_size() < needed) {
    why = at("bots") + "format " + std::string(to_string(format)) + " needs at least " +
          std::to_string(needed) + " bots, the file has " + std::to_string(p.bots_size());
    return false;
  }
  const fs::path base = fs::absolute(fs::path(path)).parent_path();
  std::set<std::string> names;
  for (int i = 0; i < p.bots_size(); ++i) {
    BotSpec spec;
    if (!read_bot(p.bots(i), i, base, options, names, spec, why)) {
      why = bot_lines(path, tree, i) + why;
      return false;
    }
    t.bots.push_back(spec);
  }
  return true;
}

}  // namespace

bool load_tournament(const std::string& path, TournamentDef& out, std::string* error,
                     const std::function<void(v1::Tournament&)>& adjust,
                     const LoadOptions& options) {
  std::string text;
  if (!read_tournament_text(path, text, error)) return false;
  return load_tournament_text(text, path, out, error, adjust, options);
}

bool load_tournament_text(const std::string& text, const std::string& path, TournamentDef& out,
                          std::string* error, const std::function<void(v1::Tournament&)>& adjust,
                          const LoadOptions& options) {
  auto fail = [&](std::string why) {
    if (error) *error = std::move(why);
    return false;
  };
  std::string why;
  TournamentDef t;
  t.path = path;
  TextFormat::Parser parser;
  FirstParseError errors(v1::Tournament::descriptor());
  TextFormat::ParseInfoTree tree;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(text, &t.proto)) return fail(errors.describe(path, text));
  v1::Tournament& p = t.proto;
  if (adjust) adjust(p);
  const FieldLocator at = field_lines(path, p, tree);

  if (!read_format_and_bots(t, path, tree, at, options, why)) return fail(why);
  if (!check_ranges(p, at, why)) return fail(why);
  if (!apply_defaults(p, t.config.format, path, at, why)) return fail(why);
  set_terms(t);
  if (!read_candidates(t, at, why)) return fail(why);
  if (!read_sprt(t, at, why)) return fail(why);
  // The schedule is built whole, so its size is checked before anything is allocated.
  if (const uint64_t n = schedule_size(t); n > kMaxScheduleMatches)
    return fail(at("matches_per_pairing") + "the schedule would have " +
                (n == UINT64_MAX ? std::string("more than 10^19") : std::to_string(n)) +
                " matches (" + std::to_string(p.bots_size()) + " bots, matches_per_pairing " +
                std::to_string(p.matches_per_pairing()) + "); a tournament has at most " +
                std::to_string(kMaxScheduleMatches) +
                ": use fewer bots or matches, or split it into several tournaments");

  set_hashes(t);
  out = std::move(t);
  return true;
}

std::optional<TournamentDef> earlier_definition(const TournamentDef& t, const std::string& hash) {
  const auto it = std::find(t.earlier_hashes.begin(), t.earlier_hashes.end(), hash);
  if (it == t.earlier_hashes.end()) return std::nullopt;
  // earlier_hashes[i] is the definition of the first bots_per_pairing + i bots (set_hashes).
  const size_t k = static_cast<size_t>(bots_per_pairing(t.config.format)) +
                   static_cast<size_t>(it - t.earlier_hashes.begin());
  TournamentDef fewer = t;
  fewer.bots.resize(k);
  fewer.candidate.resize(k);
  fewer.bot_time.resize(k);
  fewer.proto.mutable_bots()->DeleteSubrange(static_cast<int>(k),
                                             fewer.proto.bots_size() - static_cast<int>(k));
  fewer.sprt.reset();
  set_hashes(fewer);
  return fewer;
}

void set_seed(TournamentDef& t, uint64_t seed) {
  t.proto.set_seed(seed);
  set_hashes(t);
}

}  // namespace allfives::referee
