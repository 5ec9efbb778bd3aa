// `referee review LOG... | DIR`: what each decision of logged matches was worth, judged with
// the deciding seat's information only, written beside each log and summed up per bot. The
// work is review/review_logs.h; this is its command line.
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

// Adds the subcommand to `app`; its callback sets `exit_code` as review_logs returns it.
void add_review_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
