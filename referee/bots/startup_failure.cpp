#include "bots/startup_failure.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "log/match_log.h"
#include "process/bot_process.h"
#include "text/terminal_text.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;

bool inside(const std::string& path, const std::string& folder) {
  const fs::path p = fs::path(path).lexically_normal(), f = fs::path(folder).lexically_normal();
  auto pi = p.begin();
  for (auto fi = f.begin(); fi != f.end(); ++fi, ++pi) {
    if (fi->empty()) continue;  // a trailing '/'
    if (pi == p.end() || *pi != *fi) return false;
  }
  return true;
}

// The Python module a "No module named 'X'" line names, or "".
std::string missing_module(const std::string& output) {
  const std::string marker = "No module named '";
  const size_t at = output.find(marker);
  if (at == std::string::npos) return "";
  const size_t from = at + marker.size();
  const size_t to = output.find('\'', from);
  return to == std::string::npos ? "" : output.substr(from, to - from);
}

std::vector<std::string>& mutable_invocation() {
  static std::vector<std::string> argv;
  return argv;
}

}  // namespace

const std::vector<std::string>& invocation() {
  return mutable_invocation();
}

std::string shell_word(const std::string& w) {
  if (!w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789@%+=:,./-_") == std::string::npos)
    return w;
  std::string out = "'";
  for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {

// How to let the sandbox show `folder`: this very command with `--read-only FOLDER` right
// after its name (match, check-bot), or the tournament file's field.
std::string read_only_fix(const std::string& folder) {
  const std::vector<std::string>& argv = invocation();
  const std::string field =
      "in a tournament file, `read_only_dirs: \"" + folder + "\"` in the bot's entry";
  if (argv.size() < 2 || (argv[1] != "match" && argv[1] != "check-bot"))
    return "Add `--read-only " + folder + "` right after `referee match` or `referee check-bot` (" +
           field + ").";
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + string here.
  std::string line = "Run it as:";
  for (size_t i = 0; i < argv.size(); ++i) {
    line.append(" ").append(shell_word(argv[i]));
    if (i == 1) line.append(" --read-only ").append(shell_word(folder));
  }
  return line.append(" (").append(field).append(").");
}

// The build's runner of Python bots (the SDK on its path), beside the running referee, or "".
std::string build_python_runner() {
  std::error_code ec;
  const fs::path runner =
      fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "python" / "run_bot";
  return !ec && fs::exists(runner, ec) ? runner.string() : "";
}

// The package a Node "Cannot find module 'X'" names, or "".
std::string missing_node_module(const std::string& output) {
  const std::string marker = "Cannot find module '";
  const size_t at = output.find(marker);
  if (at == std::string::npos) return "";
  const size_t from = at + marker.size();
  const size_t to = output.find('\'', from);
  return to == std::string::npos ? "" : output.substr(from, to - from);
}

// Where Node would look for packages for `command`: the NODE_PATH a small wrapper script sets
// (the kit's run_bot), then the node_modules folders above each .js argument.
std::vector<std::string> node_package_folders(const std::vector<std::string>& command) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!command.empty() && fs::is_regular_file(command[0], ec) &&
      fs::file_size(command[0], ec) < 16384) {
    std::ifstream in(command[0]);
    std::string line;
    while (std::getline(in, line)) {
      const size_t at = line.find("NODE_PATH=\"");
      if (at == std::string::npos) continue;
      std::istringstream paths(line.substr(at + 11, line.find('"', at + 11) - at - 11));
      for (std::string p; std::getline(paths, p, ':');)
        if (!p.empty()) out.push_back(p);
    }
  }
  for (const std::string& arg : command)
    if (arg.size() > 3 && arg.ends_with(".js"))
      for (fs::path dir = fs::absolute(arg, ec).parent_path();
           !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
        out.push_back((dir / "node_modules").string());
  return out;
}

// The fix for a Node package the sandbox hides: the first folder it would be found in that
// exists and is not shown.
std::optional<std::string> node_fix(const StartupFailure& f) {
  const std::string package = missing_node_module(f.output);
  if (package.empty() || !f.sandboxed) return std::nullopt;
  std::error_code ec;
  for (const std::string& folder : node_package_folders(f.command)) {
    bool shown = false;
    for (const std::string& dir : f.visible_dirs) shown |= inside(folder, dir);
    if (shown || !fs::exists(fs::path(folder) / package, ec)) continue;
    return "Node found no package '" + package + "': it is in " + folder +
           ", which the sandbox does not show. " + read_only_fix(folder);
  }
  return std::nullopt;
}

std::string timeout_sentence(const StartupFailure& f) {
  return "The limit is the start-up timeout of " + std::to_string(f.timeout.count()) +
         " ms (--startup-timeout-ms of referee match and check-bot, startup_timeout_ms in a "
         "tournament file); raise it if the bot is only slow to start.";
}

// The known causes, each with its fix, as sentences.
std::vector<std::string> causes(const StartupFailure& f) {
  std::vector<std::string> out;
  const std::string passed = "the referee passed `--listen " + f.listen + "`";
  std::string where;  // where it listens instead of the address passed
  for (const std::string& a : f.listening)
    if (a != f.listen) where += (where.empty() ? "" : ", ") + a;
  if (!where.empty()) {
    out.push_back("It did not listen on the address passed: " + passed + ", but it listens on " +
                  where + ". Serve on the address --listen gives (the SDKs' run() does).");
  } else if (f.socket_found) {
    out.push_back(
        "It listens on the address passed, but its health check never answered "
        "SERVING: serve the standard grpc.health.v1.Health service, answering "
        "SERVING for the service name \"\" (the SDKs do).");
  } else if (!f.exit.empty() && f.output.find("--listen") != std::string::npos) {
    out.push_back("It seems not to accept --listen (" + passed +
                  "): a bot must take --listen ADDRESS and serve there.");
  } else {
    out.push_back("The referee passed `--listen " + f.listen + "`.");
  }
  if (f.timed_out && where.empty()) out.push_back(timeout_sentence(f));
  const std::string module = missing_module(f.output);
  const std::optional<std::string> venv =
      module.empty() ? std::nullopt : virtual_environment_of(f.command);
  bool shown = false;
  for (const std::string& dir : f.visible_dirs) shown |= venv && inside(*venv, dir);
  if (venv && f.sandboxed && !shown) {
    out.push_back("Python found no module '" + module +
                  "': the interpreter belongs to the virtual environment " + *venv +
                  " (its pyvenv.cfg), which the sandbox does not show. " + read_only_fix(*venv));
  } else if (const std::optional<std::string> node = node_fix(f)) {
    out.push_back(*node);
  } else if (module == "allfives_bot" && !venv) {
    const std::string runner = build_python_runner();
    out.push_back("This Python has no allfives_bot (the Python SDK): start the bot with " +
                  (runner.empty() ? std::string("the SDK's runner, allfives-bot FILE")
                                  : runner + " FILE (this build's SDK)") +
                  ", or with the python3 of a virtual environment the SDK is installed in "
                  "(sdk/README.md) and --read-only on that environment.");
  }
  return out;
}

}  // namespace

void set_invocation(std::vector<std::string> argv) {
  mutable_invocation() = std::move(argv);
}

std::string describe_startup_failure(const StartupFailure& f) {
  std::string out = f.why;
  if (!f.exit.empty()) out += " (" + f.exit + ")";
  out += ".";
  for (const std::string& sentence : causes(f)) out += " " + sentence;
  // Quoted on the operator's terminal by match, tournament and replay: no escape sequences.
  if (!f.output.empty()) out += " Its output:\n" + terminal_text(f.output, true);
  return out;
}

namespace {

// A /proc file's text, or what was read of it. A process may exit between the file's open and
// its read, which then fails (ESRCH): that is an empty or a short text here, where a stream
// read through istreambuf_iterator throws.
std::string proc_text(const fs::path& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  read_chunks(fd, [&](std::string_view chunk) {
    text += chunk;
    return true;
  });
  ::close(fd);
  return text;
}

// Every process whose parent chain leads to `pid`, and `pid` itself.
std::vector<int> family_of(int pid) {
  std::map<int, std::vector<int>> children;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string text = proc_text(it->path() / "stat");
    const size_t paren = text.rfind(')');  // the name may hold spaces and parentheses
    int ppid = 0;
    char state = 0;
    if (paren != std::string::npos &&
        std::sscanf(text.c_str() + paren + 1, " %c %d", &state, &ppid) == 2)
      children[ppid].push_back(std::stoi(name));
  }
  std::vector<int> family{pid};
  for (size_t i = 0; i < family.size(); ++i)
    for (int child : children[family[i]]) family.push_back(child);
  return family;
}

// The inodes of the sockets `pid` holds open.
std::set<std::string> socket_inodes(int pid) {
  std::set<std::string> inodes;
  std::error_code ec;
  const fs::path fds = "/proc/" + std::to_string(pid) + "/fd";
  for (fs::directory_iterator it(fds, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code link_ec;
    const std::string target = fs::read_symlink(it->path(), link_ec).string();
    if (!link_ec && target.rfind("socket:[", 0) == 0)
      inodes.insert(target.substr(8, target.size() - 9));
  }
  return inodes;
}

// "0100007F:C383" (IPv4) or 32 hex digits (IPv6), each 32-bit word in host order, and a port.
std::string tcp_address(const std::string& hex) {
  const size_t colon = hex.find(':');
  if (colon == std::string::npos) return hex;
  const unsigned port = static_cast<unsigned>(std::stoul(hex.substr(colon + 1), nullptr, 16));
  const std::string addr = hex.substr(0, colon);
  char text[INET6_ADDRSTRLEN] = "?";
  if (addr.size() == 8) {
    const uint32_t word = static_cast<uint32_t>(std::stoul(addr, nullptr, 16));
    ::inet_ntop(AF_INET, &word, text, sizeof text);
    return std::string(text) + ":" + std::to_string(port);
  }
  if (addr.size() == 32) {
    uint32_t words[4];
    for (int i = 0; i < 4; ++i)
      words[i] = static_cast<uint32_t>(std::stoul(addr.substr(8 * i, 8), nullptr, 16));
    ::inet_ntop(AF_INET6, words, text, sizeof text);
  }
  std::string out(1, '[');
  out.append(text).append("]:").append(std::to_string(port));
  return out;
}

// The rows of a /proc/net table as words, its heading left out.
std::vector<std::vector<std::string>> table_rows(const std::string& table) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    rows.emplace_back(std::istream_iterator<std::string>(fields),
                      std::istream_iterator<std::string>());
  }
  return rows;
}

