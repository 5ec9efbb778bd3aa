#include "match_log.h"

#include <fcntl.h>
#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace allfives::referee {

std::string to_json_line(const google::protobuf::Message& m) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string out;
  // Printing a well-formed message cannot fail; an empty line would show it if it ever did.
  (void)google::protobuf::util::MessageToJsonString(m, &out, options);
  return out;
}

bool from_json_line(const std::string& line, google::protobuf::Message* m, std::string* error) {
  google::protobuf::util::JsonParseOptions options;
  const auto status = google::protobuf::util::JsonStringToMessage(line, m, options);
  if (status.ok()) return true;
  if (error) *error = std::string(status.message());
  return false;
}

std::unique_ptr<MatchLog> MatchLog::create(const std::string& path, std::string* error) {
  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) {
    if (error) *error = "cannot create folder " + parent.string() + ": " + ec.message();
    return nullptr;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (error) *error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  return std::unique_ptr<MatchLog>(new MatchLog(fd, path));
}

MatchLog::~MatchLog() { ::close(fd_); }

bool MatchLog::write(const v1::LogRecord& record) {
  std::string line = to_json_line(record);
  line += '\n';
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace allfives::referee
