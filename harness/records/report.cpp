#include "harness/records/report.hpp"

#include "harness/records/record_checks.hpp"
#include "harness/records/energy_front.hpp"
#include "harness/records/occupancy_knee.hpp"
#include "harness/core/files.hpp"
#include "harness/core/format.hpp"
#include "harness/core/json.hpp"
#include "harness/core/bad_input.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace occbench {

namespace {

const char* kExpected = "an occbench results document (the .json that `occbench run` writes)";

}  // namespace

std::string record_point_id(const ordered_json& r) {
  if (r.contains("point_id") && r["point_id"].is_string()) return r["point_id"].get<std::string>();
  if (!r.contains("family") || !r["family"].is_string() || !r.contains("variant") || !r["variant"].is_string()) return "";
  std::string id = r["family"].get<std::string>() + "/" + r["variant"].get<std::string>();
  if (r.contains("params") && r["params"].is_object())
    for (const auto& item : r["params"].items()) id += "/" + item.key() + "=" + item.value().dump();
  return id;
}

ResultsFile results_from_json(const ordered_json& doc, const std::string& path) {
  auto fail = [&](const std::string& what) { throw ResultsFileError(fmt::format("{}: {}", path, what)); };
  if (!doc.is_object()) fail(fmt::format("expected {}, a JSON object; found {}", kExpected, json_type_name(doc)));
  if (!doc.contains("schema_version"))
    fail(fmt::format("no schema_version; expected {} with schema_version {}", kExpected, kSchemaVersion));
  const auto& version = doc["schema_version"];
  if (!version.is_number_integer() || version.get<long long>() != kSchemaVersion)
    fail(fmt::format("schema_version is {}, expected {} (this occbench reads results of schema version {})",
                     version.dump(), kSchemaVersion, kSchemaVersion));
  if (!doc.contains("results") || !doc["results"].is_array())
    fail(fmt::format("expected a 'results' array of points, found {}",
                     doc.contains("results") ? json_type_name(doc["results"]) : "none"));
  const auto& results = doc["results"];
  if (results.empty()) fail("'results' is empty: the run recorded no points");
  for (std::size_t i = 0; i < results.size(); ++i)
    if (std::string problem = record_problem(results[i]); !problem.empty()) fail(fmt::format("$.results[{}]{}", i, problem));
  if (std::string problem = document_problem(doc); !problem.empty()) fail(problem);
  ResultsFile file;
  file.path = path;
  file.document = doc;
  return file;
}

ResultsFile load_results_file(const std::string& path) {
  std::string why;
  std::optional<std::string> text = read_file(path, &why);
  if (!text) throw ResultsFileError(fmt::format("{}: the file {}; expected {}", display_path(path), why, kExpected));
  ordered_json doc;
  try {
    doc = parse_json(*text, path);
  } catch (const BadInput& e) {
    bool jsonl = path.size() > 6 && path.substr(path.size() - 6) == ".jsonl";
    throw ResultsFileError(fmt::format("{}; expected {}{}", e.what(), kExpected,
                                       jsonl ? " - this looks like a run's .jsonl log; use the .json written beside it" : ""));
  }
  return results_from_json(doc, path);
}

void assign_labels(std::vector<ResultsFile>& files) {
  auto device_label = [](const ResultsFile& f) {
    std::string name;
    if (f.document.contains("device") && f.document["device"].is_object())
      name = f.document["device"].value("name", "");
    if (name.rfind("NVIDIA ", 0) == 0) name = name.substr(7);
    return name.empty() ? std::filesystem::path(f.path).filename().string() : name;
  };
  std::map<std::string, int> count;
  for (const auto& f : files) ++count[device_label(f)];
  std::map<std::string, int> seen;
  for (auto& f : files) {
    std::string label = device_label(f);
    if (count[label] > 1) {
      std::string name = std::filesystem::path(f.path).filename().string();
      label = label == name ? name : fmt::format("{} ({})", label, name);
    }
    f.label = label;
  }
  // Still equal (the same file name in two folders): number them.
  std::map<std::string, int> again;
  for (const auto& f : files) ++again[f.label];
  for (auto& f : files)
    if (again[f.label] > 1) f.label += fmt::format(" #{}", ++seen[f.label]);
}

