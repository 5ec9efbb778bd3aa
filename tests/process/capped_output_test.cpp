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
  EXPECT_EQ(out.take().text, "abcdefgh");
  EXPECT_EQ(out.take().text, "");
}

TEST(CappedOutput, ExactlyTheCapDropsNothing) {
  CappedOutput out(10);
  out.append("0123456789");
  EXPECT_EQ(out.take().text, "0123456789");
}

TEST(CappedOutput, KeepsHeadAndTailWithMarkerBetween) {
  CappedOutput out(10);  // 5 head bytes, 5 tail bytes
  out.append("0123456789");
  out.append("abcdefghij");
  EXPECT_EQ(out.dropped(), 10u);
  EXPECT_EQ(out.take().text, "01234" + CappedOutput::marker(10) + "fghij");
}

TEST(CappedOutput, TailIsARingAcrossManySmallWrites) {
  CappedOutput out(6);  // 3 head bytes, 3 tail bytes
  const std::string text = "the quick brown fox";
  for (char c : text) out.append(std::string(1, c));
  EXPECT_EQ(out.take().text, "the" + CappedOutput::marker(text.size() - 6) + "fox");
}

TEST(CappedOutput, MixedWriteSizesKeepTheLastBytes) {
  CappedOutput out(8);  // 4 + 4
  out.append("AAAA");
  out.append("bb");
  out.append("ccc");    // tail "bccc": the ring starts dropping
  out.append("d");      // tail "cccd"
  out.append("eeeee");  // alone fills the tail: "eeee"
  out.append("fg");     // tail "eefg"
  EXPECT_EQ(out.take().text, "AAAA" + CappedOutput::marker(13 - 4) + "eefg");
}

// The count comes from the capture: text that looks like a marker is only text.
TEST(CappedOutput, TheDroppedCountIsTheCapturesOwn) {
  CappedOutput out(64);
  out.append(CappedOutput::marker(999999));
  const CappedOutput::Taken forged = out.take();
  EXPECT_EQ(forged.dropped, 0u);
  EXPECT_EQ(forged.text, CappedOutput::marker(999999));
  out.append(std::string(100, 'x'));
  EXPECT_EQ(out.take().dropped, 36u);
}

TEST(CappedOutput, TakeStartsANewWindow) {
  CappedOutput out(4);
  out.append("123456789");
  EXPECT_EQ(out.take().text, "12" + CappedOutput::marker(5) + "89");
  out.append("xy");
  EXPECT_EQ(out.take().text, "xy");
}

TEST(CappedOutput, ZeroCapKeepsOnlyTheCount) {
  CappedOutput out(0);
  out.append("hello");
  EXPECT_EQ(out.take().text, CappedOutput::marker(5));
}

}  // namespace
}  // namespace allfives::referee
