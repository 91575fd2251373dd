#include "harness/records/record_writer.hpp"

#include "harness/records/record_checks.hpp"
#include "harness/records/report.hpp"
#include "harness/measure/counters/counters.hpp"
#include "harness/core/files.hpp"
#include "harness/core/format.hpp"
#include "harness/core/json.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#ifndef OCCBENCH_VERSION
#define OCCBENCH_VERSION "0.0.0"
#endif
#ifndef OCCBENCH_GIT_COMMIT
#define OCCBENCH_GIT_COMMIT "unknown"
#endif

namespace occbench {

ordered_json units_block() {
  ordered_json units = {{"launch.dynamic_smem_bytes", "bytes"},
          {"resources.registers_per_thread", "registers"},
          {"resources.static_smem_bytes", "bytes"},
          {"resources.local_bytes_per_thread", "bytes"},
          {"occupancy.theoretical", "fraction of max warps per SM (0-1)"},
          {"occupancy.thread_utilization", "fraction of max threads per SM (0-1)"},
          {"timing.median_ms", "ms"},
          {"timing.source", "cupti_range_profiler (the kernels' gpu__time_duration) | cupti_kernel_activity (the kernels' "
                            "GPU durations) | cuda_event_pair | host_clock"},
          {"timing.event_median_ms", "ms, the event pair's median of the same samples (cupti_range_profiler: of the "
                                     "event_samples taken before the profiled ones)"},
          {"timing.profiled_wall_s", "s of wall time in the range profiler's collection"},
          {"timing.mean_ms", "ms"},
          {"timing.min_ms", "ms"},
          {"timing.max_ms", "ms"},
          {"timing.stddev_ms", "ms"},
          {"timing.noise", "stddev / mean (relative)"},
          {"timing.total_ms", "ms, the sum of the timed samples"},
          {"timing.sampling_wall_s", "s of wall time in the sampling loop"},
          {"timing.samples_ms", "ms, the first 32 samples in the order they were taken"},
          {"timing.cold_median_ms", "ms (batch mode: the cold median beside the per-launch figures)"},
          {"timing.conditions.sm_mhz_min", "MHz"},
          {"time_use", "s of wall time: problem_s (the size's inputs and reference, on its first point), verify_s, "
                       "compiler_wait_s (waited for a compile worker before the point was given), point_s (all of it), "
                       "search_s (the source's time to give the point after the last one's record: a search's choice); "
                       "finished_utc: when the record was written"},
          {"timing.conditions.memory_mhz_min", "MHz"},
          {"work.flops", "FLOP (a multiply-add counts 2)"},
          {"work.equivalent_flops", "FLOP of the full naive computation"},
          {"work.global_bytes", "bytes of global-memory loads and stores the kernel issues"},
          {"work.dram_bytes", "bytes: each input read once, each output written once"},
          {"work.cgma_flop_per_byte", "FLOP per byte of global-memory traffic"},
          {"metrics.achieved_bandwidth_gbps", "GB/s (1e9 bytes/s) of dram_bytes"},
          {"metrics.gflops", "GFLOP/s (1e9 FLOP/s)"},
          {"metrics.gflops_equivalent", "GFLOP/s of equivalent_flops"},
          {"metrics.pct_of_measured_bandwidth", "% of the measured device-to-device copy bandwidth"},
          {"metrics.pct_of_peak_bandwidth", "% of memory clock x bus width x 2"},
          {"metrics.speedup_vs_baseline", "baseline median / this median (>1: faster)"},
          {"device.sm_clock_mhz", "MHz"},
          {"device.memory_clock_mhz", "MHz"},
          {"device.peak_bandwidth_gbps", "GB/s"},
          {"device.measured_bandwidth_gbps", "GB/s, read + write bytes of a device-to-device copy"},
          {"device.measured_l2_bandwidth_gbps", "GB/s of reads from an L2-resident buffer (a quarter of the L2)"},
          {"device.measured_smem_bandwidth_gbps", "GB/s of conflict-free 16-byte shared-memory reads, all SMs"},
          {"device.peak_fp32_gflops", "GFLOP/s"},
          {"device.dram_latency_ns", "ns per dependent 4-byte __ldcg load, one thread chasing a random cycle of 128-byte "
                                     "lines over max(8 x L2, 256 MiB) (at most 512 MiB)"},
          {"work.bytes_in_flight_per_warp", "bytes of DRAM loads one warp keeps outstanding (Little's-law model input)"},
          {"occupancy.forced.ballast_bytes", "bytes of dynamic shared memory per block added by occupancy_limit"},
          {"occupancy.forced.target_blocks_per_sm", "resident blocks per SM the occupancy_limit axis asked for"},
          {"littles_law.bytes_in_flight_per_sm_needed", "bytes: measured copy bandwidth x DRAM latency / SMs"},
          {"littles_law.predicted_knee_occupancy", "fraction of max warps per SM: warps needed / max warps, at most 1"},
          {"device.timing_floor_ms", "ms, median event-pair time around an empty kernel"},
          {"run.wall_s", "s"},
          {"run.timed_s", "s, the sum of every point's timed samples"},
          {"run.timed_fraction", "timed_s / wall_s"},
          {"run.time_use_s", "s, the points' time_use summed (compile_s: their compile blocks' compile_ms + waited_ms, and "
                             "their compiler_wait_s: the wait for a compile worker before the point was given; "
                             "rest_of_points_s: what no part names), and the wall time outside the points"},
          {"energy.joules_per_launch", "J: average_w x launch_ms, the board's energy per back-to-back launch"},
          {"energy.joules_per_launch_above_idle", "J: (average_w - idle_w) x launch_ms"},
          {"energy.average_w", "W: the energy counter's steps over the window / window_s"},
          {"energy.idle_w", "W: the device idle at the start of the run (the counter over its first updates)"},
          {"energy.gflop_per_j", "1e9 FLOP per joule (work.flops / joules_per_launch)"},
          {"energy.gb_per_j", "1e9 bytes of dram_bytes per joule"},
          {"energy.launch_ms", "ms per launch, back to back (event pair around the window's launches / launches)"},
          {"energy.window_s", "s: counter_periods x the counter's update period"},
          {"energy.energy_j", "J: the counter's steps over the window"},
          {"energy.power_samples_mean_w", "W: mean of the driver's power samples (nvmlDeviceGetSamples) taken within the window"},
          {"energy.wall_s", "s of wall time the window took"},
          {"energy.throttle_reasons", "NVML's reasons the clocks were held down during the window (sw_power_cap: at the power limit)"},
          {"energy.power_limit_w", "W: the power limit the board enforces (nvmlDeviceGetEnforcedPowerLimit; never changed)"},
          {"energy.power_cap_wait_s", "s the launches ran, after a first window at the power limit, until NVML reported the power cap"},
          {"energy.first_window.joules_per_launch", "J: the first window's, before the power cap engaged (at_power_limit only)"},
          {"sm_clock.asked_mhz", "MHz the sm_clock_mhz axis locked the SM clock to (0: the driver's default)"},
          {"sm_clock.observed_sm_mhz", "MHz measured on the GPU right after the timed samples: clock64 cycles over 1 ms of the global timer"},
          {"sm_clock.nvml_sm_mhz_min", "MHz, lowest SM clock NVML read while the point was timed (lags a lock or reset by up to ~1 s)"},
          {"run.energy.counter_period_ms", "ms between updates of NVML's energy counter, measured at the start of the run"},
          {"run.energy.idle_w", "W of the idle device at the start of the run"}};
  ordered_json counter_units = counters_units();
  for (const auto& [key, unit] : counter_units.items()) units[key] = unit;
  return units;
}

ordered_json tool_block() {
  return {{"name", "occbench"}, {"version", OCCBENCH_VERSION}, {"git_commit", OCCBENCH_GIT_COMMIT}};
}

ordered_json make_document(const ordered_json& run, const ordered_json& device, const ordered_json& config,
                           const std::vector<ordered_json>& results) {
  ordered_json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["tool"] = tool_block();
  doc["run"] = run;
  doc["device"] = device;
  doc["config"] = config;
  doc["units"] = units_block();
  doc["results"] = results;
  return doc;
}

namespace {

std::string scalar_text(const ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d)) return "";
    return fmt::format("{}", d);  // shortest round-trip form
  }
  return v.dump();
}

