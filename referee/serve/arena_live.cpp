#include "serve/arena_live.h"

#include <sys/stat.h>

#include <algorithm>

#include "replay/frames.h"
#include "replay/html_view.h"
#include "replay/replay.h"
#include "serve/log_folders.h"

namespace allfives::referee::serve {

size_t ArenaSite::Live::refresh(Follower& f) {
  struct stat st {};
  if (::stat(f.path.c_str(), &st) != 0 || st.st_size == f.size) return f.steps.size();
  f.size = st.st_size;
  if (st.st_size > kMaxPageLogBytes) {  // grown too large to draw: stop following it
    f.too_large = true;
    return f.steps.size();
  }
  const auto started = std::chrono::steady_clock::now();
  struct Throttle {
    Follower& f;
    std::chrono::steady_clock::time_point started;
    ~Throttle() {
      const auto now = std::chrono::steady_clock::now();
      f.next_check = now + 10 * (now - started);
    }
  } throttle{f, started};
  std::string text;
  if (!read_bounded(f.path, static_cast<size_t>(kMaxPageLogBytes), text, true))
    return f.steps.size();
  Replay replay;
  LogError error;
  load_replay(text, f.path, replay, error);  // on an error: the steps before it
  const std::vector<Frame> frames = build_frames(replay, f.viewer);
  // Frames only ever grow at the end; a shorter list means the file was replaced.
  size_t from = std::min(f.steps.size(), frames.size());
  if (frames.size() < f.steps.size()) from = 0;
  f.steps.resize(from);
  for (size_t i = from; i < frames.size(); ++i)
    f.steps.push_back(html_step_json(replay, frames[i]));
  f.hands = html_hands_json(replay, frames);
  f.finished = replay.finished;
  return from;
}

std::string ArenaSite::Live::message(const Follower& f, size_t from) {
  std::string m = "{\"from\":" + std::to_string(from) +
                  ",\"finished\":" + (f.finished ? "true" : "false") + ",\"hands\":" + f.hands +
                  ",\"steps\":[";
  for (size_t i = from; i < f.steps.size(); ++i) {
    if (i > from) m += ',';
    m += f.steps[i];
  }
  return m + "]}";
}

bool ArenaSite::Live::subscribe(const std::string& path, int viewer, size_t from,
                                std::shared_ptr<EventSink> sink) {
  Follower& f = followers[{path, viewer}];
  if (f.path.empty()) {
    f.path = path;
    f.viewer = viewer;
  }
  refresh(f);
  if (from < f.steps.size() || f.finished)
    sink->send(std::make_shared<const std::string>(
        EventSink::event_frame("", message(f, std::min(from, f.steps.size())))));
  if (f.finished || f.too_large) {
    sink->close();
  } else {
    f.watchers.push_back({std::move(sink)});
  }
  if (f.watchers.empty()) followers.erase({path, viewer});
  tick();
  return true;
}

void ArenaSite::Live::tick() {
  if (ticking || followers.empty()) return;
  ticking = true;
  timer.expires_after(interval);
  timer.async_wait([self = weak_from_this()](const boost::system::error_code& ec) {
    auto live = self.lock();
    if (!live || ec) return;
    live->ticking = false;
    live->poll();
    live->tick();
  });
}

void ArenaSite::Live::poll() {
  for (auto it = followers.begin(); it != followers.end();) {
    Follower& f = it->second;
    std::erase_if(f.watchers, [](const Watcher& w) { return w.sink->closed(); });
    if (f.watchers.empty()) {
      it = followers.erase(it);
      continue;
    }
    if (std::chrono::steady_clock::now() < f.next_check) {
      ++it;
      continue;
    }
    const size_t before = f.steps.size();
    const bool was_finished = f.finished;
    const off_t size = f.size;
    const size_t from = refresh(f);
    if (f.size != size &&
        (from < f.steps.size() || f.steps.size() != before || f.finished != was_finished)) {
      auto frame =
          std::make_shared<const std::string>(EventSink::event_frame("", message(f, from)));
      for (const Watcher& w : f.watchers) w.sink->send(frame);
    }
    if (f.finished || f.too_large) {
      for (const Watcher& w : f.watchers) w.sink->close();
      it = followers.erase(it);
      continue;
    }
    ++it;
  }
}

}  // namespace allfives::referee::serve
