// The ladder's database (ladder/ladder_store.h): its schema and migrations, users and their
// tokens, versions and who owns a bot, matches imported once however often they are offered,
// the ratings and their history.
#include "ladder/ladder_store.h"

#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>
#include <fstream>

#include "common/temp_dir.h"

namespace allfives::referee {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string staged_bot(const TempDir& d, const std::string& name) {
  const std::string dir = d.file(name);
  fs::create_directories(dir);
  std::ofstream(dir + "/bot.py") << "x";
  return dir;
}

v1::IndexEntry entry(const std::string& id, const std::string& a, const std::string& b, int winner,
                     uint32_t rotation, uint64_t seed) {
  v1::IndexEntry e;
  e.mutable_match()->set_match_id(id);
  e.mutable_match()->add_seat_bots(a);
  e.mutable_match()->add_seat_bots(b);
  e.mutable_match()->set_rotation(rotation);
  e.mutable_match()->set_seed(seed);
  e.set_format(v1::FORMAT_TWO_PLAYERS);
  e.set_reason(v1::MATCH_END_REASON_TARGET);
  e.set_winner_side(winner);
  e.add_scores(winner == 0 ? 250 : 100);
  e.add_scores(winner == 0 ? 100 : 250);
  e.set_fault_seat(-1);
  e.set_tournament_name("club-r000001");
  return e;
}

TEST(LadderStore, AFreshDatabaseGetsTheSchemaAndANewerOneIsRefused) {
  TempDir d("ladder");
  EXPECT_THROW(LadderStore::open(d.path(), false), DbError);
  {
    auto s = LadderStore::open(d.path(), true);
    Statement v = s->db().prepare("PRAGMA user_version");
    ASSERT_TRUE(v.step());
    EXPECT_EQ(v.integer(0), LadderStore::kSchemaVersion);
    Statement mode = s->db().prepare("PRAGMA journal_mode");
    ASSERT_TRUE(mode.step());
    EXPECT_EQ(mode.text(0), "wal");
    Statement keys = s->db().prepare("PRAGMA foreign_keys");
    ASSERT_TRUE(keys.step());
    EXPECT_EQ(keys.integer(0), 1);
    s->db().exec("PRAGMA user_version = 99");
  }
  try {
    LadderStore::open(d.path(), false);
    FAIL() << "a database of schema 99 was opened";
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("made by a newer referee"), std::string::npos) << e.what();
  }
}

// A database of schema 1 (before rounds kept their Slurm job and users could be organisers)
// is migrated when opened, its rows kept.
TEST(LadderStore, AnOlderSchemaIsMigratedWithItsRows) {
  TempDir d("ladder");
  fs::create_directories(d.file(kLadderBots));
  int64_t round = 0;
  {
    auto s = LadderStore::open(d.path(), true);
    const int64_t u = *s->user_of_token(s->add_user("u"));
    const Version a = s->add_version(u, "a", staged_bot(d, "s1"), {});
    round = s->begin_round(Round{0, a.id, true, 7, {a.id}, ""});
    s->db().exec(
        "ALTER TABLE rounds DROP COLUMN slurm_job; ALTER TABLE users DROP COLUMN organiser; "
        "PRAGMA user_version = 1");
  }
  auto s = LadderStore::open(d.path(), false);
  Statement v = s->db().prepare("PRAGMA user_version");
  ASSERT_TRUE(v.step());
  EXPECT_EQ(v.integer(0), LadderStore::kSchemaVersion);
  ASSERT_EQ(s->users().size(), 1u);
  EXPECT_EQ(s->users()[0].name, "u");
  EXPECT_FALSE(s->users()[0].organiser);
  const std::optional<Round> r = s->unfinished_round();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, round);
  EXPECT_EQ(r->seed, 7u);
  EXPECT_EQ(r->slurm_job, "");
  s->set_round_job(round, "42");
  EXPECT_EQ(s->unfinished_round()->slurm_job, "42");
  EXPECT_EQ(s->integrity_problem(), "");
}

TEST(LadderStore, ATokenIdentifiesItsUserOnlyAndIsNotStored) {
  TempDir d("ladder");
  auto s = LadderStore::open(d.path(), true);
  const std::string alice = s->add_user("alice");
  const std::string bob = s->add_user("bob");
  EXPECT_THROW(s->add_user("alice"), DbError);
  ASSERT_TRUE(s->user_of_token(alice));
  ASSERT_TRUE(s->user_of_token(bob));
  EXPECT_NE(*s->user_of_token(alice), *s->user_of_token(bob));
  std::string forged = alice;
  forged.back() = forged.back() == '0' ? '1' : '0';
  EXPECT_FALSE(s->user_of_token(forged));
  // Bob's id with Alice's secret.
  EXPECT_FALSE(s->user_of_token(bob.substr(0, bob.find('.')) + alice.substr(alice.find('.'))));
  EXPECT_FALSE(s->user_of_token("garbage"));
  // The database holds no token, only salted hashes.
  std::ifstream db(d.file(kLadderDatabase), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(db)), {});
  std::ifstream wal(d.file(std::string(kLadderDatabase) + "-wal"), std::ios::binary);
  const std::string wal_bytes((std::istreambuf_iterator<char>(wal)), {});
  for (const std::string& t : {alice, bob}) {
    const std::string secret = t.substr(t.find('.') + 1);
    EXPECT_EQ(bytes.find(secret), std::string::npos);
    EXPECT_EQ(wal_bytes.find(secret), std::string::npos);
  }
}

