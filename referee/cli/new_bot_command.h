// `referee new-bot --lang py|cpp|js DIR`: writes a working first bot into DIR with its build or
// environment wiring, a tournament against the sample bots and an SPRT against its previous
// version, then prints the commands that check and play it.
#pragma once

namespace CLI {
class App;
}

namespace allfives::referee {

// Adds the subcommand to `app`; its callback sets `exit_code` (0 written, 1 the files could not
// be written or this build lacks what the language needs, 2 bad arguments or DIR not empty).
void add_new_bot_command(CLI::App& app, int& exit_code);

}  // namespace allfives::referee