void flatten_into(const ordered_json& v, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  if (v.is_object()) {
    for (const auto& item : v.items())
      flatten_into(item.value(), prefix.empty() ? item.key() : prefix + "_" + item.key(), out);
  } else if (v.is_array()) {
    bool xyz = v.size() == 3 && std::all_of(v.begin(), v.end(), [](const ordered_json& e) { return e.is_number(); });
    if (xyz) {
      const char* axis[] = {"x", "y", "z"};
      for (int i = 0; i < 3; ++i) out.emplace_back(prefix + "_" + axis[i], scalar_text(v[i]));
    } else {
      std::string joined;
      for (const auto& e : v) joined += (joined.empty() ? "" : ";") + scalar_text(e);
      out.emplace_back(prefix, joined);
    }
  } else {
    out.emplace_back(prefix, scalar_text(v));
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> flatten(const ordered_json& record) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten_into(record, "", out);
  return out;
}

std::string to_csv(const std::vector<ordered_json>& results) {
  std::vector<std::string> columns;
  std::vector<std::vector<std::pair<std::string, std::string>>> rows;
  for (const auto& r : results) {
    rows.push_back(flatten(r));
    for (const auto& [key, value] : rows.back())
      if (std::find(columns.begin(), columns.end(), key) == columns.end()) columns.push_back(key);
  }
  std::string text;
  for (std::size_t i = 0; i < columns.size(); ++i) text += (i ? "," : "") + csv_field(columns[i]);
  text += "\n";
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      std::string value;
      for (const auto& [key, v] : row)
        if (key == columns[i]) value = v;
      text += (i ? "," : "") + csv_field(value);
    }
    text += "\n";
  }
  return text;
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = any = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
      any = true;
    } else if (c == '\n') {
      row.push_back(field);
      rows.push_back(row);
      row.clear();
      field.clear();
      any = false;
    } else if (c != '\r') {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) {
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}


