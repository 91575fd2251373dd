#include "harness/records/kernel_launcher_wisdom.hpp"

#include "harness/core/files.hpp"
#include "harness/records/report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

namespace occbench {

namespace {

using json = nlohmann::ordered_json;

struct Header {
  std::string key, objective;
  std::vector<std::string> parameters;
};

Header read_header(const std::string& path, const std::string& line) {
  json header = json::parse(line, nullptr, false);
  auto refuse = [&](const std::string& expected) { return ResultsFileError(path, "line 1", expected); };
  if (!header.is_object() || header.value("version", json()) != "1.0") throw refuse("expected a wisdom header of version \"1.0\"");
  if (!header.contains("key") || !header["key"].is_string()) throw refuse("expected the kernel's \"key\" (a string)");
  if (header.value("objective", json()) != "time")
    throw refuse("expected the objective \"time\" (another objective does not map to occbench's records)");
  if (!header.contains("tunable_parameters") || !header["tunable_parameters"].is_array()) throw refuse("expected \"tunable_parameters\" (a list)");
  Header out{header["key"].get<std::string>(), "time", {}};
  for (const auto& name : header["tunable_parameters"]) {
    if (!name.is_string()) throw refuse("expected each of \"tunable_parameters\" to be a name");
    out.parameters.push_back(name.get<std::string>());
  }
  return out;
}

// A result line as occbench's record (nullopt where it does not map: a value not a whole number,
// no time), and its device's name.
std::optional<std::pair<std::string, json>> read_line(const Header& header, const std::string& line) {
  json row = json::parse(line, nullptr, false);
  if (!row.is_object() || !row.contains("config") || !row["config"].is_array() || row["config"].size() != header.parameters.size()) return std::nullopt;
  if (!row.contains("time") || !row["time"].is_number()) return std::nullopt;
  json params = json::object();
  const json problem = row.contains("problem_size") && row["problem_size"].is_array() ? row["problem_size"] : json::array();
  for (std::size_t d = 0; d < 3; ++d) {
    const char* axis = d == 0 ? "x" : d == 1 ? "y" : "z";
    params[axis] = d < problem.size() && problem[d].is_number_integer() ? problem[d].get<std::int64_t>() : 1;
  }
  std::string id = fmt::format("wisdom/{}/x={}/y={}/z={}", header.key, params["x"].dump(), params["y"].dump(), params["z"].dump());
  for (std::size_t i = 0; i < header.parameters.size(); ++i) {
    if (!row["config"][i].is_number_integer()) return std::nullopt;
    params[header.parameters[i]] = row["config"][i];
    id += fmt::format("/{}={}", header.parameters[i], row["config"][i].dump());
  }
  const json environment = row.contains("environment") && row["environment"].is_object() ? row["environment"] : json::object();
  const json name = environment.value("device_name", json());
  std::string device = name.is_string() ? name.get<std::string>() : "";
  json record = {{"point_id", id}, {"family", "wisdom"}, {"variant", header.key}, {"status", "ok"},
                 {"params", params}, {"timing", {{"median_ms", row["time"]}}}};
  return std::make_pair(device, record);
}

}  // namespace

bool is_kernel_launcher_wisdom(const std::string& path) {
  return path.size() > 7 && path.compare(path.size() - 7, 7, ".wisdom") == 0;
}

std::vector<ShardOutput> kernel_launcher_wisdom(const std::string& path) {
  std::string why;
  std::optional<std::string> text = read_file(path, &why);
  if (!text) throw ResultsFileError(path, "the file", "expected a readable wisdom file (" + why + ")");
  std::istringstream lines(*text);
  std::string line;
  if (!std::getline(lines, line)) throw ResultsFileError(path, "line 1", "expected a wisdom header");
  Header header = read_header(path, line);
  std::map<std::string, ShardOutput> by_device;
  while (std::getline(lines, line)) {
    auto read = line.empty() ? std::nullopt : read_line(header, line);
    if (!read) continue;  // what does not map is left out, as Kernel Launcher leaves out a line it cannot parse
    ShardOutput& out = by_device[read->first];
    if (out.path.empty()) {
      out.path = path;
      out.tool = {{"name", "kernel_launcher"}};
      out.config = {{"sizes", {{"x", json::array()}, {"y", json::array()}, {"z", json::array()}}}};
      out.devices.push_back({{"name", read->first}});
    }
    out.results.push_back(std::move(read->second));
  }
  std::vector<ShardOutput> out;
  for (auto& [device, output] : by_device) out.push_back(std::move(output));
  return out;
}

}  // namespace occbench
