#include "serve/ladder_uploads.h"

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "ladder/access_tokens.h"
#include "ladder/bot_upload.h"
#include "ladder/ladder_run.h"
#include "ladder/ladder_store.h"
#include "log/json_text.h"
#include "rounds/child_process.h"

namespace allfives::referee::serve {

namespace fs = std::filesystem;

struct LadderUploads::State {
  mutable std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::pair<std::string, UploadJob>> waiting;
  std::map<std::string, UploadStatus> jobs;
  std::deque<std::string> finished;  // the oldest first, to forget beyond kKeptJobs
  bool stopping = false;
  std::thread worker;

  static constexpr size_t kKeptJobs = 1000;

  template <class F>
  void update(const std::string& id, F f) {
    std::lock_guard lock(mutex);
    f(jobs[id]);
  }
  void finish(const std::string& id) {
    std::lock_guard lock(mutex);
    finished.push_back(id);
    while (finished.size() > kKeptJobs) {
      jobs.erase(finished.front());
      finished.pop_front();
    }
  }
  void loop();
};

namespace {

void remove_upload(const std::string& file) {
  std::error_code ec;
  fs::remove_all(fs::path(file).parent_path(), ec);
}

// The line of a gate's report a person reads first: the time figures of a pass, the first
// failure of a refusal.
std::string gate_line(const std::string& report, bool passed) {
  std::istringstream lines(report);
  std::string line;
  while (std::getline(lines, line)) {
    if (passed) {
      const size_t at = line.find("median ");
      if (at != std::string::npos) return line.substr(at, line.find(';', at) - at);
    } else if (line.find("FAIL") != std::string::npos) {
      const size_t start = line.find_first_not_of(' ');
      return start == std::string::npos ? line : line.substr(start);
    }
  }
  return "";
}

// `message` with the version's folder left out of the paths it names, so the server's folders
// stay its own.
std::string within_version(const std::string& message, const std::string& folder) {
  if (message.starts_with(folder + "/")) return message.substr(folder.size() + 1);
  if (message.starts_with(folder + ":"))
    return std::string("its folder").append(message.substr(folder.size()));
  return message;
}

// The steps of `referee ladder submit`; updates the job's status as it goes.
void run_job(LadderUploads::State& s, const std::string& id, const UploadJob& job) {
  const std::string staged = (fs::path(job.ladder) / kLadderBots / (".upload-" + id)).string();
  std::error_code ec;
  auto refuse = [&](const std::string& why) {
    fs::remove_all(staged, ec);
    s.update(id, [&](UploadStatus& st) {
      st.state = "refused";
      st.message = why;
    });
  };
  s.update(id, [](UploadStatus& st) { st.state = "unpacking"; });
  const LadderDef def = load_ladder_folder(job.ladder);
  if (std::string bad = store_upload(job.file, staged, def.upload(), default_unpacker());
      !bad.empty())
    return refuse(bad);
  std::vector<std::string> argv;
  if (std::string bad = choose_command(staged, job.command, def.proto.python(), argv); !bad.empty())
    return refuse(bad);
  const std::unique_ptr<LadderStore> store = LadderStore::open(job.ladder, false);
  Version v;
  try {
    v = store->add_version(job.user, job.bot, staged, argv);
  } catch (const DbError& e) {
    return refuse(e.what());
  }
  if (std::string bad = make_read_only(v.folder); !bad.empty()) {
    // Files the bot could rewrite between its matches would make its record another program's.
    const std::string why =
        "its files could not be made read-only, so it is refused: " + within_version(bad, v.folder);
    store->set_state(v.id, VersionState::kRefused, why);
    return s.update(id, [&](UploadStatus& st) {
      st.state = "failed";
      st.version = v.name();
      st.message = why;
    });
  }
  s.update(id, [&](UploadStatus& st) {
    st.state = "checking";
    st.version = v.name();
  });
  bool ran = false;
  const std::string report = gate_version(*store, def, v, own_program(), ran);
  const bool passed = ran && store->version(v.name())->state == VersionState::kActive;
  s.update(id, [&](UploadStatus& st) {
    st.report = report;
    if (!ran) {
      st.state = "failed";
      st.message = "the check could not run here; the running ladder checks it before it plays";
      return;
    }
    st.state = passed ? "passed" : "refused";
    st.message = gate_line(report, passed);
  });
}

}  // namespace

void LadderUploads::State::loop() {
  std::unique_lock lock(mutex);
  while (true) {
    wake.wait(lock, [&] { return stopping || !waiting.empty(); });
    if (stopping) break;
    auto [id, job] = std::move(waiting.front());
    waiting.pop_front();
    lock.unlock();
    try {
      run_job(*this, id, job);
    } catch (const std::exception& e) {
      update(id, [&](UploadStatus& st) {
        st.state = "failed";
        st.message = e.what();
      });
    }
    remove_upload(job.file);
    finish(id);
    lock.lock();
  }
  for (const auto& [id, job] : waiting) remove_upload(job.file);
  waiting.clear();
}

std::string upload_status_json(const UploadStatus& s) {
  std::string out = "{\"state\":";
  append_json_string(out, s.state);
  out += ",\"version\":";
  append_json_string(out, s.version);
  out += ",\"message\":";
  append_json_string(out, s.message);
  out += ",\"report\":";
  append_json_string(out, s.report);
  return out + "}";
}

LadderUploads::LadderUploads() : state_(std::make_shared<State>()) {
  state_->worker = std::thread([s = state_] { s->loop(); });
}

LadderUploads::~LadderUploads() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  state_->worker.join();
}

std::string LadderUploads::start(UploadJob job) {
  std::lock_guard lock(state_->mutex);
  if (state_->waiting.size() >= kMaxWaiting) {
    remove_upload(job.file);
    return "";
  }
  const std::string id = make_token().substr(0, 16);
  UploadStatus& st = state_->jobs[id];
  st.root = job.root;
  st.user = job.user;
  st.bot = job.bot;
  state_->waiting.emplace_back(id, std::move(job));
  state_->wake.notify_one();
  return id;
}

std::optional<UploadStatus> LadderUploads::status(const std::string& id) const {
  std::lock_guard lock(state_->mutex);
  const auto it = state_->jobs.find(id);
  if (it == state_->jobs.end()) return std::nullopt;
  return it->second;
}

int LadderUploads::unrecorded(int root, int64_t user) const {
  std::lock_guard lock(state_->mutex);
  int n = 0;
  for (const auto& [id, st] : state_->jobs)
    n += st.root == root && st.user == user && st.version.empty() &&
         (st.state == "waiting" || st.state == "unpacking");
  return n;
}

}  // namespace allfives::referee::serve
