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

// take(cap) keeps the window's first cap - cap/2 and last cap/2 bytes, one marker between, and
// counts every other byte, those the buffer's own cap dropped included.
TEST(CappedOutput, ATakeWithACapKeepsItsHeadAndTail) {
  CappedOutput out(16);
  out.append("0123456789");
  CappedOutput::Taken t = out.take(4);
  EXPECT_EQ(t.text, "01" + CappedOutput::marker(6) + "89");
  EXPECT_EQ(t.dropped, 6u);
  EXPECT_EQ(t.kept, 4u);
  // Beyond the buffer's own cap: its head and tail, cut again.
  out.append("abcdefghijklmnopqrstuvwxyz");
  t = out.take(6);
  EXPECT_EQ(t.text, "abc" + CappedOutput::marker(20) + "xyz");
  EXPECT_EQ(t.dropped, 20u);
  EXPECT_EQ(t.kept, 6u);
  // Within the cap: everything, as take() gives it.
  out.append("short");
  t = out.take(100);
  EXPECT_EQ(t.text, "short");
  EXPECT_EQ(t.kept, 5u);
  EXPECT_EQ(t.dropped, 0u);
  // Cap 0: no text, no marker, all counted.
  out.append("gone");
  t = out.take(0);
  EXPECT_EQ(t.text, "");
  EXPECT_EQ(t.dropped, 4u);
  EXPECT_EQ(t.kept, 0u);
  EXPECT_EQ(out.take().text, "");  // each take starts a new window
}

}  // namespace
}  // namespace allfives::referee
