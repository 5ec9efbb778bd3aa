#include "tune/tune_plot.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace allfives::referee {
namespace {

constexpr int kWidth = 640, kHeight = 320, kLeft = 48, kRight = 170, kTop = 16, kBottom = 36;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                    "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string tune_svg(const TuneDef& d, const std::vector<v1::TuneIteration>& done) {
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const double pairs = static_cast<double>(std::max<uint64_t>(1, d.schedule.pairs));
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << kWidth << " " << kHeight
    << "\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#999\" role=\"img\" "
       "style=\"max-width:720px\"><title>"
    << escaped(d.proto.name()) << ": each parameter over the tune</title>"
    << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plot_w << "\" height=\""
    << plot_h << "\" fill=\"none\" stroke=\"#999\"/>"
    << "<text x=\"" << kLeft << "\" y=\"" << kHeight - 10 << "\">pairs 0</text>"
    << "<text x=\"" << kLeft + plot_w << "\" y=\"" << kHeight - 10 << "\" text-anchor=\"end\">"
    << d.schedule.pairs << "</text>"
    << "<text x=\"" << kLeft - 4 << "\" y=\"" << kTop + 10 << "\" text-anchor=\"end\">max</text>"
    << "<text x=\"" << kLeft - 4 << "\" y=\"" << kTop + plot_h
    << "\" text-anchor=\"end\">min</text>";
  for (size_t j = 0; j < d.params.size(); ++j) {
    const SpsaParam& p = d.params[j];
    const char* colour = kColours[j % std::size(kColours)];
    const auto y = [&](double v) { return kTop + plot_h * (1 - (v - p.min) / (p.max - p.min)); };
    s << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"" << kLeft
      << "," << number(y(p.start));
    double last = p.start;
    for (const v1::TuneIteration& it : done) {
      last = it.theta().count(p.name) ? it.theta().at(p.name) : last;
      s << " " << number(kLeft + plot_w * static_cast<double>(it.pairs_done()) / pairs) << ","
        << number(y(last));
    }
    s << "\"/><text x=\"" << kWidth - kRight + 8 << "\" y=\"" << kTop + 14 + 32 * j << "\" fill=\""
      << colour << "\">" << escaped(p.name) << " " << number(last) << "</text><text x=\""
      << kWidth - kRight + 8 << "\" y=\"" << kTop + 28 + 32 * j
      << "\" fill=\"#666\" font-size=\"10\">[" << number(p.min) << ", " << number(p.max)
      << "], start " << number(p.start) << "</text>";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace allfives::referee
