// The served ladder's accounts (serve/ladder_accounts.h): sessions by cookie and ladder, their
// expiry, limits that say when to retry, cookies as browsers send them; and the pages' Content
// Security Policy (http_text.h), which names each inline script by its hash.
#include "serve/ladder_accounts.h"

#include <gtest/gtest.h>

#include "serve/http_text.h"

namespace allfives::referee::serve {
namespace {

using namespace std::chrono_literals;

TEST(LadderAccounts, ASessionIsFoundByItsCookieOnItsLadderOnlyUntilItExpires) {
  LadderAccounts a;
  const auto t0 = SteadyClock::now();
  const LadderSession& s = a.open(1, 7, "alice", false, t0);
  const std::string id = s.id, csrf = s.csrf;
  EXPECT_EQ(id.size(), 32u);
  EXPECT_NE(id, csrf);
  const std::string cookie = "theme=dark; " + session_cookie_name(1) + "=" + id + "; x=1";
  ASSERT_NE(a.find(1, cookie, t0), nullptr);
  EXPECT_EQ(a.find(1, cookie, t0)->name, "alice");
  EXPECT_EQ(a.find(0, "ladder0=" + id, t0), nullptr) << "another ladder's cookie";
  EXPECT_EQ(a.find(1, session_cookie_name(1) + "=" + csrf, t0), nullptr);
  EXPECT_EQ(a.find(1, "", t0), nullptr);
  EXPECT_EQ(a.find(1, cookie, t0 + LadderAccounts::kSessionLife), nullptr);
  const std::string again = a.open(1, 7, "alice", false, t0).id;
  a.close_user(1, 7);
  EXPECT_EQ(a.find(1, session_cookie_name(1) + "=" + again, t0), nullptr);
}

TEST(LadderAccounts, ALimitRefusesBeyondItsCountAndSaysWhenToRetry) {
  RateLimit limit(3, 60s);
  const auto t0 = SteadyClock::now();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limit.take("10.0.0.1", t0 + std::chrono::seconds(i)), 0);
  EXPECT_EQ(limit.take("10.0.0.1", t0 + 10s), 50);
  EXPECT_EQ(limit.take("10.0.0.2", t0 + 10s), 0) << "another address";
  EXPECT_EQ(limit.take("10.0.0.1", t0 + 60s), 0) << "the first attempt left the window";
}

TEST(LadderAccounts, CookiesAreReadAndWrittenAsBrowsersExpect) {
  EXPECT_EQ(cookie_value("a=1; ladder0=xyz; b=2", "ladder0"), "xyz");
  EXPECT_EQ(cookie_value("xladder0=1;ladder0=2", "ladder0"), "2");
  EXPECT_EQ(cookie_value("ladder0", "ladder0"), "");
  EXPECT_EQ(cookie_value("", "ladder0"), "");
  const std::string c = set_cookie("ladder2", "v", 2, true, 60s);
  for (const char* part :
       {"ladder2=v", "Path=/ladder/2/", "HttpOnly", "SameSite=Strict", "Max-Age=60", "Secure"})
    EXPECT_NE(c.find(part), std::string::npos) << c;
  EXPECT_EQ(set_cookie("ladder2", "v", 2, false, 60s).find("Secure"), std::string::npos);
  EXPECT_TRUE(same_secret("abc", "abc"));
  EXPECT_FALSE(same_secret("abc", "abd"));
  EXPECT_FALSE(same_secret("abc", "ab"));
}

// The hashes are those of the scripts' exact text (`echo -n 'let a = 1;' | sha256sum`, in
// base64), so an inline script added by an injection runs nowhere.
TEST(ContentSecurityPolicy, NamesEachInlineScriptByItsHashAndNothingElse) {
  const std::string p = content_security_policy(
      "<p>x</p><script>let a = 1;</script><SCRIPT type=\"application/json\">{}</SCRIPT>");
  EXPECT_NE(p.find("script-src 'sha256-xY6QKfH9PRsQnLz56nj6MBwiK5oHg+im1Jkpdp1x/Ck=';"),
            std::string::npos)
      << p;
  EXPECT_EQ(p.find("'unsafe-eval'"), std::string::npos);
  EXPECT_NE(p.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(p.find("form-action 'self'"), std::string::npos);
  EXPECT_NE(content_security_policy("<p>no script</p>").find("script-src 'none'"),
            std::string::npos);
  // Hashes are remembered per script text: the same page gives the same policy, a changed
  // script its own hash, however many scripts came before.
  EXPECT_EQ(content_security_policy("<script>let a = 1;</script>"),
            content_security_policy("<script>let a = 1;</script>"));
  for (int i = 0; i < 200; ++i)
    content_security_policy("<script>let b = " + std::to_string(i) + ";</script>");
  EXPECT_NE(content_security_policy("<script>let a = 1;</script>")
                .find("'sha256-xY6QKfH9PRsQnLz56nj6MBwiK5oHg+im1Jkpdp1x/Ck='"),
            std::string::npos);
  EXPECT_EQ(content_security_policy("<script>let a = 2;</script>")
                .find("'sha256-xY6QKfH9PRsQnLz56nj6MBwiK5oHg+im1Jkpdp1x/Ck='"),
            std::string::npos);
}

}  // namespace
}  // namespace allfives::referee::serve
