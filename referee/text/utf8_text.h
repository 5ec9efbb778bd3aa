// Text from a bot (what it printed, the messages of the statuses it ended streams with) made
// valid UTF-8, so it can go into a log: protobuf's JSON printer would drop it with a warning.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace allfives::referee {

// `text` with every byte that is not part of a valid UTF-8 sequence (RFC 3629: no overlong
// forms, surrogates or code points above U+10FFFF) written as the four characters \xNN
// (hexadecimal, lower case); everything else, backslashes included, is kept as it is.
// Counts the escaped bytes in `*invalid_bytes` (if not null).
std::string valid_utf8(std::string_view text, uint64_t* invalid_bytes = nullptr);

}  // namespace allfives::referee
