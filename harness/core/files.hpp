#pragma once
// The one way the harness reads and writes a whole file.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

// The largest file occbench reads whole (a results document of a large sweep is tens of MB).
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t(4) << 30;

// The file's bytes, or nullopt where it cannot be read; then *why (if given) says why, as a verb
// phrase ("does not exist", "is a FIFO (named pipe), not a regular file"): missing, not a regular file (a folder, a FIFO or a device is never opened: it could block or never
// end), larger than kMaxInputFileBytes, or the system's reason. The caller names what it is.
std::optional<std::string> read_file(const std::string& path, std::string* why = nullptr);

// A path as a message shows it: '' for an empty one (else the message starts with ": ").
inline std::string display_path(const std::string& path) { return path.empty() ? "''" : path; }

// Where occbench's shipped files are (configs/, examples/, plots/): $OCCBENCH_DATA_DIR where set;
// beside an installed occbench, <prefix>/share/occbench; beside one built inside the source tree
// (build/occbench), the tree. "" where none holds a configs/ folder. Never the build machine's
// source path compiled in: an installed or moved occbench finds its own files, or none.
std::string data_dir();

// A config named on the command line: the file where it exists; else, for a bare name
// ("adjacent_difference" or "adjacent_difference.json"), the shipped config of that name in
// data_dir(); else the name as given (its reader then says it cannot be opened).
std::string shipped_config_path(const std::string& name);

// Writes `text` to `path`, replacing it and creating its folder; throws std::runtime_error naming the path.
void write_text_file(const std::string& path, const std::string& text);

// Why `path` cannot be an output file of a command that reads `inputs`, or "": it is one of the
// inputs (the same file by any name), a folder, has a name longer than the
// file system allows, or lies under something that is not a folder. Checked before any work, so
// nothing is measured or computed for an output that cannot be written, and no input is lost.
std::string output_file_problem(const std::string& path, const std::vector<std::string>& inputs = {});
// Throws BadInput "FLAG PATH: <problem>" where output_file_problem finds one.
void check_output_file(const std::string& flag, const std::string& path, const std::vector<std::string>& inputs = {});
// The same, and an existing file is replaced only where it is one of the command's own: its first
// 256 bytes hold `own_marker` ("\"occbench_best\"": best --out never replaced a user's run.json).
void check_output_file_ours(const std::string& flag, const std::string& path, const std::vector<std::string>& inputs,
                            const std::string& own_marker);
// The same for a folder the command writes its files into (created if missing).
void check_output_folder(const std::string& flag, const std::string& path);

}  // namespace occbench
