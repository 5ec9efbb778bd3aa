// Text from a bot (its comments, what it printed) made safe to show on a terminal: its
// control characters, which could move the cursor, clear the screen or forge lines, written
// as \xNN; UTF-8 text otherwise unchanged.
#pragma once

#include <string>
#include <string_view>

namespace allfives::referee {

// C0 controls (line breaks and tabs too unless `keep_breaks`), DEL and the C1 controls
// U+0080..U+009F (UTF-8 C2 80..C2 9F) as \xNN of their bytes.
std::string terminal_text(std::string_view text, bool keep_breaks = false);

}  // namespace allfives::referee
