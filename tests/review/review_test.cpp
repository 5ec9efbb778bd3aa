// The game review's pieces: the file (written whole, read back as untrusted input), the marks'
// rule, the checker's logged deals, the review of a real log (one decision per play of the
// chosen seats, each seat's review independent of the others', reproducible, exact where the
// seat knows every tile) and the summaries.
#include <gtest/gtest.h>

#include <fstream>

#include "../common/temp_dir.h"
#include "log/match_log.h"
#include "replay/replay.h"
#include "replay/replay_test_util.h"
#include "review/match_review.h"
#include "review/review_file.h"
#include "review/review_summary.h"
#include "review/review_words.h"

namespace allfives::referee {
namespace {

using replay_test::real_logs;

Replay loaded(const std::string& text, bool deals_from_seed = true) {
  Replay replay;
  LogError error;
  ReplayOptions options;
  options.deals_from_seed = deals_from_seed;
  EXPECT_TRUE(load_replay(text, "m.jsonl", replay, error, options)) << error.describe();
  return replay;
}

ReviewSettings quick() {
  ReviewSettings s;
  s.eval.worlds = 100;
  s.eval.seed = 5;
  return s;
}

int plays_of(const Replay& r, int seat) {
  int n = 0;
  for (const ReplayStep& s : r.steps)
    if (s.record.has_play() && (seat < 0 || static_cast<int>(s.record.play().seat()) == seat)) ++n;
  return n;
}

TEST(Marks, NeedTheThresholdAndTwiceTheError) {
  const MarkThresholds t;
  EXPECT_EQ(mark_for(2.4, 0.1, t), v1::REVIEW_MARK_NONE);
  EXPECT_EQ(mark_for(2.5, 0.1, t), v1::REVIEW_MARK_INACCURACY);
  EXPECT_EQ(mark_for(5, 0.1, t), v1::REVIEW_MARK_MISTAKE);
  EXPECT_EQ(mark_for(10, 0.1, t), v1::REVIEW_MARK_BLUNDER);
  EXPECT_EQ(mark_for(12, 6, t), v1::REVIEW_MARK_NONE);  // within twice its error: noise
  EXPECT_EQ(mark_for(12, 5.9, t), v1::REVIEW_MARK_BLUNDER);
  EXPECT_EQ(mark_for(3, 0, t), v1::REVIEW_MARK_INACCURACY);  // exact
}

TEST(ReviewFile, ItsPathLiesBesideTheLog) {
  EXPECT_EQ(review_path_for("a/m1.jsonl"), "a/m1.review.jsonl");
  EXPECT_EQ(review_path_for("a/m1.log"), "a/m1.log.review.jsonl");
  EXPECT_TRUE(is_review_path("x/m1.review.jsonl"));
  EXPECT_FALSE(is_review_path("x/m1.jsonl"));
}

TEST(LoggedDeals, ReplayTheSameMatchAsTheSeed) {
  for (const auto& [name, text] : real_logs()) {
    if (name == "startup-fault") continue;
    const Replay a = loaded(text, true), b = loaded(text, false);
    ASSERT_EQ(a.steps.size(), b.steps.size()) << name;
    for (size_t i = 0; i < a.steps.size(); ++i)
      EXPECT_EQ(a.steps[i].state.view(0), b.steps[i].state.view(0)) << name << " step " << i;
  }
}

TEST(LoggedDeals, MustBeDeals) {
  std::vector<std::string> lines = replay_test::split_lines(real_logs().at("2p"));
  const int start =
      replay_test::find_line(lines, [](const v1::LogRecord& r) { return r.has_hand_start(); });
  // A tile moved from seat 0's hand to the boneyard: hands of 6 and 7, a boneyard of 15.
  replay_test::edit(lines, start, [](v1::LogRecord& r) {
    v1::LogHandStart& h = *r.mutable_hand_start();
    *h.add_boneyard() = h.hands(0).tiles(0);
    h.mutable_hands(0)->mutable_tiles()->DeleteSubrange(0, 1);
  });
  Replay replay;
  LogError error;
  ReplayOptions options;
  options.deals_from_seed = false;
  EXPECT_FALSE(load_replay(replay_test::join(lines), "m.jsonl", replay, error, options));
  EXPECT_NE(error.message.find("gives seat 0 6 tiles, not 7"), std::string::npos)
      << error.describe();
}

TEST(MatchReview, OneDecisionPerPlayOfTheChosenSeats) {
  const std::string& text = real_logs().at("2p");
  const Replay replay = loaded(text);
  const ReviewFile all = review_match(replay, text, {}, quick());
  EXPECT_EQ(static_cast<int>(all.decisions.size()), plays_of(replay, -1));
  EXPECT_EQ(all.header.log_digest(), log_digest(text));
  EXPECT_EQ(all.header.seats_size(), 2);
  for (const v1::ReviewDecision& d : all.decisions) {
    ASSERT_LT(d.played_option(), static_cast<uint32_t>(d.options_size()));
    const v1::ReviewOption& best = d.options(static_cast<int>(d.best_option()));
    for (const v1::ReviewOption& o : d.options()) EXPECT_LE(o.points(), best.points());
    EXPECT_NEAR(d.loss(), best.points() - d.options(static_cast<int>(d.played_option())).points(),
                1e-9);
    EXPECT_GE(d.loss(), 0);
    if (d.mark() != v1::REVIEW_MARK_NONE) {
      EXPECT_GT(d.loss(), 2 * d.loss_se());
    }
  }
}

TEST(MatchReview, ASeatsReviewIsTheSameAloneOrWithTheOthers) {
  const std::string& text = real_logs().at("3p");
  const Replay replay = loaded(text);
  const ReviewFile all = review_match(replay, text, {}, quick());
  const ReviewFile one = review_match(replay, text, {1}, quick());
  EXPECT_EQ(static_cast<int>(one.decisions.size()), plays_of(replay, 1));
  size_t k = 0;
  for (const v1::ReviewDecision& d : all.decisions)
    if (d.seat() == 1) {
      ASSERT_LT(k, one.decisions.size());
      EXPECT_EQ(to_json_line(d), to_json_line(one.decisions[k++]));
    }
  EXPECT_EQ(k, one.decisions.size());
}

TEST(MatchReview, IsReproducedByItsSeedAndChangesWithIt) {
  const std::string& text = real_logs().at("2p");
  const Replay replay = loaded(text);
  ReviewSettings other = quick();
  other.eval.seed = 6;
  const ReviewFile a = review_match(replay, text, {0}, quick());
  const ReviewFile b = review_match(replay, text, {0}, quick());
  const ReviewFile c = review_match(replay, text, {0}, other);
  ASSERT_EQ(a.decisions.size(), b.decisions.size());
  bool differs = false;
  for (size_t i = 0; i < a.decisions.size(); ++i) {
    EXPECT_EQ(to_json_line(a.decisions[i]), to_json_line(b.decisions[i]));
    differs = differs || to_json_line(a.decisions[i]) != to_json_line(c.decisions[i]);
  }
  EXPECT_TRUE(differs);
}

// With two players and an empty boneyard every unseen tile is the opponent's: those decisions
// are solved exactly.
TEST(MatchReview, IsExactWhereTheSeatKnowsEveryTile) {
  const std::string& text = real_logs().at("2p");
  const Replay replay = loaded(text);
  const ReviewFile all = review_match(replay, text, {}, quick());
  int exact = 0;
  for (size_t i = 0, d = 0; i < replay.steps.size(); ++i) {
    if (!replay.steps[i].record.has_play()) continue;
    const v1::ReviewDecision& r = all.decisions[d++];
    const State& before = replay.steps[i - 1].state;
    if (before.boneyard_size() == 0) {
      EXPECT_TRUE(r.exact()) << "line " << r.log_line();
      EXPECT_EQ(r.loss_se(), 0);
      ++exact;
    }
  }
  EXPECT_GT(exact, 0);
}

TEST(ReviewFile, RoundTripsAndIsCurrentOnlyForItsLogAndSettings) {
  testing::TempDir dir("review-file");
  const std::string& text = real_logs().at("2p");
  const ReviewFile review = review_match(loaded(text), text, {0}, quick());
  const std::string path = dir.file("m.review.jsonl");
  std::string error;
  ASSERT_TRUE(write_review_file(path, review, &error)) << error;
  ReviewFile back;
  ASSERT_TRUE(read_review_file(path, back, &error)) << error;
  EXPECT_EQ(to_json_line(back.header), to_json_line(review.header));
  ASSERT_EQ(back.decisions.size(), review.decisions.size());
  EXPECT_TRUE(review_is_current(back.header, text, {0}, quick()));
  EXPECT_FALSE(review_is_current(back.header, text, {}, quick()));  // every seat asked
  EXPECT_FALSE(review_is_current(back.header, text + " ", {0}, quick()));
  ReviewSettings more = quick();
  more.eval.worlds = 101;
  EXPECT_FALSE(review_is_current(back.header, text, {0}, more));
}

TEST(ReviewFile, RefusesWhatTheRefereeNeverWrites) {
  testing::TempDir dir("review-hostile");
  const std::string& text = real_logs().at("2p");
  const ReviewFile review = review_match(loaded(text), text, {0}, quick());
  v1::ReviewRecord header;
  *header.mutable_header() = review.header;
  v1::ReviewRecord decision;
  *decision.mutable_decision() = review.decisions.at(0);
  const auto refused = [&](const std::string& content, const std::string& why) {
    const std::string path = dir.file("bad.review.jsonl");
    std::ofstream(path) << content;
    ReviewFile out;
    std::string error;
    EXPECT_FALSE(read_review_file(path, out, &error)) << content.substr(0, 200);
    EXPECT_NE(error.find(why), std::string::npos) << error;
  };
  refused("", "empty");
  refused(to_json_line(decision) + "\n", "starts with its header");
  refused("{\"header\":{\"review_version\":9}}\n", "review_version 9");
  refused(to_json_line(header) + "\n" + to_json_line(header) + "\n", "only decisions");
  refused(to_json_line(header) + "\nnot json\n", ":2: not a review record");
  v1::ReviewRecord out_of_range = decision;
  out_of_range.mutable_decision()->set_best_option(99);
  refused(to_json_line(header) + "\n" + to_json_line(out_of_range) + "\n", "not an index");
  refused(
      to_json_line(header) + "\n" + to_json_line(decision) + "\n" + to_json_line(decision) + "\n",
      "log order");
  refused(to_json_line(header) + "\n" + std::string(kMaxReviewLineBytes + 1, ' ') + "\n",
          "longer than");
}

TEST(Summary, CountsEachBotsLossesAndListsItsCostliestFirst) {
  const std::string& text = real_logs().at("2p");
  const ReviewFile review = review_match(loaded(text), text, {}, quick());
  const std::vector<BotReview> bots = summarize_reviews({{"dir/m 1.jsonl", review}}, "", 5);
  ASSERT_EQ(bots.size(), 2u);
  int decisions = 0;
  for (const BotReview& b : bots) {
    decisions += b.all.decisions;
    EXPECT_LE(b.costliest.size(), 5u);
    for (size_t i = 1; i < b.costliest.size(); ++i)
      EXPECT_GE(b.costliest[i - 1].decision.loss(), b.costliest[i].decision.loss());
    int by_phase = 0;
    for (const LossTally& t : b.by_phase) by_phase += t.decisions;
    EXPECT_EQ(by_phase, b.all.decisions);
  }
  EXPECT_EQ(decisions, static_cast<int>(review.decisions.size()));
  const std::string words = summary_text(bots, true);
  EXPECT_NE(words.find("referee replay 'dir/m 1.jsonl' --print --hand "), std::string::npos)
      << words;
}

TEST(Words, SayTheBestAndThePlayMade) {
  v1::ReviewDecision d;
  d.set_play_in_hand(3);
  v1::ReviewOption* a = d.add_options();
  a->mutable_play()->mutable_tile()->set_high(6);
  a->mutable_play()->mutable_tile()->set_low(4);
  a->mutable_play()->set_end(v1::END_RIGHT);
  a->set_points(7.24);
  a->set_points_se(0.41);
  v1::ReviewOption* b = d.add_options();
  b->mutable_play()->mutable_tile()->set_high(5);
  b->mutable_play()->set_end(v1::END_LEFT);
  b->set_points(1.1);
  b->set_points_se(0.38);
  d.set_best_option(0);
  d.set_played_option(1);
  d.set_loss(6.14);
  d.set_loss_se(0.5);
  d.set_mark(v1::REVIEW_MARK_MISTAKE);
  d.set_kind(v1::LOSS_KIND_SCORE_MISSED);
  EXPECT_EQ(decision_words(d),
            "best: 6-4 right +7.2 \u00b1 0.4 \u00b7 played 5-0 left +1.1 \u00b1 0.4: mistake, "
            "\u22126.1 \u00b1 0.5 (a score missed)");
}

}  // namespace
}  // namespace allfives::referee