// A reset token replaces the old one; organisers are marked; a user's submissions are counted
// by time (the served pages' limit).
TEST(LadderStore, ATokenIsResetAndSubmissionsAreCountedByTime) {
  TempDir d("ladder");
  fs::create_directories(d.file(kLadderBots));
  auto s = LadderStore::open(d.path(), true);
  const std::string old = s->add_user("alice");
  const std::string boss = s->add_user("boss", true);
  const std::optional<std::string> fresh = s->reset_token("alice");
  ASSERT_TRUE(fresh);
  EXPECT_FALSE(s->user_of_token(old));
  EXPECT_EQ(s->user_of_token(*fresh), s->user_of_token(old.substr(0, old.find('.')) + "." +
                                                       fresh->substr(fresh->find('.') + 1)));
  ASSERT_TRUE(s->user_of_token(*fresh));
  EXPECT_FALSE(s->reset_token("nobody"));
  EXPECT_FALSE(s->user(*s->user_of_token(*fresh))->organiser);
  EXPECT_TRUE(s->user(*s->user_of_token(boss))->organiser);
  const int64_t alice = *s->user_of_token(*fresh);
  const int64_t before = std::time(nullptr);
  s->add_version(alice, "a", staged_bot(d, "s1"), {});
  s->add_version(alice, "b", staged_bot(d, "s2"), {});
  EXPECT_EQ(s->submissions_since(alice, before).size(), 2u);
  EXPECT_EQ(s->submissions_since(alice, before + 3600).size(), 0u);
  EXPECT_EQ(s->submissions_since(*s->user_of_token(boss), 0).size(), 0u);
}

TEST(LadderStore, VersionsAreNumberedPerBotAndABotHasOneOwner) {
  TempDir d("ladder");
  auto s = LadderStore::open(d.path(), true);
  fs::create_directories(d.file(kLadderBots));
  const int64_t alice = *s->user_of_token(s->add_user("alice"));
  const int64_t bob = *s->user_of_token(s->add_user("bob"));
  const Version v1 =
      s->add_version(alice, "fox", staged_bot(d, "s1"), {"/py", d.file("s1/bot.py")});
  const Version v2 =
      s->add_version(alice, "fox", staged_bot(d, "s2"), {"/py", d.file("s2/bot.py")});
  EXPECT_EQ(v1.name(), "fox@1");
  EXPECT_EQ(v2.name(), "fox@2");
  EXPECT_EQ(v2.argv[1], d.file("bots/fox@2/bot.py"));
  EXPECT_TRUE(fs::is_regular_file(v2.argv[1]));
  EXPECT_THROW(s->add_version(bob, "fox", staged_bot(d, "s3"), {}), DbError);
  ASSERT_TRUE(s->version("fox@2"));
  EXPECT_EQ(s->version("fox@2")->state, VersionState::kChecking);
  s->set_state(v2.id, VersionState::kRefused, "FAIL start");
  EXPECT_EQ(s->version("fox@2")->report, "FAIL start");
  EXPECT_EQ(s->versions_in(VersionState::kChecking).size(), 1u);
  EXPECT_FALSE(s->version("fox@3"));
  EXPECT_FALSE(s->version("fox"));
}

TEST(LadderStore, AMatchIsImportedOnceAndCountsForItsVersions) {
  TempDir d("ladder");
  auto s = LadderStore::open(d.path(), true);
  fs::create_directories(d.file(kLadderBots));
  const int64_t u = *s->user_of_token(s->add_user("u"));
  const Version a = s->add_version(u, "a", staged_bot(d, "s1"), {});
  const Version b = s->add_version(u, "b", staged_bot(d, "s2"), {});
  const int64_t r = s->begin_round(Round{0, a.id, true, 7, {a.id, b.id}, ""});
  ASSERT_TRUE(s->unfinished_round());
  EXPECT_TRUE(s->import_match(r, entry("a@1-b@1-d0-r0", "a@1", "b@1", 0, 0, 7)));
  EXPECT_FALSE(s->import_match(r, entry("a@1-b@1-d0-r0", "a@1", "b@1", 0, 0, 7)));
  EXPECT_TRUE(s->import_match(r, entry("b@1-a@1-d0-r1", "b@1", "a@1", 1, 1, 7)));
  EXPECT_EQ(s->match_count(), 2);
  EXPECT_EQ(s->version("a@1")->matches, 2);
  s->end_round(r, "");
  EXPECT_FALSE(s->unfinished_round());
  EXPECT_EQ(s->last_round_pairs(), (std::set<std::pair<int64_t, int64_t>>{{a.id, b.id}}));

  StandingsAccumulator fit;
  s->for_each_match([&](v1::IndexEntry&& e) { fit.add(e); });
  const Standings st = fit.finish();
  s->save_ratings(st, 2);
  const std::vector<RatingRow> rows = s->leaderboard();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].version, "a@1");
  EXPECT_DOUBLE_EQ(rows[0].elo, st.bots[0].elo);
  EXPECT_EQ(rows[0].wins, 2);
  ASSERT_EQ(s->history(a.id).size(), 1u);
  EXPECT_EQ(s->history(a.id)[0].matches, 2);
  s->save_ratings(st, 2);  // no new matches: no new point
  EXPECT_EQ(s->history(a.id).size(), 1u);
  EXPECT_GE(rows[0].last_played, std::time(nullptr) - 60);
  int of_b = 0;
  s->for_each_match_of_bot("b", [&](v1::IndexEntry&&) { ++of_b; });
  EXPECT_EQ(of_b, 2);
  s->for_each_match_of_bot("nobody", [&](v1::IndexEntry&&) { ++of_b; });
  EXPECT_EQ(of_b, 2);
}

}  // namespace
}  // namespace allfives::referee
