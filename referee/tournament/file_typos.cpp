#include "tournament/file_typos.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "text/did_you_mean.h"

namespace allfives::referee {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;

// The text between the quotes after `marker` in `message`, or "".
std::string quoted_after(const std::string& message, const std::string& marker) {
  const size_t at = message.find(marker);
  if (at == std::string::npos) return "";
  const size_t from = at + marker.size();
  const size_t to = message.find('"', from);
  return to == std::string::npos ? "" : message.substr(from, to - from);
}

std::string suggestion(const std::string& word, const std::vector<std::string>& names,
                       const char* what) {
  const std::optional<std::string> near = nearest_name(word, names);
  return (near ? " Did you mean " + *near + "?" : std::string()) + " " + what + ": " +
         name_list(names) + ".";
}

// The enum of a field named `name` in `d` or a message below it.
const EnumDescriptor* enum_of_field(const Descriptor* d, const std::string& name,
                                    std::vector<const Descriptor*>& seen) {
  for (const Descriptor* s : seen)
    if (s == d) return nullptr;
  seen.push_back(d);
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->name() == name && f->enum_type()) return f->enum_type();
    if (f->message_type())
      if (const EnumDescriptor* e = enum_of_field(f->message_type(), name, seen)) return e;
  }
  return nullptr;
}

// Moves `p` to the last whole word `value` before where the parser reported it (which is
// after the word, at the next token).
void move_to_word(ParseProblem& p, const std::string& text, const std::string& value) {
  size_t offset = 0;
  for (int line = 1; line < p.line && offset != std::string::npos; ++line)
    offset = text.find('\n', offset) == std::string::npos ? std::string::npos
                                                          : text.find('\n', offset) + 1;
  if (offset == std::string::npos) return;
  offset = std::min(text.size(), offset + static_cast<size_t>(std::max(0, p.column - 1)));
  size_t at = text.rfind(value, offset);
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  while (at != std::string::npos &&
         ((at > 0 && word_char(text[at - 1])) ||
          (at + value.size() < text.size() && word_char(text[at + value.size()]))))
    at = at == 0 ? std::string::npos : text.rfind(value, at - 1);
  if (at == std::string::npos) return;
  const size_t line_start = text.rfind('\n', at == 0 ? 0 : at - 1);
  p.line =
      1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  p.column =
      static_cast<int>(at - (line_start == std::string::npos || at == 0 ? 0 : line_start + 1)) + 1;
}

}  // namespace

ParseProblem explain_typo(ParseProblem p, const std::string& text, const Descriptor* root) {
  const std::string type = quoted_after(p.message, "Message type \"");
  const std::string field = quoted_after(p.message, "has no field named \"");
  if (!type.empty() && !field.empty()) {
    const Descriptor* d = root->file()->pool()->FindMessageTypeByName(type);
    if (!d) return p;
    std::vector<std::string> names;
    for (int i = 0; i < d->field_count(); ++i) names.push_back(d->field(i)->name());
    p.message += suggestion(field, names, "Its fields");
    move_to_word(p, text, field);
    return p;
  }
  const std::string value = quoted_after(p.message, "Unknown enumeration value of \"");
  const std::string of = quoted_after(p.message, "\" for field \"");
  if (value.empty() || of.empty()) return p;
  std::vector<const Descriptor*> seen;
  const EnumDescriptor* e = enum_of_field(root, of, seen);
  if (!e) return p;
  std::vector<std::string> names;  // the valid values: not the zero "unspecified" one
  for (int i = 0; i < e->value_count(); ++i)
    if (e->value(i)->number() != 0) names.push_back(e->value(i)->name());
  p.message += suggestion(value, names, "Its values");
  move_to_word(p, text, value);
  return p;
}

std::string FirstParseError::describe(const std::string& path, const std::string& text) const {
  const ParseProblem p = explain_typo(problem_, text, root_);
  return path + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": " + p.message;
}

}  // namespace allfives::referee
