#include "serve/ladder_forms.h"

#include "serve/http_text.h"
#include "serve/site_pages.h"

namespace allfives::referee::serve {
namespace {

const char* kFormStyle = R"(<style>
form.box{background:var(--panel);border-radius:10px;padding:12px 14px;max-width:560px;display:grid;gap:10px}
form.box label{display:grid;gap:4px;color:var(--muted)}
input[type=text],input[type=password],input[type=file]{font:inherit;color:var(--text);background:#0a1a12;border:1px solid #2c5240;border-radius:8px;padding:7px 9px;width:100%}
button{font:inherit;font-weight:700;background:var(--accent);color:#1b1300;border:0;border-radius:8px;padding:7px 12px;cursor:pointer}
form.inline{display:inline}form.inline button{padding:2px 8px;font-size:12px}
.error{color:var(--bad)}.passed{color:var(--good)}.token{font:15px ui-monospace,monospace;background:#0a1a12;padding:8px;border-radius:8px;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere}
</style>)";

// Polls the upload's state and shows each step; stops once the job is over.
const char* kFollowScript = R"js(<script>
(function () {
  const box = document.getElementById("upload-job");
  const show = (id, text) => { document.getElementById(id).textContent = text; };
  const words = { waiting: "waiting for its turn…", unpacking: "unpacking…",
                  checking: "checking with referee check-bot…", passed: "passed",
                  refused: "refused", failed: "not checked here" };
  async function poll() {
    try {
      const r = await fetch(box.dataset.json, { cache: "no-store" });
      if (r.ok) {
        const s = await r.json();
        box.dataset.state = s.state;
        show("state", (words[s.state] || s.state) + (s.version ? " (" + s.version + ")" : ""));
        show("message", s.message);
        show("report", s.report);
        document.getElementById("state").className = s.state === "passed" ? "passed" :
            (s.state === "refused" || s.state === "failed") ? "error" : "";
        if (["passed", "refused", "failed"].includes(s.state)) {
          document.getElementById("after").hidden = false;
          return;
        }
      }
    } catch (e) { /* the server is busy or gone: try again */ }
    setTimeout(poll, 500);
  }
  poll();
})();
</script>)js";

std::string hidden_csrf(const std::string& csrf) {
  return "<input type=\"hidden\" name=\"csrf\" value=\"" + html_escape(csrf) + "\">";
}

// A button that POSTs `fields` (already escaped) to `action`.
std::string post_button(const std::string& action, const std::string& csrf,
                        const std::string& fields, const std::string& label) {
  return "<form class=\"inline\" method=\"post\" action=\"" + action + "\">" + hidden_csrf(csrf) +
         fields + "<button>" + label + "</button></form>";
}

std::string form_page(const std::string& title, const std::string& crumbs,
                      const std::string& body) {
  return page(title, crumbs, body, false, kFormStyle);
}

std::string mebibytes(uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

std::string ladder_crumbs(const std::string& base, const std::string& ladder,
                          const std::optional<LadderViewer>& viewer) {
  std::string out = "<nav><a href=\"/\">all folders</a> · <a href=\"" + base + "\">" +
                    html_escape(ladder) + "</a> · ";
  if (!viewer) return out + "<a id=\"signin\" href=\"" + base + "signin\">sign in</a></nav>";
  out += "<a id=\"me\" href=\"" + base + "user/" + html_escape(viewer->name) + "\">" +
         html_escape(viewer->name) + "</a> · <a id=\"upload\" href=\"" + base +
         "upload\">upload a version</a> · ";
  if (viewer->organiser) out += "<a id=\"admin\" href=\"" + base + "admin\">organise</a> · ";
  return out + post_button(base + "signout", viewer->csrf, "", "sign out") + "</nav>";
}

std::string sign_in_page(const std::string& base, const std::string& ladder,
                         const std::string& csrf, const std::string& error) {
  std::string body;
  if (!error.empty()) body += "<p class=\"error\" id=\"error\">" + html_escape(error) + "</p>";
  body +=
      "<form class=\"box\" id=\"signin-form\" method=\"post\" action=\"" + base + "signin\">" +
      hidden_csrf(csrf) +
      "<label><span>Your access token (from the ladder's organiser)</span><input type=\"password\" "
      "name=\"token\" autocomplete=\"current-password\" required></label><button>Sign "
      "in</button></form><p class=\"muted\">The token was printed once by <code>referee "
      "ladder add-user</code>; an organiser can reset a lost one.</p>";
  return form_page("Sign in to " + ladder, ladder_crumbs(base, ladder, std::nullopt), body);
}

std::string upload_page(const UploadForm& f) {
  std::string body;
  if (!f.error.empty()) body += "<p class=\"error\" id=\"error\">" + html_escape(f.error) + "</p>";
  body +=
      "<form class=\"box\" id=\"upload-form\" method=\"post\" enctype=\"multipart/form-data\" "
      "action=\"" +
      f.base + "upload\">" + hidden_csrf(f.viewer.csrf) +
      "<label><span>Bot name (letters, digits, _ and -; a new name starts a new "
      "bot)</span><input "
      "type=\"text\" name=\"bot\" list=\"mine\" maxlength=\"24\" "
      "pattern=\"[A-Za-z0-9][A-Za-z0-9_\\-]*\" "
      "required></label><datalist id=\"mine\">";
  for (const std::string& b : f.bots) body += "<option value=\"" + html_escape(b) + "\">";
  body +=
      "</datalist><label><span>Program: one file (a .py file runs with the Python SDK) or an "
      "archive (.zip, .tar, .tar.gz, .tar.xz, .tar.bz2, .tar.zst), at most " +
      mebibytes(f.max_bytes) +
      "</span><input type=\"file\" name=\"file\" required></label><label><span>Command (optional: "
      "the "
      "words that start it, e.g. <code>python3 main.py</code>)</span><input type=\"text\" "
      "name=\"command\" maxlength=\"400\"></label><button>Upload and check</button></form>"
      "<p class=\"muted\">" +
      std::to_string(f.left_this_hour) + " of " + std::to_string(f.per_hour) +
      " uploads left this hour. Each version is stored read-only as NAME@N and checked by "
      "<code>referee check-bot</code> before it plays.</p>";
  return form_page("Upload a version", ladder_crumbs(f.base, f.ladder, f.viewer), body);
}

std::string upload_job_page(const std::string& base, const std::string& ladder,
                            const LadderViewer& viewer, const std::string& bot,
                            const std::string& json_url) {
  const std::string body =
      "<div class=\"card\" id=\"upload-job\" data-json=\"" + html_escape(json_url) +
      "\" data-state=\"\"><p>" + html_escape(bot) +
      ": <strong id=\"state\">waiting…</strong></p><p id=\"message\"></p><p id=\"after\" "
      "hidden><a href=\"" +
      base + "bot/" + html_escape(bot) + "\">its page</a> · <a href=\"" + base +
      "\">the leaderboard</a> · <a href=\"" + base +
      "upload\">upload another</a></p><details><summary>The check-bot report</summary><pre "
      "id=\"report\"></pre></details></div>" +
      kFollowScript;
  return form_page("Uploading " + bot, ladder_crumbs(base, ladder, viewer), body);
}

std::string admin_page(const AdminPage& p) {
  std::string body;
  if (!p.notice.empty())
    body += "<div class=\"card\" id=\"notice\"><p>" + html_escape(p.notice) + "</p>" +
            (p.new_token.empty()
                 ? std::string()
                 : "<p class=\"token\" id=\"token\">" + html_escape(p.new_token) + "</p>") +
            "</div>";
  body +=
      "<h2>Versions</h2><div class=\"scroll\"><table id=\"versions\"><tr><th "
      "class=\"l\">Version</th><th class=\"l\">Owner</th><th class=\"l\">State</th><th>"
      "Matches</th><th></th></tr>";
  for (auto v = p.versions.rbegin(); v != p.versions.rend(); ++v) {
    const bool retirable = v->state == VersionState::kActive || v->state == VersionState::kChecking;
    body += "<tr><td class=\"l\"><a href=\"" + p.base + "bot/" + html_escape(v->bot) + "\">" +
            html_escape(v->name()) + "</a></td><td class=\"l\">" + html_escape(v->user) +
            "</td><td class=\"l\">" + state_name(v->state) + "</td><td>" +
            std::to_string(v->matches) + "</td><td>" +
            (retirable ? post_button(p.base + "admin/retire", p.viewer.csrf,
                                     "<input type=\"hidden\" name=\"version\" value=\"" +
                                         html_escape(v->name()) + "\">",
                                     "retire")
                       : std::string()) +
            "</td></tr>";
  }
  body +=
      "</table></div><h2>Users</h2><div class=\"scroll\"><table id=\"users\"><tr><th "
      "class=\"l\">User</th><th class=\"l\">Role</th><th></th></tr>";
  for (const User& u : p.users)
    body +=
        "<tr><td class=\"l\">" + html_escape(u.name) + "</td><td class=\"l\">" +
        (u.organiser ? "organiser" : "") + "</td><td>" +
        post_button(p.base + "admin/reset", p.viewer.csrf,
                    "<input type=\"hidden\" name=\"user\" value=\"" + html_escape(u.name) + "\">",
                    "reset token") +
        "</td></tr>";
  body +=
      "</table></div><p class=\"muted\">Retiring keeps a version's record and stops its "
      "matches. A reset token replaces the old one at once and signs its user out; it is "
      "shown once.</p>";
  return form_page("Organise " + p.ladder, ladder_crumbs(p.base, p.ladder, p.viewer), body);
}

}  // namespace allfives::referee::serve
