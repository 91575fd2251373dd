#pragma once
// The one way the harness reads and writes a whole file.
#include <optional>
#include <string>

namespace occbench {

// The file's bytes, or nullopt where it cannot be opened (the caller says why in its own terms:
// a config, a results file, a source).
std::optional<std::string> read_file(const std::string& path);

// Writes `text` to `path`, replacing it and creating its folder; throws std::runtime_error naming the path.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace occbench