namespace {



bool timed(const ordered_json& r) { return r.value("status", "") == "ok" && number_at(r, "timing", "median_ms") > 0; }

// Three significant digits or so, without exponents for the usual ranges.
std::string sig(double v) {
  if (std::isnan(v)) return "–";
  double a = std::fabs(v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string median_cell(const ordered_json& r) {
  if (!timed(r)) return r.value("status", "?");
  std::string cell = format_duration_ms(number_at(r, "timing", "median_ms"));
  double noise = number_at(r, "timing", "noise");
  if (!std::isnan(noise)) cell += fmt::format(" ±{:.1f}%", 100 * noise);
  return cell;
}

std::string occupancy_cell(const ordered_json& r) {
  double occupancy = number_at(r, "occupancy", "theoretical");
  if (std::isnan(occupancy)) return "–";
  std::string limiter = text_at(r, "occupancy", "limiter");
  return limiter.empty() ? fmt::format("{:.2f}", occupancy) : fmt::format("{:.2f} ({})", occupancy, limiter);
}

std::string speedup_cell(const ordered_json& r) {
  double s = number_at(r, "metrics", "speedup_vs_baseline");
  if (std::isnan(s) || !timed(r)) return "–";
  return s >= 0.1 ? fmt::format("{:.2f}×", s) : fmt::format("{:.2g}×", s);  // the host loop is ~0.005×
}

std::string metric_cell(const ordered_json& r, const char* key) {
  return timed(r) ? sig(number_at(r, "metrics", key)) : "–";
}

std::string cgma_cell(const ordered_json& r) {
  double c = number_at(r, "work", "cgma_flop_per_byte");
  return std::isnan(c) ? "–" : fmt::format("{:.3g}", c);
}

std::string markdown_table(const std::vector<std::string>& header, const std::vector<bool>& right,
                           const std::vector<std::vector<std::string>>& rows) {
  std::string text = "|";
  for (const auto& h : header) text += " " + md_escape(h) + " |";
  text += "\n|";
  for (std::size_t i = 0; i < header.size(); ++i) text += right[i] ? "---:|" : "---|";
  text += "\n";
  for (const auto& row : rows) {
    text += "|";
    for (const auto& cell : row) text += " " + md_escape(cell) + " |";
    text += "\n";
  }
  return text;
}

std::string device_summary(const ordered_json& doc) {
  if (!doc.contains("device") || !doc["device"].is_object()) return "an unknown device";
  const auto& d = doc["device"];
  std::string text = d.value("name", std::string("an unnamed device"));
  std::vector<std::string> facts;
  if (d.contains("compute_capability") && d["compute_capability"].is_string())
    facts.push_back("compute capability " + d["compute_capability"].get<std::string>());
  // A count as written (dump): a float or a huge number in a hand-edited file is no int to convert.
  if (d.contains("sm_count") && d["sm_count"].is_number_integer()) facts.push_back(fmt::format("{} SMs", d["sm_count"].dump()));
  if (d.contains("measured_bandwidth_gbps") && d["measured_bandwidth_gbps"].is_number())
    facts.push_back(fmt::format("copy {:.0f} GB/s measured", d["measured_bandwidth_gbps"].get<double>()));
  if (d.contains("peak_bandwidth_gbps") && d["peak_bandwidth_gbps"].is_number())
    facts.push_back(fmt::format("{:.0f} GB/s peak", d["peak_bandwidth_gbps"].get<double>()));
  if (!facts.empty()) {
    text += " (";
    for (std::size_t i = 0; i < facts.size(); ++i) text += (i ? ", " : "") + facts[i];
    text += ")";
  }
  return text;
}

std::string sweep_name(const ordered_json& doc) {
  if (doc.contains("config") && doc["config"].is_object()) {
    const auto& c = doc["config"];
    if (c.contains("name") && c["name"].is_string()) return c["name"].get<std::string>();
    if (c.contains("family") && c["family"].is_string()) return c["family"].get<std::string>();
  }
  return "sweep";
}

std::string provenance(const ordered_json& doc) {
  std::vector<std::string> parts;
  if (doc.contains("tool") && doc["tool"].is_object()) {
    std::string version = doc["tool"].value("version", std::string());
    parts.push_back(fmt::format("{}{} ({})", doc["tool"].value("name", std::string("occbench")),
                                version.empty() ? "" : " " + version, doc["tool"].value("git_commit", std::string("?"))));
  }
  if (doc.contains("run") && doc["run"].is_object()) {
    const auto& run = doc["run"];
    if (run.contains("measurement") && run["measurement"].is_object() && run["measurement"].contains("mode") &&
        run["measurement"]["mode"].is_string())
      parts.push_back(run["measurement"]["mode"].get<std::string>() + " L2");
    if (run.contains("kind") && run["kind"].is_string() && run["kind"] != "run") parts.push_back(run["kind"].get<std::string>());
    // A sample or a search measured part of the sweep: say which and how.
    if (run.contains("strategy") && run["strategy"].is_object() && run["strategy"].contains("name")) {
      const auto& s = run["strategy"];
      std::string budget = s.contains("max_points") && s["max_points"].is_number() ? fmt::format("at most {} points, ", s["max_points"].dump()) : "";
      if (s.contains("time_limit_s") && s["time_limit_s"].is_number()) budget += fmt::format("{} s, ", s["time_limit_s"].dump());
      parts.push_back(fmt::format("strategy {} ({}seed {})", s["name"].get<std::string>(), budget, s.value("seed", 0)));
    }
    if (run.contains("finished_utc") && run["finished_utc"].is_string()) parts.push_back(run["finished_utc"].get<std::string>());
  }
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
  return text;
}

std::string baseline_of(const ordered_json& doc) {
  if (doc.contains("config") && doc["config"].is_object() && doc["config"].contains("baseline") &&
      doc["config"]["baseline"].is_string())
    return doc["config"]["baseline"].get<std::string>();
  return "";
}

// Rows keyed by point_id, first-seen order over the files; each row holds one record per file.
struct MergedRow {
  std::string point_id;
  std::vector<const ordered_json*> records;  // nullptr where a file does not have the point
  const ordered_json& first() const {
    for (const auto* r : records)
      if (r) return *r;
    throw std::logic_error("merged row without records");
  }
};

std::vector<MergedRow> merge_rows(const std::vector<ResultsFile>& files) {
  std::vector<MergedRow> rows;
  std::map<std::string, std::size_t> index;
  for (std::size_t f = 0; f < files.size(); ++f) {
    for (const auto& r : files[f].document["results"]) {
      std::string id = record_point_id(r);
      auto it = index.find(id);
      if (it == index.end()) {
        it = index.emplace(id, rows.size()).first;
        rows.push_back({id, std::vector<const ordered_json*>(files.size(), nullptr)});
      }
      if (!rows[it->second].records[f]) rows[it->second].records[f] = &r;
    }
  }
  return rows;
}

std::string definitions(const std::vector<ResultsFile>& files) {
  std::vector<std::string> baselines;
  for (const auto& f : files) {
    std::string b = baseline_of(f.document);
    if (!b.empty() && std::find(baselines.begin(), baselines.end(), b) == baselines.end()) baselines.push_back(b);
  }
  std::string baseline;
  for (std::size_t i = 0; i < baselines.size(); ++i) baseline += (i ? ", `" : "`") + baselines[i] + "`";
  return fmt::format(
      "Median of each point's samples, ± its noise (stddev / mean); cold: L2 flushed before every sample. GB/s: "
      "minimal DRAM bytes (inputs read once, outputs written once) ÷ median, 10⁹ B/s; % copy: of the device's "
      "measured device-to-device copy bandwidth. FLOP: a multiply-add counts 2. CGMA: FLOP ÷ bytes of global-memory "
      "loads and stores the kernel issues. Occupancy: theoretical, with the resource that limits it. Speedup: the "
      "baseline{}'s median ÷ this median (>1: faster).\n",
      baseline.empty() ? "" : " (" + baseline + ")");
}

std::string not_timed_list(const std::vector<ResultsFile>& files, const std::vector<MergedRow>& rows) {
  std::string text;
  for (const auto& row : rows) {
    for (std::size_t f = 0; f < files.size(); ++f) {
      const ordered_json* r = row.records[f];
      if (!r) continue;
      std::string status = r->value("status", "");
      if (status != "skipped" && status != "failed") continue;
      std::string reason = r->contains("reason") && (*r)["reason"].is_string() ? (*r)["reason"].get<std::string>() : "";
      text += fmt::format("- `{}`{}: {}{}\n", row.point_id, files.size() > 1 ? " on " + files[f].label : "", status,
                          reason.empty() ? "" : " - " + md_escape(reason));
    }
  }
  return text.empty() ? "" : "\nNot timed:\n\n" + text;
}

// Curves over occupancy_limit (harness/records/occupancy_knee), one table per file that has any.
std::string knee_section(const std::vector<ResultsFile>& files) {
  std::string text;
  auto occupancy_text = [](const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : std::string("–"); };
  for (const auto& f : files) {
    std::vector<OccupancyKnee> knees = occupancy_knees(f.document["results"]);
    if (knees.empty()) continue;
    text += fmt::format("\nOccupancy knees{} (lowest theoretical occupancy within {:.0f}% of the curve's best median; "
                        "predicted: Little's law from the measured copy bandwidth and DRAM latency; carveout slowdown: the "
                        "forced point at the unforced occupancy (carveout at max shared, no ballast) over occupancy_limit 0, "
                        "the launch as it is):\n\n",
                        files.size() > 1 ? " on " + f.label : "", 100 * kKneeTolerance);
    std::vector<std::vector<std::string>> cells;
    for (const auto& k : knees)
      cells.push_back({k.curve, std::to_string(k.points), format_duration_ms(k.best_median_ms),
                       fmt::format("{:.3f}", k.best_occupancy),
                       fmt::format("{:.3f} ({} blk/SM)", k.occupancy_knee, k.knee_blocks_per_sm),
                       occupancy_text(k.achieved_occupancy_knee), occupancy_text(k.predicted_knee_occupancy),
                       fmt::format("{:.2f}x at {:.3f}", k.slowdown_at_lowest, k.lowest_occupancy),
                       k.carveout_slowdown ? fmt::format("{:.3f}", *k.carveout_slowdown) : std::string("–")});
    text += markdown_table({"curve", "points", "best median", "best at occupancy", "occupancy_knee", "achieved at knee",
                            "predicted knee", "slowdown at lowest", "carveout slowdown"},
                           {false, true, true, true, true, true, true, true, true}, cells);
  }
  return text;
}

std::vector<std::string> size_names(const ordered_json& doc) {
  std::vector<std::string> names;
  if (doc.contains("config") && doc["config"].is_object() && doc["config"].contains("sizes") && doc["config"]["sizes"].is_object())
    for (const auto& item : doc["config"]["sizes"].items()) names.push_back(item.key());
  return names;
}

std::vector<EnergyFront> fronts_of(const ResultsFile& f) { return energy_fronts(f.document["results"], size_names(f.document)); }

// A point's marks in a run with energy: the fastest and the least-energy point of its sizes, and
// a point read at the board's power limit (its energy is the limit's, its clock held down).
std::string energy_marks(const ordered_json& r, const std::vector<EnergyFront>& fronts) {
  std::string id = r.value("point_id", "");
  std::vector<std::string> marks;
  for (const auto& f : fronts) {
    if (f.fastest.point_id == id) marks.push_back("fastest");
    if (f.least_energy.point_id == id) marks.push_back("least energy");
  }
  if (r.contains("energy") && r["energy"].value("at_power_limit", false)) marks.push_back("at the power limit");
  return fmt::format("{}", fmt::join(marks, ", "));
}

std::string joules_text(double j) {
  return j >= 0.1 ? fmt::format("{} J", sig(j)) : j >= 1e-4 ? fmt::format("{} mJ", sig(j * 1e3)) : fmt::format("{} µJ", sig(j * 1e6));
}

std::string joules_cell(const ordered_json& r) {
  double j = number_at(r, "energy", "joules_per_launch");
  return text_at(r, "energy", "status") == "ok" && j > 0 ? joules_text(j) : "–";
}

// Per sizes: the fastest and the least-energy point, what the second saves and costs, the front.
std::string energy_section(const std::vector<ResultsFile>& files) {
  std::string text;
  for (const auto& f : files) {
    std::vector<EnergyFront> fronts = fronts_of(f);
    if (fronts.empty()) continue;
    text += fmt::format("\nEnergy{} (joules per launch, launches back to back; saved and cost: the least-energy point against "
                        "the fastest; Pareto: the points no other beats in both median and energy):\n\n",
                        files.size() > 1 ? " on " + f.label : "");
    std::vector<std::vector<std::string>> cells;
    for (const auto& e : fronts) {
      bool same = e.fastest.point_id == e.least_energy.point_id;
      std::string pareto;
      for (const auto& p : e.pareto) pareto += (pareto.empty() ? "" : "<br>") + md_escape(p.point_id);
      cells.push_back({e.group.empty() ? "–" : md_escape(e.group), std::to_string(e.points),
                       fmt::format("{} ({}, {})", md_escape(e.fastest.point_id), format_duration_ms(e.fastest.median_ms),
                                   joules_text(e.fastest.joules_per_launch)),
                       same ? "the fastest"
                            : fmt::format("{} ({}, {})", md_escape(e.least_energy.point_id), format_duration_ms(e.least_energy.median_ms),
                                          joules_text(e.least_energy.joules_per_launch)),
                       same ? "–" : fmt::format("{:.1f}%", 100 * e.energy_saving), same ? "–" : fmt::format("{:+.1f}%", 100 * e.time_cost),
                       pareto});
    }
    text += markdown_table({"sizes", "points", "fastest", "least energy", "energy saved", "time cost", "Pareto front"},
                           {false, true, false, false, true, true, false}, cells);
  }
  return text;
}

}  // namespace


std::string report_markdown(const std::vector<ResultsFile>& files) {
  std::vector<MergedRow> rows = merge_rows(files);
  std::string text;
  std::vector<std::string> header;
  std::vector<bool> right;
  std::vector<std::vector<std::string>> cells;

  if (files.size() == 1) {
    const auto& doc = files[0].document;
    std::string prov = provenance(doc);
    text += fmt::format("**{}** on {}{}\n\n", md_escape(sweep_name(doc)), md_escape(device_summary(doc)),
                        prov.empty() ? "" : "; " + md_escape(prov));
    header = {"variant", "params", "median", "GB/s", "% copy", "GFLOP/s", "CGMA (FLOP/B)", "occupancy", "speedup"};
    right = {false, false, true, true, true, true, true, true, true};
    std::vector<EnergyFront> fronts = fronts_of(files[0]);
    if (!fronts.empty()) {  // a run with energy: joules per launch and the marks
      header.insert(header.end(), {"energy / launch", "marks"});
      right.insert(right.end(), {true, false});
    }
    for (const auto& row : rows) {
      const ordered_json& r = *row.records[0];
      cells.push_back({r.value("variant", ""), params_text(r), median_cell(r), metric_cell(r, "achieved_bandwidth_gbps"),
                       metric_cell(r, "pct_of_measured_bandwidth"), metric_cell(r, "gflops"), cgma_cell(r),
                       occupancy_cell(r), speedup_cell(r)});
      if (!fronts.empty()) cells.back().insert(cells.back().end(), {joules_cell(r), energy_marks(r, fronts)});
    }
  } else {
    text += "Results side by side, one column group per file:\n\n";
    for (const auto& f : files) {
      std::string prov = provenance(f.document);
      text += fmt::format("- **{}**: `{}`, sweep {} on {}{}\n", md_escape(f.label), md_escape(f.path),
                          md_escape(sweep_name(f.document)), md_escape(device_summary(f.document)),
                          prov.empty() ? "" : "; " + md_escape(prov));
    }
    text += "\n";
    header = {"variant", "params", "CGMA (FLOP/B)"};
    right = {false, false, true};
    for (const auto& f : files) {
      for (const char* what : {"median", "GB/s", "occupancy", "speedup"}) {
        header.push_back(f.label + " " + what);
        right.push_back(true);
      }
    }
    for (const auto& row : rows) {
      const ordered_json& first = row.first();
      std::vector<std::string> line = {first.value("variant", ""), params_text(first), cgma_cell(first)};
      for (std::size_t f = 0; f < files.size(); ++f) {
        const ordered_json* r = row.records[f];
        if (!r) {
          line.insert(line.end(), {"not run", "–", "–", "–"});
          continue;
        }
        line.insert(line.end(), {median_cell(*r), metric_cell(*r, "achieved_bandwidth_gbps"), occupancy_cell(*r), speedup_cell(*r)});
      }
      cells.push_back(line);
    }
  }
  text += markdown_table(header, right, cells);
  text += not_timed_list(files, rows);
  text += knee_section(files);
  text += energy_section(files);
  text += "\n" + definitions(files);
  return text;
}

std::string report_csv(const std::vector<ResultsFile>& files) {
  std::vector<ordered_json> records;
  for (const auto& f : files) {
    std::string device = f.document.contains("device") && f.document["device"].is_object()
                             ? f.document["device"].value("name", std::string())
                             : std::string();
    for (const auto& r : f.document["results"]) {
      ordered_json row;
      row["source"] = f.path;
      row["device_name"] = device;
      for (const auto& item : r.items())
        if (item.key() != "source" && item.key() != "device_name") row[item.key()] = item.value();
      records.push_back(std::move(row));
    }
  }
  return to_csv(records);
}

ordered_json report_json(const std::vector<ResultsFile>& files) {
  ordered_json out;
  out["occbench_report"] = 1;
  out["sources"] = ordered_json::array();
  for (const auto& f : files) {
    const auto& d = f.document;
    out["sources"].push_back({{"file", f.path},
                              {"label", f.label},
                              {"sweep", sweep_name(d)},
                              {"device", d.contains("device") ? d["device"] : ordered_json(nullptr)},
                              {"tool", d.contains("tool") ? d["tool"] : ordered_json(nullptr)},
                              {"run", d.contains("run") ? d["run"] : ordered_json(nullptr)}});
    out["sources"].back()["occupancy_knees"] = ordered_json::array();
    for (const auto& k : occupancy_knees(d["results"])) out["sources"].back()["occupancy_knees"].push_back(to_json(k));
    std::vector<EnergyFront> fronts = fronts_of(f);
    if (!fronts.empty()) {
      out["sources"].back()["energy_fronts"] = ordered_json::array();
      for (const auto& e : fronts) out["sources"].back()["energy_fronts"].push_back(to_json(e));
    }
  }
  out["points"] = ordered_json::array();
  for (const auto& row : merge_rows(files)) {
    const ordered_json& first = row.first();
    ordered_json per_file = ordered_json::array();
    for (const auto* r : row.records) per_file.push_back(r ? *r : ordered_json(nullptr));
    out["points"].push_back({{"point_id", row.point_id},
                             {"family", first.value("family", "")},
                             {"variant", first.value("variant", "")},
                             {"params", first.contains("params") ? first["params"] : ordered_json::object()},
                             {"results", per_file}});
  }
  return out;
}

std::string render_report(const std::vector<ResultsFile>& files, ReportFormat format) {
  switch (format) {
    case ReportFormat::markdown:
      return report_markdown(files);
    case ReportFormat::csv:
      return report_csv(files);
    case ReportFormat::json:
      return report_json(files).dump(2) + "\n";
  }
  return "";
}

}  // namespace occbench
