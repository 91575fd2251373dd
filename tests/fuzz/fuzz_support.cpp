#include "tests/fuzz/fuzz_support.hpp"
#include "tests/data_dir.hpp"

#include "harness/cli/cli.hpp"
#include "harness/core/bad_input.hpp"
#include "harness/records/launch_choice.hpp"
#include "kernels/families.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

namespace occbench::fuzz {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

std::unique_ptr<Session> g_session;
int g_report_fd = 2;  // the real standard error, kept before commands' output is captured

// The user kernel every expression, flag and .npy input is tried in (examples/my_scale's shape).
const char* kKernelConfig = R"json({
  "name": "fuzz_kernel", "source": "my_scale.cu",
  "sizes": {"n": [4096, 65536]},
  "axes": {"block_size": [128, 256], "items": [1, 4]},
  "arguments": [
    {"name": "out", "role": "output", "type": "float32", "count": "n", "tolerance": {"rel": 1e-6}},
    {"name": "in", "role": "input", "type": "float32", "count": "n", "init": {"kind": "uniform", "min": -1, "max": 1}},
    {"name": "factor", "role": "scalar", "type": "float32", "value": "3"},
    {"name": "n", "role": "scalar", "type": "uint32", "value": "n"}
  ],
  "kernels": {"scale": {"kernel": "scale_kernel<{items}>", "grid": "ceil_div(n, block_size * items)", "block": "block_size"}},
  "reference": {"variant": "scale", "params": {"block_size": 256, "items": 1}},
  "work": {"flops": "n", "global_bytes": "8 * n", "dram_bytes": "8 * n"}
})json";

// Words that only a library says: an exit 2 that shows them (and not because the input holds
// them) names no file and no field.
const char* const kLibraryWords[] = {"[json.exception", "basic_filebuf::", "basic_string::", "std::", "stoull", "stoi", "bad_alloc",
                                     "vector::_M", "terminate called", "what():", "regex_error"};

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

[[noreturn]] void broken(const std::string& what) {
  std::string text = fmt::format("\nocc-fuzz: a promise broke: {}\n", what);
  if (::write(g_report_fd, text.data(), text.size()) < 0) std::perror("write");
  std::abort();
}

// Runs cli_main with standard output and error captured in files of the scratch folder.
Outcome capture(const std::vector<std::string>& args) {
  std::vector<std::string> argv_text = {"occbench"};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush(), std::cerr.flush(), std::fflush(stdout), std::fflush(stderr);
  int files[2] = {::open(".stdout", O_CREAT | O_TRUNC | O_RDWR, 0644), ::open(".stderr", O_CREAT | O_TRUNC | O_RDWR, 0644)};
  int saved[2] = {::dup(1), ::dup(2)};
  ::dup2(files[0], 1), ::dup2(files[1], 2);
  Outcome o;
  try {
    o.code = occbench::cli_main(int(argv_text.size()), argv.data(), occbench::builtin_registry());
  } catch (const std::exception& e) {
    o.code = -1, o.err = fmt::format("an exception escaped cli_main: {}", e.what());
  }
  std::cout.flush(), std::cerr.flush(), std::fflush(stdout), std::fflush(stderr);
  for (int fd : {1, 2}) {
    if (saved[fd - 1] >= 0) ::dup2(saved[fd - 1], fd), ::close(saved[fd - 1]);
    else ::close(fd);  // libFuzzer's -close_fd_mask had closed it
    ::close(files[fd - 1]);
  }
  std::cin.clear();
  o.out = read_whole(".stdout");
  o.err += read_whole(".stderr");
  return o;
}