ordered_json read_json_file(const std::string& path) {
  std::string why;
  std::optional<std::string> text = read_file(path, &why);
  if (!text) throw ResultsFileError(fmt::format("{}: the file {}; expected a JSON document", display_path(path), why));
  return parse_json(*text, path);
}

JsonlWriter::JsonlWriter(const std::string& path, bool append) : path_(path) {
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  out_.open(path, append ? std::ios::app : std::ios::trunc);
  if (!out_) throw std::runtime_error(fmt::format("{}: cannot open for writing", path));
}

void JsonlWriter::write(const ordered_json& line) {
  out_ << line.dump() << '\n';
  out_.flush();
  if (!out_) throw std::runtime_error(fmt::format("{}: write failed", path_));
}

std::map<std::string, ordered_json> records_by_point(const JsonlContents& contents) {
  std::map<std::string, ordered_json> records;
  for (const auto& r : contents.results) records[r.value("point_id", "")] = r;
  return records;
}

namespace {

const char* kJsonlExpected = "an occbench .jsonl file (the log `occbench run` writes point by point)";

// The family a .jsonl header's config sweeps: its "family", else its source file's stem.
std::string header_family(const ordered_json& header) {
  if (!header.contains("config") || !header["config"].is_object()) return "";
  const ordered_json& config = header["config"];
  if (config.contains("family") && config["family"].is_string()) return config["family"].get<std::string>();
  if (config.contains("source") && config["source"].is_string())
    return std::filesystem::path(config["source"].get<std::string>()).stem().string();
  return "";
}

void check_jsonl_header(const ordered_json& header, const std::string& where) {
  if (!header.is_object() || !header.contains("occbench_jsonl"))
    throw ResultsFileError(fmt::format("{} is not an occbench header (expected an object with key occbench_jsonl); expected {}", where,
                                       kJsonlExpected));
  const ordered_json& version = header["occbench_jsonl"];
  if (!version.is_number_integer() || version.get<long long>() != kJsonlVersion)
    throw ResultsFileError(fmt::format("{}: occbench_jsonl is {}, expected {} (this occbench reads .jsonl version {})", where,
                                       version.dump(), kJsonlVersion, kJsonlVersion));
  if (std::string problem = document_problem(header); !problem.empty()) throw ResultsFileError(fmt::format("{}: {}", where, problem));
  // Its fields are checked where a resume restores them (harness/cli/command_run.cpp).
  if (header.contains("selection") && !header["selection"].is_object() && !header["selection"].is_null())
    throw ResultsFileError(fmt::format("{}: $.selection: expected an object, got {}", where, json_type_name(header["selection"])));
}

// One sweep's record: readable (record_problem), and of the family the header's config sweeps.
void check_jsonl_record(const ordered_json& record, const std::string& family, const std::string& where) {
  if (std::string problem = record_problem(record); !problem.empty())
    throw ResultsFileError(fmt::format("{}: ${}", where, problem));
  if (!family.empty() && record.contains("family") && record["family"] != family)
    throw ResultsFileError(fmt::format("{}: a record of family '{}' in the log of a sweep of family '{}': expected one sweep's "
                                       "records (was another run's log appended to it?)",
                                       where, record["family"].get<std::string>(), family));
}

}  // namespace

