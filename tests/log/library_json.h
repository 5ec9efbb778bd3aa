// A message as protobuf's own JSON printer writes it with the log's options (proto field names,
// defaults printed): what the log's printer (log/match_log.h) must write byte for byte.
#pragma once

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <string>

namespace allfives::referee::testing {

inline std::string library_json(const google::protobuf::Message& m) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string text;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(m, &text, options).ok());
  return text;
}

}  // namespace allfives::referee::testing
