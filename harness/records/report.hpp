#pragma once
// Reading results files back and summarizing them for people: `occbench report` (a markdown
// table for a README or a pull request, or conversion to CSV/JSON; several files merge into one
// table keyed by point_id, one column group per file). Pure CPU code; knows the result record.
#include "harness/core/bad_input.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/core/format.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace occbench {

// A results file that cannot be used: the message names the file and what was expected.
class ResultsFileError : public BadInput {
 public:
  using BadInput::BadInput;
};

struct ResultsFile {
  std::string path;
  ordered_json document;  // schema_version, tool, run, device, config, units, results
  std::string label;      // column-group title in merged tables (device name, made unique)
};

// Reads and checks a results document written by `occbench run` (or `plan`): valid JSON, an
// object, schema_version == kSchemaVersion, a non-empty results array of objects each with a
// point_id (or family, variant and params to rebuild it). Throws ResultsFileError.
ResultsFile load_results_file(const std::string& path);
ResultsFile results_from_json(const ordered_json& document, const std::string& path);  // same checks

// Gives each file its column label: the device name without a leading "NVIDIA ", with the file
// name added where two files would otherwise share one.
void assign_labels(std::vector<ResultsFile>& files);


// The point_id of a record (its own, or rebuilt from family/variant/params).
std::string record_point_id(const ordered_json& record);

enum class ReportFormat { markdown, csv, json };

// One file: variant | params | median ± noise | GB/s | % copy | GFLOP/s | CGMA | occupancy
// (limiter) | speedup. Several: variant | params | CGMA, then per file median ± noise | GB/s |
// occupancy | speedup, rows keyed by point_id in first-seen order. Points that were not timed
// are listed under the table with their status and reason.
std::string report_markdown(const std::vector<ResultsFile>& files);
// Every record of every file, one row each, flattened as the run's own CSV, after two columns
// naming the source file and its device.
std::string report_csv(const std::vector<ResultsFile>& files);
// {"occbench_report": 1, "sources": [{file, label, device, tool, run, sweep}], "points": [{point_id,
// family, variant, params, results: [the record from each source, or null]}]}.
ordered_json report_json(const std::vector<ResultsFile>& files);

std::string render_report(const std::vector<ResultsFile>& files, ReportFormat format);

// Shared number formatting: "66.78 us", "1.234 ms", "2.500 s".

}  // namespace occbench