JsonlContents read_jsonl(const std::string& path) {
  std::string why;
  std::optional<std::string> text = read_file(path, &why);
  if (!text) throw ResultsFileError(fmt::format("{}: the file {}; expected {}", display_path(path), why, kJsonlExpected));
  std::vector<std::string> lines;
  for (std::size_t begin = 0; begin < text->size();) {
    std::size_t end = std::min(text->find('\n', begin), text->size());
    lines.push_back(text->substr(begin, end - begin));
    begin = end + 1;
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t\r") == std::string::npos) lines.pop_back();
  JsonlContents contents;
  bool header_seen = false;
  std::string family;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = fmt::format("{}: line {}", path, i + 1);
    ordered_json value;
    try {
      value = parse_json(lines[i], where);
    } catch (const BadInput& e) {
      if (i + 1 == lines.size() && header_seen) break;  // the last line was cut off when the run was killed
      throw ResultsFileError(fmt::format("{}; expected {} (only its last line may be cut off)", e.what(), kJsonlExpected));
    }
    if (!header_seen) {
      check_jsonl_header(value, where);
      contents.header = std::move(value);
      family = header_family(contents.header);
      header_seen = true;
      continue;
    }
    if (value.is_object() && value.contains("occbench_jsonl"))
      throw ResultsFileError(fmt::format("{}: a second header: expected one run's log (were two .jsonl files joined? merge them with "
                                         "`occbench merge` instead)", where));
    check_jsonl_record(value, family, where);
    contents.results.push_back(std::move(value));
  }
  if (!header_seen) throw ResultsFileError(fmt::format("{}: empty; expected {}", path, kJsonlExpected));
  return contents;
}

std::string pairs_text(const ordered_json& values, const char* separator) {
  std::string text;
  if (values.is_object())
    for (const auto& item : values.items())  // a string as in point ids: float_type=double
      text += fmt::format("{}{}={}", text.empty() ? "" : separator, item.key(), value_text(item.value()));
  return text;
}

std::string params_text(const ordered_json& r) { return r.contains("params") ? pairs_text(r["params"]) : ""; }

namespace {
// ", 23.1 mJ/launch at 466 W" for a point with energy (", at the power limit" where it was read
// there), else "".
std::string energy_progress(const ordered_json& r) {
  if (!r.contains("energy")) return "";
  if (text_at(r, "energy", "status") != "ok") return ", energy unavailable";
  return fmt::format(", {:.4g} mJ/launch at {:.0f} W{}", 1e3 * number_at(r, "energy", "joules_per_launch"), number_at(r, "energy", "average_w"),
                     r["energy"].value("at_power_limit", false) ? ", at the power limit" : "");
}
}  // namespace

