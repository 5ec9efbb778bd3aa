// The names a referee gives what it makes for its bots outside its folders, and their one
// parser (cgroups and socket folders of a dead referee are found by it).
#include "process/referee_names.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace allfives::referee {
namespace {

TEST(RefereeNames, ANameCarriesThisProcesssIdAndReadsBack) {
  const std::string name = referee_name("7");
  EXPECT_EQ(name, "allfives-" + std::to_string(::getpid()) + "-7");
  const auto parsed = parse_referee_name(name);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->pid, ::getpid());
  EXPECT_EQ(parsed->suffix, "7");
}

TEST(RefereeNames, TheSuffixIsEverythingAfterThePid) {
  const auto parsed = parse_referee_name("allfives-123-ab-c");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->pid, 123);
  EXPECT_EQ(parsed->suffix, "ab-c");
}

TEST(RefereeNames, OtherNamesAreNotTheReferees) {
  for (const char* name : {"", "allfives-", "allfives-123", "allfives-123-", "allfives--x",
                           "allfives-0-x", "allfives-12a-x", "allfives-99999999999-x",
                           "allfives-2147483648-x", "allfivesX123-x", "other-123-x"})
    EXPECT_FALSE(parse_referee_name(name).has_value()) << name;
  EXPECT_TRUE(parse_referee_name("allfives-2147483647-x").has_value());
}

}  // namespace
}  // namespace allfives::referee