// /proc/net/tcp and tcp6: "sl local remote st ... inode" (the inode is the 10th word); st 0A
// is LISTEN.
void add_tcp_listeners(const std::string& table, const std::set<std::string>& inodes,
                       std::vector<std::string>& out) {
  for (const std::vector<std::string>& r : table_rows(table))
    if (r.size() > 9 && r[3] == "0A" && inodes.count(r[9]))
      out.push_back(tcp_address(r[1]) + " (TCP)");
}

// /proc/net/unix: "Num RefCount Protocol Flags Type St Inode Path"; the flag __SO_ACCEPTCON
// (0x10000) marks a socket that listen() was called on.
void add_unix_listeners(const std::string& table, const std::set<std::string>& inodes,
                        std::vector<std::string>& out) {
  for (const std::vector<std::string>& r : table_rows(table))
    if (r.size() > 7 && (std::stoul(r[3], nullptr, 16) & 0x10000u) != 0 && inodes.count(r[6]))
      out.push_back("unix:" + r[7]);
}

}  // namespace

std::vector<std::string> listening_addresses(int pid) {
  std::vector<std::string> out;
  for (int member : family_of(pid)) {
    const std::set<std::string> inodes = socket_inodes(member);
    if (inodes.empty()) continue;
    // The tables of the member's own network namespace (a sandbox has one of its own).
    const std::string net = "/proc/" + std::to_string(member) + "/net/";
    std::vector<std::string> found;
    add_tcp_listeners(net + "tcp", inodes, found);
    add_tcp_listeners(net + "tcp6", inodes, found);
    add_unix_listeners(net + "unix", inodes, found);
    for (const std::string& a : found)
      if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  return out;
}

namespace {

bool is_python(const std::string& program) {
  return fs::path(program).filename().string().rfind("python", 0) == 0;
}

std::optional<std::string> venv_around(const std::string& interpreter) {
  const fs::path dir = fs::path(interpreter).parent_path();
  std::error_code ec;
  for (const fs::path& root : {dir, dir.parent_path()})
    if (!root.empty() && fs::is_regular_file(root / "pyvenv.cfg", ec)) return root.string();
  return std::nullopt;
}

}  // namespace

std::optional<std::string> virtual_environment_of(const std::vector<std::string>& command) {
  if (command.empty()) return std::nullopt;
  std::string why;
  const std::optional<std::string> program = find_program(command[0], "", &why);
  if (!program) return std::nullopt;
  if (is_python(*program)) return venv_around(*program);
  // A script: its #! line names the interpreter, directly or through env.
  std::ifstream in(*program);
  std::string line;
  if (!std::getline(in, line) || line.rfind("#!", 0) != 0) return std::nullopt;
  std::istringstream words(line.substr(2));
  std::string interpreter, next;
  words >> interpreter;
  if (fs::path(interpreter).filename() == "env") {
    while (words >> next && next.starts_with('-')) {
    }
    if (next.empty()) return std::nullopt;
    const std::optional<std::string> found = find_program(next, "", &why);
    if (!found) return std::nullopt;
    interpreter = *found;
  }
  return is_python(interpreter) ? venv_around(interpreter) : std::nullopt;
}

}  // namespace allfives::referee
