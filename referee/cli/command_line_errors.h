// What the referee says when its command line is wrong: an unknown flag with the nearest flag
// of that command, an unknown command with the nearest command and the list, the usual CLI11
// message otherwise. Set on the app with CLI::App::failure_message().
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
class Error;
}  // namespace CLI

namespace allfives::referee {

// The message for `e`, raised while `app` (the referee's top app) parsed its command line.
std::string explain_command_line_error(const CLI::App* app, const CLI::Error& e);

// The flags of `cmd` ("--seed", "-s", ...), for suggestions.
std::vector<std::string> flag_names(const CLI::App& cmd);

// "unknown flag --seeed; did you mean --seed?" for a `word` (FLAG or FLAG=VALUE) that is none
// of `flags`.
std::string unknown_flag(const std::string& word, const std::vector<std::string>& flags);

}  // namespace allfives::referee
