#pragma once
// Result files and tables. Knows the result record's shape, nothing of CUDA.
#include "harness/core/files.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace occbench {

using ordered_json = nlohmann::ordered_json;

inline constexpr int kSchemaVersion = 1;

// What each numeric field is measured in, written into every result file.
ordered_json units_block();

ordered_json tool_block();  // name, version, git commit of this build

// The whole run record: schema_version, tool, run, device, config, units, results.
ordered_json make_document(const ordered_json& run, const ordered_json& device, const ordered_json& config,
                           const std::vector<ordered_json>& results);

// Flattens a record with '_' between keys: timing.median_ms -> timing_median_ms; arrays of three
// (grid, block) become _x, _y, _z; other arrays join with ';'.
std::vector<std::pair<std::string, std::string>> flatten(const ordered_json& record);

// One CSV row per result; the columns are the union of all records' flattened keys, in first-seen order.
std::string to_csv(const std::vector<ordered_json>& results);
// Parses what to_csv writes (RFC 4180 quoting) back into header + rows of strings.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

ordered_json read_json_file(const std::string& path);                    // throws naming path, line, column

// Appends one JSON object a line and flushes, so a killed run keeps every finished point.
class JsonlWriter {
 public:
  JsonlWriter(const std::string& path, bool append);
  void write(const ordered_json& line);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ofstream out_;
};

// The version in the first line of a .jsonl ({"occbench_jsonl": 1, ...}).
inline constexpr int kJsonlVersion = 1;

struct JsonlContents {
  ordered_json header;                // first line: tool, device, config, config_source
  std::vector<ordered_json> results;  // one per finished point
};
// Reads one run's .jsonl: a header of version kJsonlVersion, then records of one sweep (one
// family, readable by record_problem). A torn last line (killed mid-write) is ignored; anything
// else (a torn line before the last, no header, a second header, another family's record) throws
// ResultsFileError naming the file and the line.
JsonlContents read_jsonl(const std::string& path);
// Its records by point id: what run --resume keeps instead of measuring again.
std::map<std::string, ordered_json> records_by_point(const JsonlContents& contents);

// An object's pairs as text, "n=1024 block_size=256".
std::string pairs_text(const ordered_json& values, const char* separator = " ");
// A record's params as "n=1024 block_size=256".
std::string params_text(const ordered_json& record);

// Console table of the results (fmt), one row per point.
std::string format_table(const std::vector<ordered_json>& results);
// One progress line for a finished point.
std::string format_progress(const ordered_json& result, std::size_t done, std::size_t total);

// "results/<name>-<device>-<YYYYmmddTHHMMSSZ>" without the extension.
std::string output_stem(const std::string& out_dir, const std::string& sweep_name, const std::string& device_name,
                        const std::string& utc_compact);
std::string utc_now_iso();      // 2026-11-22T18:30:00Z
std::string utc_now_compact();  // 20261122T183000Z

}  // namespace occbench
