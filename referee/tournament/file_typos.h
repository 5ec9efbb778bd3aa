// A typo in a tournament file, explained: the protobuf text parser says that a field or an
// enum value is unknown; this adds the name that was probably meant and the valid ones.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/tokenizer.h>

#include <string>

namespace allfives::referee {

// The parser's first error, as its ErrorCollector reported it (line and column 1-based).
struct ParseProblem {
  int line = 0, column = 0;
  std::string message;
};

// `p` with "Did you mean X? Its fields: ..." (or "Its values: ...") appended when its message
// is the parser's unknown field ("Message type "T" has no field named "F".") or unknown enum
// value ("Unknown enumeration value of "V" for field "F"."), names looked up under `root`. The
// parser reports either at the token after the unknown word: the position is moved back to the
// word itself, found in `text`. Any other problem is returned as it is.
ParseProblem explain_typo(ParseProblem p, const std::string& text,
                          const google::protobuf::Descriptor* root);

// Keeps the protobuf text parser's first error for a file of the message `root`.
class FirstParseError final : public google::protobuf::io::ErrorCollector {
 public:
  explicit FirstParseError(const google::protobuf::Descriptor* root) : root_(root) {}
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (problem_.message.empty()) problem_ = {line + 1, column + 1, message};
  }
  // "FILE:LINE:COLUMN: what", with the name probably meant for an unknown one.
  std::string describe(const std::string& path, const std::string& text) const;

 private:
  const google::protobuf::Descriptor* root_;
  ParseProblem problem_;
};

}  // namespace allfives::referee
