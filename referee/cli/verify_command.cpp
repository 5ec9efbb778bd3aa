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
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Re-play match logs with the rules core and check them: every deal against the seed, "
      "every play's legality, count and score, every draw, pass and hand end, and the result.\n"
      "Prints one line per log, 'OK  PATH  (N hands, M plays)' or 'FAIL PATH:LINE: what the "
      "log says; what the rules say' (the first disagreement), then a summary.\n"
      "A tournament's output folder (one with tournament.txtpb) is checked as a whole too: every "
      "line of index.jsonl must be a match of the schedule that tournament.txtpb gives (match "
      "id, seed, seats, bots), with its log at matches/MATCH_ID.jsonl, and the log's result "
      "must be the index line's ('FAIL index.jsonl:LINE: ...' otherwise); logs the index does "
      "not name are listed as UNFINISHED (stopped matches; a resume plays them again).\n"
      "Exit status: 0 every log and index is OK, 1 something failed, 2 bad arguments.");
  cmd->add_option("paths", *paths,
                  "Log files, or folders: every *.jsonl under a folder except index.jsonl (so a "
                  "tournament's output folder gives all its matches)")
      ->required();
  cmd->add_flag("--quiet,-q", *quiet, "Print only the failures and the summary line");
  cmd->add_option("--jobs,-j", *jobs,
                  "Logs verified at once (default 0: one per core); the output keeps the order")
      ->capture_default_str();
  cmd->callback([paths, quiet, jobs, &exit_code] {
    if (*jobs < 0) {
      std::cerr << "referee verify: --jobs must be 0 (one per core) or more\n";
      exit_code = 2;
      return;
    }
    exit_code = verify_logs(*paths, *quiet, std::cout, std::cerr, *jobs);
  });
}

}  // namespace allfives::referee
