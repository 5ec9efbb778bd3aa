#include "cli/verify_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "replay/verify.h"

namespace allfives::referee {

void add_verify_command(CLI::App& app, int& exit_code) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto quiet = std::make_shared<bool>(false);
  auto jobs = std::make_shared<int>(0);
  auto allow_unfinished = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Re-play match logs with the rules core and check them: every deal against the seed, "
      "every play's legality, count and score, every draw, pass and hand end, and the result.\n"
      "Prints one line per log, 'OK  PATH  (N hands, M plays)' or 'FAIL PATH:LINE: what the "
      "log says; what the rules say' (the first disagreement), then a summary.\n"
      "A tournament's output folder (one with tournament.txtpb, index.jsonl or referee.lock) is "
      "checked as a whole too, and fails whatever cannot be vouched for: tournament.txtpb and "
      "index.jsonl must be there and readable; every line of index.jsonl must be a match of the "
      "schedule of the definition it was played with (match id, ordinal, seed, seats, bots), "
      "with its log at matches/MATCH_ID.jsonl telling the same match and result ('FAIL "
      "index.jsonl:LINE: ...' otherwise); every file in matches/ must be a log of a scheduled "
      "match. A log of a scheduled match that the index does not name (a stopped match; a "
      "resume plays it again) is listed as UNFINISHED and fails too, unless --allow-unfinished "
      "(a run still in progress).\n"
      "Before the summary, a line per bot that played at tables of 3 or 4 tests whether its "
      "decision times predict its seats' own hidden tiles (a timing channel between partners; "
      "FLAGGED at alpha = 0.001, docs/STATISTICS.md); a flag does not change the exit status, "
      "and --quiet prints only flagged lines.\n"
      "Exit status: 0 every log and index is OK, 1 something failed or is unfinished, 2 bad "
      "arguments.");
  cmd->add_option("paths", *paths,
                  "Log files, or folders: every *.jsonl under a folder except index.jsonl (so a "
                  "tournament's output folder gives all its matches)")
      ->required();
  cmd->add_flag("--quiet,-q", *quiet, "Print only the failures, flagged bots and the summary line");
  cmd->add_option("--jobs,-j", *jobs,
                  "Logs verified at once, 0..1024 (default 0: one per core); the output keeps "
                  "the order")
      ->capture_default_str();
  cmd->add_flag("--allow-unfinished", *allow_unfinished,
                "Accept logs of scheduled matches that the index does not name yet (a "
                "tournament still running, or stopped); they are still listed as UNFINISHED");
  cmd->callback([paths, quiet, jobs, allow_unfinished, &exit_code] {
    if (*jobs < 0 || *jobs > 1024) {
      std::cerr << "referee verify: --jobs must be 0..1024 (0: one per core), not " << *jobs
                << "\n";
      exit_code = 2;
      return;
    }
    exit_code = verify_logs(*paths, *quiet, std::cout, std::cerr, *jobs, *allow_unfinished);
  });
}

}  // namespace allfives::referee
