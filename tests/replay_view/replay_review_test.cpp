// End-to-end tests of the game review in `referee replay`: with the review `referee review`
// writes beside a log, the terminal prints each reviewed decision's line and every play's
// value, --only-mistakes keeps the marked decisions, the HTML page carries the review, and a
// review of other log bytes is ignored.
#include <google/protobuf/util/json_util.h>

#include <filesystem>
#include <set>

#include "replay_view/replay_view_util.h"
#include "review/review_file.h"
#include "review/review_words.h"

namespace allfives::e2e::replay_view {
namespace {

using referee::ReviewFile;

// A copy of the 2p match in a folder of its own, reviewed (a review beside the shared log would
// change what the other tests print).
struct Reviewed {
  std::string log;
  ReviewFile review;
};

Reviewed reviewed(const std::string& name) {
  const Logged& l = logged("2p");
  Reviewed r;
  r.log = temp_dir(name) + "/match.jsonl";
  std::filesystem::copy_file(l.path, r.log);
  const RunResult rv = run({kReferee, "review", r.log, "--worlds", "200"});
  EXPECT_EQ(rv.exit_code, 0) << rv.output;
  std::string why;
  EXPECT_TRUE(referee::read_review_file(referee::review_path_for(r.log), r.review, &why)) << why;
  return r;
}

TEST(ReplayReview, EachReviewedDecisionPrintsItsLineAndEveryPlaysValue) {
  const Reviewed r = reviewed("review-print");
  ASSERT_GT(r.review.decisions.size(), 20u);
  const std::vector<PrintedFrame> frames = frames_of(replay_output({r.log, "--print"}));
  std::map<int, const PrintedFrame*> by_line;
  for (const PrintedFrame& f : frames) by_line[f.log_line] = &f;
  int reviewed_lines = 0;
  for (const PrintedFrame& f : frames)
    reviewed_lines += f.text.find("  review: ") != std::string::npos;
  EXPECT_EQ(reviewed_lines, static_cast<int>(r.review.decisions.size()));
  for (const v1::ReviewDecision& d : r.review.decisions) {
    const auto it = by_line.find(static_cast<int>(d.log_line()));
    ASSERT_NE(it, by_line.end()) << d.log_line();
    const std::string& text = it->second->text;
    EXPECT_NE(text.find("  review: " + referee::decision_words(d) + "\n"), std::string::npos)
        << text;
    // Every play the seat had, with its value ± error.
    for (const v1::ReviewOption& o : d.options())
      EXPECT_NE(text.find(referee::play_words(o.play(), d.play_in_hand() == 1) + " " +
                          std::to_string(o.points_now()) + " (" +
                          referee::value_words(o.points(), o.points_se(), d.exact()) + ")"),
                std::string::npos)
          << text;
  }
}

TEST(ReplayReview, OnlyMistakesKeepsTheMarkedDecisions) {
  const Reviewed r = reviewed("review-only");
  std::set<int> marked;
  for (const v1::ReviewDecision& d : r.review.decisions)
    if (d.mark() != v1::REVIEW_MARK_NONE) marked.insert(static_cast<int>(d.log_line()));
  ASSERT_FALSE(marked.empty()) << "random's plays in a whole match include a mistake";
  const std::vector<PrintedFrame> frames =
      frames_of(replay_output({r.log, "--print", "--only-mistakes"}));
  std::set<int> shown;
  for (const PrintedFrame& f : frames) shown.insert(f.log_line);
  EXPECT_EQ(shown, marked);
  // With --only-bot: the marked decisions of that seat only.
  std::set<int> of_seat1;
  for (const v1::ReviewDecision& d : r.review.decisions)
    if (d.mark() != v1::REVIEW_MARK_NONE && d.seat() == 1)
      of_seat1.insert(static_cast<int>(d.log_line()));
  shown.clear();
  for (const PrintedFrame& f :
       frames_of(replay_output({r.log, "--print", "--only-mistakes", "--only-bot", "1"})))
    shown.insert(f.log_line);
  EXPECT_EQ(shown, of_seat1);
}

TEST(ReplayReview, WithoutACurrentReviewThereIsNothingToShowOrFilter) {
  const Reviewed r = reviewed("review-stale");
  // The review of other bytes (its digest changed) is passed over.
  ReviewFile stale = r.review;
  stale.header.set_log_digest("0000000000000000");
  std::string why;
  ASSERT_TRUE(referee::write_review_file(referee::review_path_for(r.log), stale, &why)) << why;
  const std::string out = replay_output({r.log, "--print"});
  EXPECT_EQ(out.find("review: "), std::string::npos);
  const RunResult only =
      sh(quote(kReferee) + " replay " + quote(r.log) + " --print --only-mistakes");
  EXPECT_EQ(only.exit_code, 2) << only.output;
  EXPECT_NE(only.output.find("--only-mistakes needs a current review"), std::string::npos)
      << only.output;
}

TEST(ReplayReview, TheHtmlPageCarriesTheReview) {
  const Reviewed r = reviewed("review-html");
  const std::string html = r.log + ".html";
  const RunResult w = run({kReferee, "replay", r.log, "--html", html, "--only-mistakes"});
  ASSERT_EQ(w.exit_code, 0) << w.output;
  const std::string page = read_file(html);
  const std::string open = "<script type=\"application/json\" id=\"replay-data\">";
  const size_t a = page.find(open), b = page.find("</script>", a);
  ASSERT_NE(a, std::string::npos);
  google::protobuf::Struct data;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                  page.substr(a + open.size(), b - a - open.size()), &data)
                  .ok());
  const auto& match = data.fields().at("match").struct_value().fields();
  EXPECT_TRUE(match.at("reviewed").bool_value());
  EXPECT_TRUE(match.at("onlyMistakes").bool_value());
  size_t with_review = 0;
  for (const auto& st : data.fields().at("steps").list_value().values()) {
    const auto& f = st.struct_value().fields();
    if (!f.count("y") || !f.at("y").struct_value().fields().count("r")) continue;
    ++with_review;
    const auto& rv = f.at("y").struct_value().fields().at("r").struct_value().fields();
    EXPECT_EQ(rv.at("v").list_value().values_size(),
              f.at("y").struct_value().fields().at("o").list_value().values_size());
  }
  EXPECT_EQ(with_review, r.review.decisions.size());
}

}  // namespace
}  // namespace allfives::e2e::replay_view
