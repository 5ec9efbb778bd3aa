// What a started bot may see and use: the bubblewrap sandbox around it and its resource
// limits. The process layer applies both (bot_launch.cpp); this file decides them.
//
// The sandbox (bubblewrap, the `bwrap` program) gives each bot its own user, PID, IPC, UTS,
// mount, network and cgroup namespaces: no network at all (its Unix socket is its only way
// out), a /proc that shows only its own processes, and a file system made of
//   * read-only: /usr, /bin, /sbin, /lib* (or their symlinks), the few files of /etc a program
//     needs to start (kEtcFiles in sandbox.cpp: copies where every user may read them), the
//     program's folder, the folder of every argument that names an existing file or folder
//     (`python3 path/to/bot.py`), and the extra read-only folders the user gave for this bot;
//   * read-write: its own socket folder kSandboxSocketDir, a tmpfs of kSocketDirSizeMib, and a
//     private tmpfs /tmp of kTmpSizeMib: both inside the sandbox, so nothing the bot writes
//     reaches the host's disk. The referee reaches the bot's socket from outside through the
//     sandbox's root, /proc/<pid of bwrap's process inside>/root/run/bot/<name>.sock (bwrap
//     reports that pid on --info-fd; BotProcess::sandbox_pid()). The kernel lets a process
//     enter another's root when it may ptrace-read it: the referee runs as the bot's own user
//     (it made the sandbox's user namespace) or as root;
//   * its own /proc and a /dev of null, zero, random and urandom; nothing else (not the
//     referee's files, logs, output folder or tournament file, not any other bot's socket or
//     files, not $HOME).
// The referee's own paths (HiddenPath: the match log and its folder, a tournament's output
// folder, its files and the tournament file, the folder of unsandboxed bots' sockets) stay hidden
// even where they lie inside a folder the bot may read (`referee match ./bot_a ./bot_b` writes
// logs/ next to the bots): after the binds, each such folder is covered by an empty read-only
// tmpfs and each such file by /dev/null (masks_for, bwrap_argv). A bound folder shows later
// changes to what it holds, so the referee makes these paths before it starts a bot, and a
// bot is not started while one is missing. When a folder the bot may read is, or lies inside,
// a folder of the referee's that may also hold the user's files (`--log match.jsonl` in the
// bots' folder, bots kept inside a tournament's output folder), the referee's files in it are
// covered one by one; when it is, or lies inside, a folder that holds nothing but the
// referee's (a tournament's matches/), the referee refuses to start, naming the bot and the
// folder, rather than play in the open.
// Every path given to the bot is resolved once before it starts and must be what it looks like
// (link_refusal): no symbolic link leading out of the folders it was given, nothing of the
// host's /proc, /sys, /dev or /run. A system-call filter (seccomp.h) refuses connect(), so a
// host socket inside a folder it may read is no way out; no user namespace can be made inside
// (--disable-userns); bwrap's options come from a memory file (--args), so the sandbox's
// /proc/1/cmdline shows no host path.
// Its environment is a short fixed list (bot_environment()). bwrap's --die-with-parent and the
// PID namespace mean that when the bot's sandbox ends, or the referee dies even by SIGKILL,
// every process in it dies: a setsid() grandchild cannot escape.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "process/resource_limits.h"