// Why an exit-2 message breaks the promise, or "": it must say something, name what it refused
// (one of the command's files, or a flag), in occbench's words.
std::string refusal_problem(const Outcome& o, std::vector<std::string> inputs, const std::vector<std::string>& args,
                            const std::string& input) {
  for (const auto& arg : args)  // a file or value the command line named (a fuzzed one too)
    inputs.push_back(arg.empty() ? "''" : arg);
  if (o.err.empty()) return "exit 2 with nothing on standard error";
  auto given = [&](const char* words) {  // the input (or an argument made of it) holds the words itself
    return input.find(words) != std::string::npos ||
           std::any_of(args.begin(), args.end(), [&](const std::string& a) { return a.find(words) != std::string::npos; });
  };
  for (const char* words : kLibraryWords)
    if (o.err.find(words) != std::string::npos && !given(words)) return fmt::format("exit 2 in a library's words ('{}')", words);
  bool names_input = std::any_of(inputs.begin(), inputs.end(), [&](const std::string& p) { return o.err.find(p) != std::string::npos; });
  bool names_flag = o.err.find("--") != std::string::npos || o.err.find("environment") != std::string::npos;
  if (!names_input && !names_flag) return "exit 2 naming neither the input file nor a flag";
  return "";
}

// A token of the flags target: one argument, kept inside the scratch folder (no '/').
std::string confined(std::string arg) {
  std::replace(arg.begin(), arg.end(), '/', '_');
  arg.erase(std::remove(arg.begin(), arg.end(), '\0'), arg.end());
  return arg;
}


}  // namespace

void print_tally_at_exit() {
  if (g_session) g_session->print_tally();
}

