#pragma once
// The fuzz target's parts: a session (its scratch folder, its target, the tally of outcomes), the
// commands each target runs an input through with the promise they are held to, and the
// structure-aware mutator.
#include <map>
#include <string>
#include <vector>

namespace occbench::fuzz {

// The entry points, one a target (OCCBENCH_FUZZ_TARGET):
//   config       the input is a sweep config: validate, run --dry-run, plan
//   expression   the input is one expression of a user kernel's config: a restriction, a launch,
//                a count, a scalar or a kernel name (its first byte picks which)
//   flags        the input is a command line's flags, one a line, after a command its first byte picks
//   npy          the input is a .npy file a user kernel's config reads
//   results      the input is a results document: report, compare, best, replay, merge
//   jsonl        the input is a run's .jsonl: run --resume --dry-run, best, replay, merge
const std::vector<std::string>& target_names();

// One command's outcome: its exit code and what it printed.
struct Outcome {
  int code = 0;
  std::string out, err;
};

class Session {
 public:
  static void start();  // reads OCCBENCH_FUZZ_TARGET, makes the scratch folder
  static Session& get();
  const std::string& target() const { return target_; }
  void run_one(const std::string& input);

 private:
  std::string target_, dir_;  // dir_: the scratch folder, the current directory while a command runs
  std::string input_;         // the input being tried
  std::map<std::string, std::map<int, long>> tally_;  // command -> exit code -> count
  std::map<std::string, double> slowest_s_;           // command -> its longest run, seconds
  long inputs_ = 0;

  // Runs `occbench ARGS` in-process; checks the promise for this command (exit code among
  // `allowed`, an exit 2's message, no input file changed).
  Outcome command(const std::string& name, std::vector<std::string> args, const std::vector<int>& allowed,
                  const std::vector<std::string>& inputs);
  void config_target(const std::string& input);
  void expression_target(const std::string& input);
  void flags_target(const std::string& input);
  void npy_target(const std::string& input);
  void results_target(const std::string& input);
  void jsonl_target(const std::string& input);
  void check_config(const std::string& path, bool plan);
  void print_tally() const;
  friend void print_tally_at_exit();
};

// The lines of `text`, without their newlines (a last line without one too).
std::vector<std::string> lines_of(const std::string& text);

// Writes `text` to `path` (in the scratch folder).
void write_file(const std::string& path, const std::string& text);

// A structural mutation of a JSON (or .jsonl) input of `target`; false where it has none to make
// (not JSON, or the dice chose a byte-level one).
bool mutate_structure(const std::string& target, const std::string& input, unsigned seed, std::string& mutated);

}  // namespace occbench::fuzz