std::string format_progress(const ordered_json& r, std::size_t done, std::size_t total) {
  std::string head = fmt::format("[{}/{}] {}/{} {}", done, total, r.value("family", ""), r.value("variant", ""), params_text(r));
  std::string status = r.value("status", "");
  if (status != "ok") return fmt::format("{}: {} {}", head, status, r.value("reason", ""));
  std::string occupancy = r.contains("occupancy") && r["occupancy"].is_object()
                              ? fmt::format(", occupancy {:.2f} ({})", number_at(r, "occupancy", "theoretical"),
                                            r["occupancy"].value("limiter", ""))
                              : "";
  return fmt::format("{}: {} ±{:.1f}% ({} samples), {} GB/s{}, verified{}", head, format_duration_ms(number_at(r, "timing", "median_ms")),
                     100 * number_at(r, "timing", "noise", 0), int(number_at(r, "timing", "samples", 0)),
                     format_number(number_at(r, "metrics", "achieved_bandwidth_gbps"), "{:.0f}"), occupancy, energy_progress(r));
}

namespace {
// Marks after a median the timing flags explain under the table: "!floor" within 5x of the
// timing floor, "!clocks" measured while throttled or below the start clock.
std::string timing_marks(const ordered_json& r) {
  if (!r.contains("timing") || !r["timing"].is_object()) return "";
  const auto& t = r["timing"];
  std::string marks;
  if (t.value("near_timing_floor", false)) marks += " !floor";
  if (t.contains("conditions") && t["conditions"].is_object() && t["conditions"].contains("flags") &&
      t["conditions"]["flags"].is_array() && !t["conditions"]["flags"].empty())
    marks += " !clocks";
  return marks;
}
}  // namespace

std::string format_table(const std::vector<ordered_json>& results) {
  struct Row {
    std::string cells[11];
  };
  std::vector<Row> rows;
  rows.push_back({{"variant", "params", "status", "median", "noise", "GB/s", "% copy", "GFLOP/s", "occupancy", "limiter", "speedup"}});
  for (const auto& r : results) {
    Row row;
    row.cells[0] = r.value("variant", "");
    row.cells[1] = params_text(r);
    row.cells[2] = r.value("status", "");
    row.cells[3] = format_duration_ms(number_at(r, "timing", "median_ms")) + timing_marks(r);
    row.cells[4] = format_number(100 * number_at(r, "timing", "noise"), "{:.1f}%");
    row.cells[5] = format_number(number_at(r, "metrics", "achieved_bandwidth_gbps"), "{:.0f}");
    row.cells[6] = format_number(number_at(r, "metrics", "pct_of_measured_bandwidth"), "{:.1f}");
    row.cells[7] = format_number(number_at(r, "metrics", "gflops"), "{:.1f}");
    row.cells[8] = format_number(number_at(r, "occupancy", "theoretical"), "{:.3f}");
    row.cells[9] = r.contains("occupancy") && r["occupancy"].is_object() ? r["occupancy"].value("limiter", "") : "-";
    row.cells[10] = format_number(number_at(r, "metrics", "speedup_vs_baseline"), "{:.3g}x");
    rows.push_back(row);
  }
  std::size_t width[11] = {};
  for (const auto& row : rows)
    for (int i = 0; i < 11; ++i) width[i] = std::max(width[i], row.cells[i].size());
  std::string text;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    for (int i = 0; i < 11; ++i) {
      bool numeric = i >= 3 && i != 9;
      text += numeric ? fmt::format("{:>{}}", rows[k].cells[i], width[i]) : fmt::format("{:<{}}", rows[k].cells[i], width[i]);
      text += i < 10 ? "  " : "\n";
    }
    if (k == 0) {
      std::size_t total = 0;
      for (auto w : width) total += w + 2;
      text += std::string(total - 2, '-') + "\n";
    }
  }
  return text;
}

std::string output_stem(const std::string& out_dir, const std::string& sweep_name, const std::string& device_name,
                        const std::string& utc_compact) {
  std::string device;
  for (char c : device_name) {
    bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_';
    if (keep) device += c;
    else if (!device.empty() && device.back() != '-') device += '-';
  }
  while (!device.empty() && device.back() == '-') device.pop_back();
  return (std::filesystem::path(out_dir) / fmt::format("{}-{}-{}", sweep_name, device.empty() ? "gpu" : device, utc_compact)).string();
}

namespace {
std::string utc_format(const char* format) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, format, &tm);
  return buffer;
}
}  // namespace

std::string utc_now_iso() { return utc_format("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_now_compact() { return utc_format("%Y%m%dT%H%M%SZ"); }

}  // namespace occbench
