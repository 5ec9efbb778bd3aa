#include "serve/tune_page.h"

#include <google/protobuf/util/json_util.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "serve/http_text.h"
#include "serve/site_pages.h"
#include "tournament/tournament_file.h"
#include "tune/tune_file.h"
#include "tune/tune_plot.h"

namespace allfives::referee::serve {
namespace {

namespace fs = std::filesystem;

struct TuneFiles {
  TuneDef def;
  std::vector<v1::TuneIteration> done;
  std::string confirm;  // the confirming SPRT's report, once written
};

constexpr size_t kMaxReportBytes = 16 << 10;
// A line of tune.jsonl is well under 1 KiB a parameter; the list reads this much of its end.
constexpr uintmax_t kTailBytes = 256 << 10;

// tune.txtpb and tune.jsonl of the folder at `real` (inside `root`), or why not.
// With `last_only` (the folder list), tune.jsonl's last line alone, read from its end.
std::optional<TuneFiles> read_tune(const ServedRoot& root, const std::string& real,
                                   std::string* why, bool last_only = false) {
  const auto file = real_inside(root, real + "/tune.txtpb");
  std::string text;
  v1::Tune t;
  if (!file || !read_tournament_text(*file, text, why) || !parse_tune("tune.txtpb", text, t, why)) {
    if (why && why->empty()) *why = "not a tune folder";
    return std::nullopt;
  }
  TuneFiles f{tune_terms(t), {}, {}};
  if (const auto report = real_inside(root, real + "/confirm/sprt.txt")) {
    std::ifstream in(*report);
    f.confirm.resize(kMaxReportBytes);
    in.read(f.confirm.data(), static_cast<std::streamsize>(kMaxReportBytes));
    f.confirm.resize(static_cast<size_t>(in.gcount()));
  }
  const auto jsonl = real_inside(root, real + "/tune.jsonl");
  std::error_code ec;
  if (!jsonl || fs::file_size(*jsonl, ec) > kMaxTuneJsonlBytes) return f;
  std::ifstream in(*jsonl);
  const uintmax_t size = fs::file_size(*jsonl, ec);
  if (last_only && size > kTailBytes) {
    in.seekg(static_cast<std::streamoff>(size - kTailBytes));
    in.ignore(static_cast<std::streamsize>(kTailBytes), '\n');  // a line cut by the seek
  }
  std::string line;
  while (std::getline(in, line) && !in.eof()) {
    v1::TuneIteration it;
    if (!google::protobuf::util::JsonStringToMessage(line, &it).ok()) break;
    if (last_only) f.done.clear();
    f.done.push_back(std::move(it));
  }
  return f;
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(5);
  s << v;
  return s.str();
}

std::string iteration_rows(const TuneFiles& f, int root, const std::string& rel) {
  std::string rows;
  const size_t from = f.done.size() > 200 ? f.done.size() - 200 : 0;
  for (size_t i = f.done.size(); i-- > from;) {
    const v1::TuneIteration& it = f.done[i];
    std::string values;
    for (const SpsaParam& p : f.def.params)
      if (it.theta().count(p.name))
        values += html_escape(p.name) + " " + number(it.theta().at(p.name)) + " ";
    const std::string url = "/t/" + std::to_string(root) + "/" +
                            url_encode_path(rel.empty() ? it.folder() : rel + "/" + it.folder());
    rows += "<tr><td><a href=\"" + html_escape(url) + "\">" + std::to_string(it.iteration() + 1) +
            "</a></td><td>" + std::to_string(it.pairs_done()) + "</td><td>" +
            std::to_string(it.wins()) + "–" + std::to_string(it.losses()) + "–" +
            std::to_string(it.draws()) + "</td><td>" + number(it.result()) + "</td><td>" + values +
            "</td></tr>";
  }
  return rows;
}

std::string tune_body(const TuneFiles& f, int root, const std::string& rel) {
  const v1::Tune& t = f.def.proto;
  std::string now;
  for (const SpsaParam& p : f.def.params) {
    double v = p.start;
    if (!f.done.empty() && f.done.back().theta().count(p.name))
      v = f.done.back().theta().at(p.name);
    now += "<li>" + html_escape(p.name) + " <b>" + number(v) + "</b> (start " + number(p.start) +
           ", range " + number(p.min) + "–" + number(p.max) + ")</li>";
  }
  const uint64_t done = f.done.empty() ? 0 : f.done.back().pairs_done();
  return "<p>" + std::to_string(done) + " of " + std::to_string(t.pairs()) + " pairs played, " +
         std::to_string(f.done.size()) + " iterations. " +
         (done >= t.pairs() ? "The tune is over: the values to use" : "The values now") +
         ":</p><ul>" + now + "</ul>" +
         (f.confirm.empty() ? ""
                            : "<h2>Confirming SPRT</h2><pre>" + html_escape(f.confirm) + "</pre>") +
         "<figure>" + tune_svg(f.def, f.done) +
         "</figure><h2>Iterations</h2><table><tr><th>#</th><th>pairs</th><th>θ+ won–lost–drew</th>"
         "<th>R</th><th>θ after</th></tr>" +
         iteration_rows(f, root, rel) + "</table>";
}

}  // namespace

std::vector<TuneFolder> find_tune_folders(const std::vector<ServedRoot>& roots) {
  std::vector<TuneFolder> out;
  for (size_t r = 0; r < roots.size(); ++r) {
    std::vector<std::string> candidates = {roots[r].real};
    std::error_code ec;
    for (fs::directory_iterator it(roots[r].real, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory(ec)) candidates.push_back(it->path().string());
    for (const std::string& c : candidates) {
      const auto real = real_inside(roots[r], c);
      if (!real) continue;
      const std::optional<TuneFiles> f = read_tune(roots[r], *real, nullptr, true);
      if (!f) continue;
      out.push_back({static_cast<int>(r), relative_to(roots[r], *real), f->def.proto.name(),
                     f->done.empty() ? 0 : f->done.back().iteration() + size_t{1},
                     f->done.empty() ? 0 : f->done.back().pairs_done(), f->def.proto.pairs()});
    }
  }
  return out;
}

FolderRow tune_row(const std::vector<ServedRoot>& roots, const TuneFolder& t) {
  FolderRow row;
  const ServedRoot& r = roots[static_cast<size_t>(t.root)];
  row.name = r.given + (t.rel.empty() ? "" : "/" + t.rel);
  row.url = "/tune/" + std::to_string(t.root) + "/" + url_encode_path(t.rel);
  row.tournament = true;
  row.title = "tune " + t.name;
  row.state =
      t.pairs_done >= t.pairs ? FolderRow::State::kFinished : FolderRow::State::kInterrupted;
  row.verdict = std::to_string(t.pairs_done) + " of " + std::to_string(t.pairs) + " pairs, " +
                std::to_string(t.iterations) + " iterations";
  return row;
}

HttpResponse tune_page(const std::vector<ServedRoot>& roots, int root, std::string_view rel) {
  if (root < 0 || static_cast<size_t>(root) >= roots.size())
    return text_response(404, "no such folder");
  const ServedRoot& r = roots[static_cast<size_t>(root)];
  std::string why;
  const std::optional<std::string> real = resolve_under(r, rel, &why);
  if (!real) return text_response(404, why);
  const std::optional<TuneFiles> f = read_tune(r, *real, &why);
  if (!f) return text_response(404, why);
  const std::string rel_path = relative_to(r, *real);
  const bool over = !f->done.empty() && f->done.back().pairs_done() >= f->def.proto.pairs();
  return html(page("tune " + f->def.proto.name(), "<a href=\"/\">all folders</a>",
                   tune_body(*f, root, rel_path), !over));
}

}  // namespace allfives::referee::serve
