// Versions uploaded from the served pages, taken through the same steps as `referee ladder
// submit` on a thread of their own (unpacking and the gate take seconds, and the server's
// thread must keep answering): stored safely (bot_upload.h), its command chosen, recorded as
// NAME@N, then `referee check-bot` with the ladder's terms. Each job reports its state, which
// the upload's page polls. One job runs at a time; a few more may wait.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace allfives::referee::serve {

struct UploadJob {
  std::string ladder;  // the ladder's folder (a real path)
  int root = 0;
  int64_t user = 0;
  std::string bot;
  std::vector<std::string> command;  // the --command words, or none to choose
  // The uploaded file, alone in a folder of its own that the job removes.
  std::string file;
};

struct UploadStatus {
  int root = 0;
  int64_t user = 0;
  std::string bot;
  // waiting, unpacking, checking, passed, refused (by the checks or the gate), failed (the
  // gate could not run here: the running ladder checks it later).
  std::string state = "waiting";
  std::string version;  // NAME@N once recorded
  std::string message;  // a line for the page: why refused, or the gate's time figures
  std::string report;   // the gate's report
};
// {"state":…,"version":…,"message":…,"report":…}
std::string upload_status_json(const UploadStatus& s);

class LadderUploads {
 public:
  static constexpr size_t kMaxWaiting = 8;

  LadderUploads();
  // Lets the running job finish and drops the waiting ones (their files removed).
  ~LadderUploads();
  LadderUploads(const LadderUploads&) = delete;
  LadderUploads& operator=(const LadderUploads&) = delete;

  // Queues the job; its id, or "" if kMaxWaiting wait already (the file is then removed).
  std::string start(UploadJob job);
  std::optional<UploadStatus> status(const std::string& id) const;
  // Jobs of `user` of ladder `root` not yet recorded as versions (for the hourly limit).
  int unrecorded(int root, int64_t user) const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace allfives::referee::serve
