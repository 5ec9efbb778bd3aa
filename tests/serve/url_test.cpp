// The URL helpers of the HTTP server and the path rules of served_paths.h, on their own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/temp_dir.h"
#include "serve/http_server.h"
#include "serve/log_folders.h"
#include "serve/served_paths.h"

namespace allfives::referee::serve {
namespace {

TEST(UrlTest, PercentDecodingRefusesMalformedEscapesAndNul) {
  std::string out;
  EXPECT_TRUE(percent_decode("%2e%2E/a%20b+c", out));
  EXPECT_EQ(out, "../a b+c");
  EXPECT_TRUE(percent_decode("a+b", out, /*plus_is_space=*/true));
  EXPECT_EQ(out, "a b");
  for (const char* bad : {"%", "%2", "%zz", "a%0", "%00", "x%G1"})
    EXPECT_FALSE(percent_decode(bad, out)) << bad;
}

TEST(UrlTest, QueryValuesAndHostPorts) {
  EXPECT_EQ(query_value("/m/0/x.jsonl?seat=1&from=20", "from"), "20");
  EXPECT_EQ(query_value("/m/0/x.jsonl?seat=1&from=20", "seat"), "1");
  EXPECT_EQ(query_value("/m/0/x.jsonl?seats=1", "seat"), "");
  EXPECT_TRUE(query_has("/?seat=", "seat"));
  EXPECT_FALSE(query_has("/", "seat"));
  EXPECT_EQ(target_path("/a/b?c=d"), "/a/b");
  std::string host;
  int port = 0;
  EXPECT_TRUE(split_host_port("127.0.0.1:8080", host, port));
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 8080);
  EXPECT_TRUE(split_host_port("[::1]:0", host, port));
  EXPECT_EQ(host, "::1");
  for (const char* bad : {"8080", "host:", ":80", "h:99999", "h:8o"})
    EXPECT_FALSE(split_host_port(bad, host, port)) << bad;
  EXPECT_EQ(html_escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(UrlTest, HostAndOriginAreCheckedAgainstTheAddressServed) {
  const HostPolicy loopback{"127.0.0.1", 8080, {}};
  for (const char* ok : {"127.0.0.1:8080", "127.0.0.1", "localhost:8080", "LocalHost", "[::1]:8080",
                         "127.9.9.9:8080", "localhost.:8080"})
    EXPECT_TRUE(host_allowed(ok, loopback)) << ok;
  for (const char* bad : {"evil.example", "evil.example:8080", "127.0.0.1:8081", "10.0.0.1:8080",
                          "", ":8080", "127.0.0.1:80800", "127.0.0.1:x", "[::1", "a b"})
    EXPECT_FALSE(host_allowed(bad, loopback)) << bad;
  const HostPolicy everywhere{"0.0.0.0", 8080, {"arena.example"}};
  EXPECT_TRUE(host_allowed("192.168.1.4:8080", everywhere));
  EXPECT_TRUE(host_allowed("[fe80::1]:8080", everywhere));
  EXPECT_TRUE(host_allowed("arena.example:8080", everywhere));
  EXPECT_FALSE(host_allowed("evil.example:8080", everywhere));  // a name: only if allowed
  EXPECT_TRUE(origin_allowed("http://127.0.0.1:8080", loopback));
  for (const char* bad : {"null", "https://127.0.0.1:8080", "http://evil.example",
                          "http://127.0.0.1:8080/x", "file://", "http://"})
    EXPECT_FALSE(origin_allowed(bad, loopback)) << bad;
  // Behind a TLS proxy, pages come from https:// and an allowed name only.
  EXPECT_TRUE(origin_allowed("https://arena.example", everywhere));
  EXPECT_TRUE(origin_allowed("HTTPS://Arena.Example:443", everywhere));
  for (const char* bad : {"https://evil.example", "https://192.168.1.4:8080", "https://",
                          "https://[::1]", "https://arena.example/x"})
    EXPECT_FALSE(origin_allowed(bad, everywhere)) << bad;
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_EQ(beyond_loopback_warning("127.0.0.1:0", "x"), "");
  EXPECT_NE(beyond_loopback_warning("0.0.0.0:80", "can read"), "");
}

TEST(UrlTest, MatchesAreListedInNaturalOrder) {
  std::vector<std::string> names = {"a-d10-r0", "a-d2-r1",   "a-d2-r0", "a-d1-r0",
                                    "b-d0-r0",  "a-d010-r0", "a-d9-r0"};
  std::sort(names.begin(), names.end(), natural_less);
  EXPECT_EQ(names, (std::vector<std::string>{"a-d1-r0", "a-d2-r0", "a-d2-r1", "a-d9-r0",
                                             "a-d010-r0", "a-d10-r0", "b-d0-r0"}));
  EXPECT_FALSE(natural_less("x", "x"));
}

TEST(ServedPathsTest, OnlyPathsInsideTheFolderResolve) {
  const allfives::testing::TempDir dir("served-paths");
  const std::string& base = dir.path();
  std::filesystem::create_directories(base + "/root/sub");
  std::ofstream(base + "/root/sub/a b.jsonl") << "x\n";
  std::ofstream(base + "/outside.jsonl") << "x\n";
  std::filesystem::create_symlink(base + "/outside.jsonl", base + "/root/out.jsonl");
  std::filesystem::create_symlink(base + "/root/sub/a b.jsonl", base + "/root/in.jsonl");
  std::vector<ServedRoot> roots;
  std::string why;
  ASSERT_TRUE(make_roots({base + "/root"}, roots, &why)) << why;
  const ServedRoot& r = roots[0];
  EXPECT_EQ(resolve_under(r, "sub/a%20b.jsonl", &why).value_or(""), r.real + "/sub/a b.jsonl");
  EXPECT_EQ(resolve_under(r, "", &why).value_or(""), r.real);
  EXPECT_EQ(resolve_under(r, "sub/", &why).value_or(""), r.real + "/sub");
  EXPECT_TRUE(resolve_under(r, "in.jsonl", &why));  // a link that stays inside
  for (const char* bad : {"..", "../outside.jsonl", "%2e%2e/outside.jsonl",
                          "sub/../../outside.jsonl", "sub//a%20b.jsonl", "./sub", "sub%5c..",
                          "out.jsonl", "%2Foutside.jsonl", "sub/%00", "missing.jsonl"})
    EXPECT_FALSE(resolve_under(r, bad, &why)) << bad;
  EXPECT_EQ(relative_to(r, r.real + "/sub/a b.jsonl"), "sub/a b.jsonl");
  EXPECT_EQ(url_encode_path("sub/a b%.jsonl"), "sub/a%20b%25.jsonl");
  EXPECT_FALSE(make_roots({base + "/outside.jsonl"}, roots, &why));
}

}  // namespace
}  // namespace allfives::referee::serve