const std::vector<std::string>& target_names() {
  static const std::vector<std::string> names{"config", "expression", "flags", "npy", "results", "jsonl"};
  return names;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  for (char c : text) {
    if (c == '\n') lines.push_back(line), line.clear();
    else line += c;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

void Session::start() {
  if (g_session) return;
  g_session = std::make_unique<Session>();
  Session& s = *g_session;
  const char* target = std::getenv("OCCBENCH_FUZZ_TARGET");
  s.target_ = target && *target ? target : "config";
  if (std::find(target_names().begin(), target_names().end(), s.target_) == target_names().end())
    broken(fmt::format("OCCBENCH_FUZZ_TARGET={}: expected one of {}", s.target_, fmt::join(target_names(), ", ")));
  g_report_fd = ::dup(2);
  std::string pattern = (fs::temp_directory_path() / "occbench-fuzz-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) broken("cannot make a scratch folder");
  s.dir_ = pattern;
  // Every example's sources side by side, so that a config naming any of them finds it.
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(OCCBENCH_SOURCE_DIR) / "examples"))
    if (entry.is_regular_file() && (entry.path().extension() == ".cu" || entry.path().extension() == ".cuh"))
      fs::copy_file(entry.path(), fs::path(s.dir_) / entry.path().filename(), fs::copy_options::overwrite_existing);
  fs::path reference = fs::path(OCCBENCH_SOURCE_DIR) / "results" / "reference" / "h100";
  fs::copy_file(reference / "adjacent_difference.json", fs::path(s.dir_) / "base.json");
  fs::copy_file(reference / "adjacent_difference.jsonl", fs::path(s.dir_) / "base.jsonl");
  fs::copy_file(fs::path(OCCBENCH_SOURCE_DIR) / "configs" / "adjacent_difference.json", fs::path(s.dir_) / "ad.json");
  write_file(s.dir_ + "/kernel.json", kKernelConfig);
  fs::current_path(s.dir_);
  std::atexit(print_tally_at_exit);
}

Session& Session::get() {
  start();
  return *g_session;
}

void Session::run_one(const std::string& input) {
  ++inputs_;
  input_ = input;
  if (target_ == "config") config_target(input);
  else if (target_ == "expression") expression_target(input);
  else if (target_ == "flags") flags_target(input);
  else if (target_ == "npy") npy_target(input);
  else if (target_ == "results") results_target(input);
  else jsonl_target(input);
  std::error_code error;
  fs::remove_all("out", error);  // what plan, merge and best wrote: the next input starts clean
}

Outcome Session::command(const std::string& name, std::vector<std::string> args, const std::vector<int>& allowed,
                         const std::vector<std::string>& inputs) {
  std::vector<std::string> before;
  for (const auto& path : inputs) before.push_back(read_whole(path));
  auto start = std::chrono::steady_clock::now();
  Outcome o = capture(args);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  slowest_s_[name] = std::max(slowest_s_[name], seconds);
  ++tally_[name][o.code];
  std::string what = fmt::format("{} (occbench {}): exit {}\n--- stderr ---\n{}", target_, fmt::join(args, " "), o.code,
                                 o.err.substr(0, 4000));
  if (std::find(allowed.begin(), allowed.end(), o.code) == allowed.end())
    broken(fmt::format("exit {} where {} was expected: {}", o.code, fmt::join(allowed, " or "), what));
  if (o.code == 2)
    if (std::string problem = refusal_problem(o, inputs, args, input_); !problem.empty()) broken(problem + ": " + what);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (read_whole(inputs[i]) != before[i]) broken(fmt::format("the input {} was changed: {}", inputs[i], what));
  return o;
}

// validate, run --dry-run and (for a built-in family's config) plan must agree on a config.
void Session::check_config(const std::string& path, bool plan) {
  Outcome validated = command("validate", {"validate", path}, {0, 2}, {path});
  Outcome listed = command("run --dry-run", {"run", path, "--dry-run"}, {0, 2}, {path});
  if ((validated.code == 0) != (listed.code == 0))
    broken(fmt::format("validate exit {} but run --dry-run exit {} on {}:\n{}{}", validated.code, listed.code, path, validated.err,
                       listed.err));
  if (!plan || validated.code != 0) return;
  // 1: a point could not be planned. 2 only where the config locks the SM clock: which clocks a GPU
  // supports only plan knows (its GPU table), so a clock the H100 lacks passes validate and is refused by plan.
  std::vector<int> allowed = {0, 1};
  if (read_whole(path).find("sm_clock_mhz") != std::string::npos) allowed.push_back(2);
  command("plan", {"plan", path, "--gpu", "h100", "--out", "out"}, allowed, {path});
}

void Session::config_target(const std::string& input) {
  write_file("input.json", input);
  // A user kernel's plan compiles it with NVRTC (a second or so): planned only for built-in families.
  check_config("input.json", input.find("\"source\"") == std::string::npos);
}

void Session::expression_target(const std::string& input) {
  if (input.empty()) return;
  std::string text = input.substr(1);
  json doc = json::parse(kKernelConfig);
  switch (static_cast<unsigned char>(input[0]) % 7) {
    case 0: doc["restrictions"] = json::array({text}); break;
    case 1: doc["kernels"]["scale"]["grid"] = text; break;
    case 2: doc["arguments"][1]["count"] = text; break;
    case 3: doc["arguments"][3]["value"] = text; break;
    case 4: doc["kernels"]["scale"]["kernel"] = text; break;
    case 5: doc["kernels"]["scale"]["dynamic_smem_bytes"] = text; break;
    default: doc["work"]["flops"] = text; break;
  }
  write_file("input.json", doc.dump(2, ' ', false, json::error_handler_t::replace));
  check_config("input.json", false);
}

void Session::flags_target(const std::string& input) {
  if (input.empty()) return;
  std::vector<std::string> flags;
  for (const auto& line : lines_of(input.substr(1))) flags.push_back(confined(line));
  static const std::vector<std::pair<std::vector<std::string>, std::vector<int>>> kCommands = {
      {{"run", "ad.json", "--dry-run"}, {0, 2, 3}}, {{"plan", "ad.json", "--gpu", "h100", "--out", "out"}, {0, 1, 2}},
      {{"compare", "base.json", "base.json"}, {0, 1, 2}}, {{"report", "base.json"}, {0, 2}},
      {{"best", "base.json"}, {0, 2}}, {{"validate", "ad.json"}, {0, 2}},
      {{"run", "kernel.json", "--dry-run"}, {0, 2, 3}}, {{"merge", "out.json", "base.jsonl"}, {0, 2}},
      {{"replay", "base.json", "--seeds", "2"}, {0, 2}}, {{"run", "ad.json", "--dry-run", "--strategy", "local"}, {0, 2, 3}}};
  const auto& [head, allowed] = kCommands[static_cast<unsigned char>(input[0]) % kCommands.size()];
  std::vector<std::string> args = head;
  args.insert(args.end(), flags.begin(), flags.end());
  command(head[0] + " FLAGS", args, allowed, {"ad.json", "base.json", "base.jsonl", "kernel.json"});
  std::error_code error;
  for (const char* written : {"out.json", "out.csv", "out.h", "results"}) fs::remove_all(written, error);
}

void Session::npy_target(const std::string& input) {
  write_file("values.npy", input);
  json doc = json::parse(kKernelConfig);
  doc["arguments"][1]["init"] = {{"kind", "npy"}, {"file", "values.npy"}};
  doc["sizes"]["n"] = json::array({16});
  write_file("npy.json", doc.dump(2));
  Outcome validated = command("validate", {"validate", "npy.json"}, {0, 2}, {"npy.json", "values.npy"});
  if (validated.code == 2 && validated.err.find("values.npy") == std::string::npos)
    broken("a refused .npy input not named: " + validated.err);
  command("run --dry-run", {"run", "npy.json", "--dry-run"}, {validated.code}, {"npy.json", "values.npy"});
}

void Session::results_target(const std::string& input) {
  write_file("input.json", input);
  const std::vector<std::string> in = {"input.json", "base.json"};
  Outcome reported = command("report", {"report", "input.json"}, {0, 2}, in);
  command("report --format csv", {"report", "input.json", "--format", "csv"}, {reported.code}, in);
  command("report --format json", {"report", "input.json", "--format", "json"}, {reported.code}, in);
  command("report --out (itself)", {"report", "input.json", "--out", "input.json"}, {2}, in);
  command("compare", {"compare", "base.json", "input.json"}, {0, 2}, in);
  command("compare (itself)", {"compare", "input.json", "input.json"}, {0, 2}, in);
  command("best", {"best", "input.json", "--out", "out/best"}, {0, 2}, in);
  command("replay", {"replay", "input.json", "--seeds", "1", "--budgets", "10", "--strategy", "local"}, {0, 2}, in);
  command("merge", {"merge", "out/merged.json", "input.json"}, {0, 2}, in);
  // The same bytes as a Kernel Launcher wisdom file, which occbench::launch reads: taken, or refused
  // as bad input naming the file, never otherwise.
  write_file("input.wisdom", input);
  try {
    (void)read_launch_results("input.wisdom");
  } catch (const BadInput& refused) {
    if (std::string(refused.what()).find("input.wisdom") == std::string::npos) broken(std::string("a wisdom file refused unnamed: ") + refused.what());
  }
}

void Session::jsonl_target(const std::string& input) {
  write_file("input.jsonl", input);
  const std::vector<std::string> in = {"input.jsonl"};
  command("run --resume --dry-run", {"run", "--resume", "input.jsonl", "--dry-run"}, {0, 2}, in);
  Outcome best = command("best", {"best", "input.jsonl"}, {0, 2}, in);
  command("replay", {"replay", "input.jsonl", "--seeds", "1", "--budgets", "10", "--strategy", "local"}, {0, 2}, in);
  Outcome merged = command("merge", {"merge", "out/merged.json", "input.jsonl"}, {0, 2}, in);
  // One reader reads the log for all three: what one refuses as a file, the others refuse too.
  if (merged.code == 2 && best.code != 2) broken("merge refused the .jsonl but best read it:\n" + merged.err);
}

void Session::print_tally() const {
  std::string text = fmt::format("occ-fuzz: target {}: {} input(s)\n", target_, inputs_);
  json tally = json::object();
  for (const auto& [name, codes] : tally_) {
    std::vector<std::string> parts;
    for (const auto& [code, count] : codes) {
      parts.push_back(fmt::format("exit {} x{}", code, count));
      tally[name][std::to_string(code)] = count;
    }
    text += fmt::format("  {}: {}; slowest {:.2f} s\n", name, fmt::join(parts, ", "), slowest_s_.at(name));
    tally[name]["slowest_s"] = slowest_s_.at(name);
  }
  if (::write(g_report_fd, text.data(), text.size()) < 0) std::perror("write");
  if (const char* path = std::getenv("OCCBENCH_FUZZ_TALLY"); path && *path)
    write_file(path, json{{"target", target_}, {"inputs", inputs_}, {"commands", tally}}.dump(2) + "\n");
  std::error_code error;
  fs::remove_all(dir_, error);
}

}  // namespace occbench::fuzz