namespace allfives::referee {

// The size of the sandbox's private /tmp (tmpfs, counted against the machine's memory).
constexpr uint64_t kTmpSizeMib = 64;

// The bot's socket folder inside its sandbox: a tmpfs there, so nothing the bot writes into it
// reaches the host's disk. The referee reaches the socket as /proc/<sandbox pid>/root/run/bot/
// <name>.sock (BotProcess::sandbox_pid()); a short path keeps that far below the 108 bytes a
// Unix socket path may have, whatever $TMPDIR is.
constexpr const char* kSandboxSocketDir = "/run/bot";
// The size of that tmpfs: a socket takes no room, a few MiB leave some for a lock or pid file.
constexpr uint64_t kSocketDirSizeMib = 4;

// How one bot is sandboxed: what it sees besides the system folders.
struct SandboxLayout {
  std::string bwrap;                   // path of the bwrap program
  std::vector<std::string> read_only;  // folders bound read-only, at these paths inside
  // Where each of read_only is bound from: its real path, resolved once when the bot starts
  // (empty: read_only itself), so bwrap binds what the referee checked.
  std::vector<std::string> read_only_sources;
  // The referee's own paths as the bot would see them through read_only (masks_for): covered
  // after the binds, a folder by an empty read-only tmpfs, a file by /dev/null.
  std::vector<HiddenPath> masks;
  std::string writable;  // its socket folder: a tmpfs of kSocketDirSizeMib made at this path
  int info_fd = -1;      // bwrap's --info-fd (the sandbox's pid is written there), -1: none
  int seccomp_fd = -1;   // bwrap's --seccomp: the filter of seccomp.h is readable there
  // --unshare-user --disable-userns: no user namespace can be made inside the sandbox (bwrap
  // 0.8 and later; see bwrap_disables_userns()).
  bool disable_userns = false;
  std::string working_dir;  // where the bot starts (made empty if not bound)
  std::vector<std::pair<std::string, std::string>> system_links;  // {link, target}: /lib -> usr/lib
  std::vector<std::string> system_dirs;   // system folders bound read-only (/usr, ...)
  std::vector<std::string> system_files;  // folders of /etc bound read-only if they exist
  // Files of /etc that every user may read, copied into the sandbox's root read-only (bwrap's
  // --file) from descriptors copied_fd, copied_fd + 1, ... that the caller opens: a copy costs
  // bwrap no mount, where a bind costs it one and a reading of the mount table (together about
  // 0.2 ms a file at each start).
  std::vector<std::string> copied_files;
  int copied_fd = -1;
  // Host-wide counters in /proc (kHostActivityFiles, /proc/pressure) that exist here and the bot
  // could read: covered.
  std::vector<std::string> host_activity_files;
  std::vector<std::string> host_activity_dirs;
};

// The system part of the layout as this machine has it: /bin, /lib... as folders or symlinks;
// the files of /etc a program needs, as symlinks into /usr where they are such links, copies
// where every user may read them, else bound; the host-wide counters of /proc a bot running as
// root (`bot_is_root`), or else as a user of its own, could read.
void add_system_paths(SandboxLayout& layout, bool bot_is_root);

// How a file of /etc with status `st` (of the file a symlink leads to) enters the sandbox:
// copied if it is a regular file of at most kMaxCopiedBytes that every user may read (a copy
// shows the bot nothing it could not read through a bind), else bound.
constexpr uint64_t kMaxCopiedBytes = 1 << 20;
bool copied_into_sandbox(const struct stat& st);
// Whether a process of a user other than root could read a file with status `st`: a file of
// root's that only root may read needs no cover from a bot that is not root.
bool readable_by_non_root(const struct stat& st);

// The folders a bot needs read-only to run `argv` (argv[0] already an absolute path): the
// program's folder (and its real folder if it is a symlink), and the folder of every argument
// that names an existing file (or the argument itself if it is a folder), taken relative to
// `working_dir`. Then `extra`, made absolute against `working_dir`. Sorted, duplicates and the
// system folders (bound anyway) removed.
std::vector<std::string> needed_folders(const std::vector<std::string>& argv,
                                        const std::string& working_dir,
                                        const std::vector<std::string>& extra);
// Every path a sandboxed bot is given (`argv[0]`, absolute; each argument that names an
// existing file or folder, relative to `working_dir`; each of `extra`), resolved once, must be
// what it looks like. Every symbolic link on its way must lead into the folder that holds the
// link, into a system folder, or into a folder given to the bot without links (its program's,
// an argument's, one of `extra`); a link in / itself is the system's layout and may lead
// anywhere. And what it finally names may not be, or lie inside, the host's /proc, /sys, /dev
// or /run (the sandbox has its own), or one of the referee's own paths (`hidden`). Returns why
// not ("argument './data' is a symbolic link that leads to /proc, ..."), or nullopt. A path
// that does not exist is not this function's concern (nothing of it is bound).
std::optional<std::string> link_refusal(const std::vector<std::string>& argv,
                                        const std::string& working_dir,
                                        const std::vector<std::string>& extra,
                                        const std::vector<HiddenPath>& hidden);

// needed_folders() without those inside another listed folder: the folders to bind.
std::vector<std::string> read_only_folders(const std::vector<std::string>& argv,
                                           const std::string& working_dir,
                                           const std::vector<std::string>& extra);

// A folder bound into the sandbox: its path there (as given) and its real path (symlinks
// resolved), under which the referee's paths are compared.
struct BoundFolder {
  std::string path;
  std::string real;
};

// Where the referee's own paths `hidden` (real paths) show through the `bound` folders (the
// folders the bot needs, nested ones too, and the system folders): one mask per hidden path
// and bound folder that holds it, at that folder's path in the sandbox (kind kFile or
// kFolder); none for a kSharedFolder that is or holds a bound folder. A mask inside another
// folder mask is left out (covered anyway). Sets *refusal and returns nothing when a bound
// folder is a kFolder or lies inside one (its binding would show the referee's files); the
// message names both. A pure function of its arguments.
std::vector<HiddenPath> masks_for(const std::vector<BoundFolder>& bound,
                                  const std::vector<HiddenPath>& hidden, std::string* refusal);

// masks_for with the layout's read-only and system folders, the `needed` folders (inside
// them: needed_folders()) and `hidden`, as the file system has them now (real paths; a path
// that does not exist yet is compared as it will be): sets layout.masks, or returns why the
// bot cannot be sandboxed without seeing them.
std::optional<std::string> mask_hidden_paths(SandboxLayout& layout,
                                             const std::vector<std::string>& needed,
                                             const std::vector<HiddenPath>& hidden);

// The full command line that runs `argv` (argv[0] absolute) inside the sandbox. A pure
// function of its arguments.
std::vector<std::string> bwrap_argv(const SandboxLayout& layout,
                                    const std::vector<std::string>& argv);

// The environment every started bot gets, sandboxed or not, instead of the referee's:
// PATH (the referee's, so that bare program names resolve as they do for the user), HOME=/tmp,
// TMPDIR=/tmp, LANG=C.UTF-8, PYTHONUNBUFFERED=1, then `extra` (added or replacing).
std::vector<std::string> bot_environment(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& extra);

// When the referee runs as root, each bot runs as user id bot_uid_base() + its pid (an id no
// account has; unique among running bots), so RLIMIT_NPROC counts that bot alone, and the bot
// can signal no one else and read only world-readable files. 0 when the referee is not root.
uint32_t bot_uid_base();

// The bwrap program in the referee's PATH, "" if there is none.
std::string find_bwrap();

// Whether bots can be sandboxed here: finds bwrap in PATH and starts a trial sandbox exactly
// as a bot's would be. nullopt if it works; otherwise why not, in words, with bwrap's own
// message. The trial runs once per process; later calls return the first answer.
std::optional<std::string> sandbox_problem();
// Whether bwrap takes --disable-userns (0.8.0 and later; decided from its version line once
// sandbox_problem() has run, assumed until then).
bool bwrap_disables_userns();
// The bwrap program found by sandbox_problem() ("" if none), and its version line.
std::string bwrap_path();
std::string bwrap_version();

// What to tell the user when the sandbox cannot be made.
std::string sandbox_refusal(const std::string& problem, const std::string& program);
// The one warning printed when bots run without the sandbox.
std::string no_sandbox_warning(const std::string& program);

}  // namespace allfives::referee
