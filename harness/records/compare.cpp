#include "harness/records/compare.hpp"
#include "harness/core/json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace occbench {

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "slower";
    case Verdict::unchanged:
      return "unchanged";
    case Verdict::unknown:
      return "unknown";
  }
  return "?";
}

namespace {


bool comparable(const ordered_json& r) { return r.value("status", "") == "ok" && number_at(r, "timing", "median_ms") > 0; }

std::string device_name(const ResultsFile& f) {
  if (f.document.contains("device") && f.document["device"].is_object())
    return f.document["device"].value("name", std::string());
  return "";
}

std::string commit_of(const ResultsFile& f) {
  if (f.document.contains("tool") && f.document["tool"].is_object())
    return f.document["tool"].value("git_commit", std::string());
  return "";
}

// Joules per launch of both runs in millijoules and their change, "–" where one has none.
std::string energy_cells(const PointComparison& p) {
  auto mj = [](const std::optional<double>& j) { return j ? fmt::format("{:.4g}", *j * 1e3) : std::string("–"); };
  std::string change = p.base_joules && p.new_joules ? fmt::format("{:+.1f}%", 100 * (*p.new_joules / *p.base_joules - 1)) : "–";
  return fmt::format(" {} | {} | {} |", mj(p.base_joules), mj(p.new_joules), change);
}

}  // namespace

PointComparison compare_point(const std::string& point_id, const ordered_json& base, const ordered_json& next,
                              const CompareOptions& options) {
  PointComparison c;
  c.point_id = point_id;
  c.base_ms = number_at(base, "timing", "median_ms");
  c.new_ms = number_at(next, "timing", "median_ms");
  c.base_noise = number_at(base, "timing", "noise");
  c.new_noise = number_at(next, "timing", "noise");
  double base_samples = number_at(base, "timing", "samples"), new_samples = number_at(next, "timing", "samples");
  c.base_samples = std::isnan(base_samples) ? 0 : int(base_samples);
  c.new_samples = std::isnan(new_samples) ? 0 : int(new_samples);
  auto joules = [](const ordered_json& r) {
    double j = number_at(r, "energy", "joules_per_launch");
    return text_at(r, "energy", "status") == "ok" && j > 0 ? std::optional<double>(j) : std::nullopt;
  };
  c.base_joules = joules(base);
  c.new_joules = joules(next);
  if (!(c.base_ms > 0) || !(c.new_ms > 0)) return c;  // unknown
  c.ratio = c.new_ms / c.base_ms;
  bool noise_known = c.base_samples >= 2 && c.new_samples >= 2 && std::isfinite(c.base_noise) && std::isfinite(c.new_noise);
  if (!noise_known) return c;  // unknown: no spread to judge against
  double combined = std::sqrt(c.base_noise * c.base_noise + c.new_noise * c.new_noise);
  c.threshold = std::max({options.noise_factor * combined, options.min_change, options.resolution_ms / c.base_ms});
  if (c.ratio - 1 > c.threshold) c.verdict = Verdict::slower;
  else if (1 - c.ratio > c.threshold) c.verdict = Verdict::faster;
  else c.verdict = Verdict::unchanged;
  if (options.fail_on_regression_pct && c.verdict == Verdict::slower && (c.ratio - 1) * 100 > *options.fail_on_regression_pct)
    c.regression = true;
  return c;
}

Comparison compare_runs(const ResultsFile& base, const ResultsFile& next, const CompareOptions& options) {
  std::map<std::string, const ordered_json*> new_by_id;
  std::vector<std::string> new_order;
  for (const auto& r : next.document["results"]) {
    std::string id = record_point_id(r);
    if (new_by_id.emplace(id, &r).second) new_order.push_back(id);
  }
  Comparison out;
  std::map<std::string, bool> in_base;
  for (const auto& b : base.document["results"]) {
    std::string id = record_point_id(b);
    if (in_base.count(id)) continue;  // a duplicate id: the first record counts
    in_base[id] = true;
    auto it = new_by_id.find(id);
    if (it == new_by_id.end()) {
      out.only_in_base.push_back(id);
      continue;
    }
    const ordered_json& n = *it->second;
    if (comparable(b) && comparable(n)) {
      out.points.push_back(compare_point(id, b, n, options));
      const auto& c = out.points.back();
      out.faster += c.verdict == Verdict::faster;
      out.slower += c.verdict == Verdict::slower;
      out.unchanged += c.verdict == Verdict::unchanged;
      out.unknown += c.verdict == Verdict::unknown;
      out.regressions += c.regression;
    } else {
      NotCompared nc;
      nc.point_id = id;
      nc.base_status = b.value("status", "?");
      nc.new_status = n.value("status", "?");
      if (nc.base_status == "ok" && nc.new_status == "ok") nc.base_status = nc.new_status = "ok, untimed";
      const ordered_json& why = nc.new_status != "ok" ? n : b;
      nc.reason = why.contains("reason") && why["reason"].is_string() ? why["reason"].get<std::string>() : "";
      nc.regression = options.fail_on_regression_pct.has_value() && comparable(b) && nc.new_status == "failed";
      out.regressions += nc.regression;
      out.not_compared.push_back(nc);
    }
  }
  for (const auto& id : new_order)
    if (!in_base.count(id)) out.only_in_new.push_back(id);
  if (out.points.empty() && out.not_compared.empty())
    throw ResultsFileError(fmt::format("{} and {} have no point_id in common (is one of them a different sweep?); nothing to compare",
                                       base.path, next.path));
  return out;
}

