// `referee verify PATH...`: re-plays match logs with the rules core and says, per log, whether
// every deal, play, draw, pass, score, hand end and the result follow from the rules. The
// work is replay/verify.h; this is its command line.
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

// Adds the subcommand to `app`; its callback sets `exit_code` as verify_logs returns it.
void add_verify_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
