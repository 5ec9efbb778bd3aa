#include "cli/review_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "review/review_logs.h"

namespace allfives::referee {

void add_review_command(CLI::App& app, int& exit_code) {
  auto run = std::make_shared<ReviewRun>();
  run->settings = default_review_settings();
  CLI::App* cmd = app.add_subcommand(
      "review",
      "Review logged matches: every legal play of each reviewed decision valued from the "
      "deciding seat's information only (its tiles and the public history; worlds sampled "
      "from what it could not see, each played out to the hand's end by a greedy policy, and "
      "solved exactly when few tiles remain), the best play, the expected points the play "
      "made lost, with its standard error, and a mark (inaccuracy 2.5, mistake 5, blunder 10 "
      "points, only when the loss is more than twice its error).\n"
      "Writes NAME.review.jsonl beside each log NAME.jsonl (proto/allfives/v1/review.proto); "
      "a review already there for the same log, seats and settings is reused. Prints a line "
      "per log, then per bot the points lost per decision and per hand, and its costliest "
      "decisions with the `referee replay` command that shows each. `referee replay` and its "
      "pages show the review beside each decision. docs/REVIEW.md explains the numbers.\n"
      "Exit status: 0 every log reviewed, 1 a log could not be (not a log `referee verify` "
      "accepts), 2 bad arguments.");
  cmd->add_option("paths", run->paths,
                  "Log files, or folders: every log under a folder (a tournament's output folder "
                  "gives all its matches)")
      ->required();
  CLI::Option* seat =
      cmd->add_option("--seat", run->seats.seat, "Review only this seat's decisions (0-based)")
          ->check(CLI::Range(0, 3));
  cmd->add_option("--bot", run->seats.bot,
                  "Review only the decisions of the bot of this name, in every log where it "
                  "plays, and summarise it: by phase of the hand, kind of loss and opponent, "
                  "with its costliest decisions")
      ->excludes(seat);
  cmd->add_option("--jobs,-j", run->jobs, "Logs reviewed at once (default 0: one per core)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_option("--worlds", run->settings.eval.worlds,
                  "Worlds sampled per decision; the error bars shrink as 1/sqrt(worlds)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--seed", run->settings.eval.seed,
                  "The review's seed: the same log, settings and seed give the same review")
      ->capture_default_str();
  cmd->add_option("--top", run->top, "Costliest decisions listed per bot")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_flag("--force", run->force, "Review again even where a current review is there");
  cmd->callback([run, &exit_code] { exit_code = review_logs(*run, std::cout, std::cerr); });
}

}  // namespace allfives::referee