std::string format_comparison(const Comparison& c, const ResultsFile& base, const ResultsFile& next,
                              const CompareOptions& options) {
  std::string text;
  auto describe = [](const ResultsFile& f) {
    std::string device = device_name(f), commit = commit_of(f);
    std::string extra;
    if (!device.empty()) extra += device;
    if (!commit.empty()) extra += (extra.empty() ? "" : ", ") + std::string("commit ") + commit;
    return fmt::format("`{}`{}", f.path, extra.empty() ? "" : " (" + extra + ")");
  };
  text += fmt::format("BASE {}\nNEW  {}\n", describe(base), describe(next));
  if (device_name(base) != device_name(next))
    text += fmt::format("note: the runs are from different devices ({} vs {}); the ratios compare the GPUs as well as the code\n",
                        device_name(base).empty() ? "?" : device_name(base), device_name(next).empty() ? "?" : device_name(next));
  text += fmt::format(
      "A change counts when |NEW/BASE - 1| > {:g} x sqrt(noise_BASE² + noise_NEW²), > {:g}% and > {:g} µs / BASE; noise is the "
      "stddev / mean of each run's samples.\n\n",
      options.noise_factor, 100 * options.min_change, options.resolution_ms * 1e3);

  bool energy = std::any_of(c.points.begin(), c.points.end(), [](const PointComparison& p) { return p.base_joules && p.new_joules; });
  if (!c.points.empty()) {
    text += "| point | BASE median | NEW median | NEW/BASE | change | threshold | verdict |";
    text += energy ? " BASE mJ/launch | NEW mJ/launch | energy change |\n" : "\n";
    text += energy ? "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|\n" : "|---|---:|---:|---:|---:|---:|---|\n";
    for (const auto& p : c.points) {
      auto median = [](double ms, double noise) {
        return std::isfinite(noise) ? fmt::format("{} ±{:.1f}%", format_duration_ms(ms), 100 * noise) : format_duration_ms(ms);
      };
      std::string verdict = to_string(p.verdict);
      if (p.regression) verdict += " (regression)";
      text += fmt::format("| {} | {} | {} | {:.3f} | {:+.1f}% | {} | {} |", p.point_id, median(p.base_ms, p.base_noise),
                          median(p.new_ms, p.new_noise), p.ratio, 100 * (p.ratio - 1),
                          p.verdict == Verdict::unknown && p.threshold == 0 ? std::string("–") : fmt::format("±{:.1f}%", 100 * p.threshold),
                          verdict);
      text += energy ? energy_cells(p) + "\n" : "\n";
    }
  }
  if (!c.not_compared.empty()) {
    text += "\nNot compared (not ok with a median in both runs):\n\n";
    for (const auto& n : c.not_compared)
      text += fmt::format("- `{}`: BASE {}, NEW {}{}{}\n", n.point_id, n.base_status, n.new_status,
                          n.reason.empty() ? "" : " - " + n.reason, n.regression ? " (regression: wrong result in NEW)" : "");
  }
  auto list = [&](const char* title, const std::vector<std::string>& ids) {
    if (ids.empty()) return;
    text += fmt::format("\n{} ({}):\n\n", title, ids.size());
    for (const auto& id : ids) text += fmt::format("- `{}`\n", id);
  };
  list("Only in BASE", c.only_in_base);
  list("Only in NEW", c.only_in_new);

  text += fmt::format("\nSummary: {} compared: {} faster, {} slower, {} unchanged, {} unknown; {} only in BASE, {} only in NEW, {} not compared.\n",
                      c.points.size(), c.faster, c.slower, c.unchanged, c.unknown, c.only_in_base.size(),
                      c.only_in_new.size(), c.not_compared.size());
  if (options.fail_on_regression_pct) {
    if (c.regressions)
      text += fmt::format("FAIL: {} point(s) regressed (slower by more than {:g}% beyond noise, or wrong results in NEW).\n",
                          c.regressions, *options.fail_on_regression_pct);
    else
      text += fmt::format("PASS: no point slower by more than {:g}% beyond noise.\n", *options.fail_on_regression_pct);
  }
  return text;
}

int comparison_exit_code(const Comparison& comparison, const CompareOptions& options) {
  return options.fail_on_regression_pct && comparison.regressions > 0 ? 1 : 0;
}

}  // namespace occbench
