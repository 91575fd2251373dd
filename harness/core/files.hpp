#pragma once
// The one way the harness reads and writes a whole file.
#include <optional>
#include <string>

namespace occbench {

// The file's bytes, or nullopt where it cannot be opened (the caller says why in its own terms:
// a config, a results file, a source).
std::optional<std::string> read_file(const std::string& path);

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

}  // namespace occbench
