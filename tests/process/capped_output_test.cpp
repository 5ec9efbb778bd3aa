#include "process/capped_output.h"

#include <gtest/gtest.h>

#include <string>

namespace allfives::referee {
namespace {

TEST(CappedOutput, KeepsEverythingUnderTheCap) {
  CappedOutput out(10);
  out.append("abc");
  out.append("defgh");
  EXPECT_EQ(out.dropped(), 0u);
  EXPECT_EQ(out.take(), "abcdefgh");
  EXPECT_EQ(out.take(), "");
}

TEST(CappedOutput, ExactlyTheCapDropsNothing) {
  CappedOutput out(10);
  out.append("0123456789");
  EXPECT_EQ(out.take(), "0123456789");
}

TEST(CappedOutput, KeepsHeadAndTailWithMarkerBetween) {
  CappedOutput out(10);  // 5 head bytes, 5 tail bytes
  out.append("0123456789");
  out.append("abcdefghij");
  EXPECT_EQ(out.dropped(), 10u);
  EXPECT_EQ(out.take(), "01234" + CappedOutput::marker(10) + "fghij");
}

TEST(CappedOutput, TailIsARingAcrossManySmallWrites) {
  CappedOutput out(6);  // 3 head bytes, 3 tail bytes
  const std::string text = "the quick brown fox";
  for (char c : text) out.append(std::string(1, c));
  EXPECT_EQ(out.take(), "the" + CappedOutput::marker(text.size() - 6) + "fox");
}

TEST(CappedOutput, MixedWriteSizesKeepTheLastBytes) {
  CappedOutput out(8);  // 4 + 4
  out.append("AAAA");
  out.append("bb");
  out.append("ccc");    // tail "bccc": the ring starts dropping
  out.append("d");      // tail "cccd"
  out.append("eeeee");  // alone fills the tail: "eeee"
  out.append("fg");     // tail "eefg"
  EXPECT_EQ(out.take(), "AAAA" + CappedOutput::marker(13 - 4) + "eefg");
}

TEST(CappedOutput, TakeStartsANewWindow) {
  CappedOutput out(4);
  out.append("123456789");
  EXPECT_EQ(out.take(), "12" + CappedOutput::marker(5) + "89");
  out.append("xy");
  EXPECT_EQ(out.take(), "xy");
}

TEST(CappedOutput, ZeroCapKeepsOnlyTheCount) {
  CappedOutput out(0);
  out.append("hello");
  EXPECT_EQ(out.take(), CappedOutput::marker(5));
}

}  // namespace
}  // namespace allfives::referee
