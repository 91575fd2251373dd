// occbench report: summarize results files as a markdown table, CSV or JSON (harness/records/report.hpp).
#include "harness/cli/cli.hpp"
#include "harness/cli/commands.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/records/report.hpp"
#include "harness/core/files.hpp"

#include <iostream>
#include <memory>

namespace occbench {

namespace {

// occbench report: read every file first, so one bad file stops it before anything is written.
int report_command(const std::vector<std::string>& paths, const std::string& format, const std::string& out_path) {
  if (!out_path.empty()) check_output_file("report --out", out_path, paths);
  std::vector<ResultsFile> files;
  for (const auto& path : paths) files.push_back(load_results_file(path));
  assign_labels(files);
  ReportFormat kind = format == "csv" ? ReportFormat::csv : format == "json" ? ReportFormat::json : ReportFormat::markdown;
  std::string text = render_report(files, kind);
  if (out_path.empty()) std::cout << text;
  else write_text_file(out_path, text);
  return kExitOk;
}

struct ReportFlags {
  std::vector<std::string> paths;
  std::string format = "md", out;
};

}  // namespace

Command add_report_command(CLI::App& app) {
  auto flags = std::make_shared<ReportFlags>();
  auto* report = app.add_subcommand("report", "Summarize results files: a markdown table, or CSV/JSON; several files side by side");
  report->add_option("results", flags->paths, "Results files (.json written by run)")->required();
  report->add_option("--format", flags->format, "md, csv or json")
      ->check(CLI::IsMember({"md", "csv", "json"}))->capture_default_str();
  report->add_option("--out", flags->out, "Write to this file instead of standard output");
  return {report, [flags](const std::vector<std::string>&) { return report_command(flags->paths, flags->format, flags->out); }};
}

}  // namespace occbench
