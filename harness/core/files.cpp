#include "harness/core/files.hpp"

#include <fmt/format.h>

#include "harness/core/bad_input.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <unistd.h>

namespace occbench {

namespace {

std::optional<std::string> refuse(std::string* why, std::string reason) {
  if (why) *why = std::move(reason);
  return std::nullopt;
}

const char* file_kind(const std::filesystem::file_status& status) {
  switch (status.type()) {
    case std::filesystem::file_type::directory: return "a folder";
    case std::filesystem::file_type::fifo: return "a FIFO (named pipe)";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

}  // namespace

std::optional<std::string> read_file(const std::string& path, std::string* why) {
  namespace fs = std::filesystem;
  if (path.empty()) return refuse(why, "has an empty name");
  std::error_code error;
  fs::file_status status = fs::status(path, error);  // follows links: the file they name is what is read
  if (error && error != std::errc::no_such_file_or_directory)
    return refuse(why, fmt::format("cannot be examined ({})", error.message()));
  if (!fs::exists(status)) return refuse(why, "does not exist");
  if (!fs::is_regular_file(status)) return refuse(why, fmt::format("is {}, not a regular file", file_kind(status)));
  std::uintmax_t size = fs::file_size(path, error);
  if (!error && size > kMaxInputFileBytes)
    return refuse(why, fmt::format("is {} bytes, more than the {} bytes occbench reads", size, kMaxInputFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) return refuse(why, fmt::format("cannot be opened for reading ({})", std::strerror(errno)));
  std::string text;
  try {
    text.assign(std::istreambuf_iterator<char>(in), {});
  } catch (const std::exception&) {  // a read that fails mid-way (/proc/self/mem): the C++ library throws
    return refuse(why, fmt::format("cannot be read ({})", std::strerror(errno ? errno : EIO)));
  }
  if (in.bad()) return refuse(why, fmt::format("cannot be read ({})", std::strerror(errno)));
  return text;
}

namespace {

bool holds_configs(const std::filesystem::path& dir) {
  std::error_code error;
  return !dir.empty() && std::filesystem::is_directory(dir / "configs", error);
}

}  // namespace

std::string data_dir() {
  namespace fs = std::filesystem;
  if (const char* dir = std::getenv("OCCBENCH_DATA_DIR"); dir && *dir) return dir;
  std::error_code error;
  fs::path exe = fs::canonical("/proc/self/exe", error);
  if (error) return "";
  fs::path bin = exe.parent_path();
  for (const fs::path& candidate : {bin.parent_path() / "share" / "occbench", bin.parent_path(), bin.parent_path().parent_path()})
    if (holds_configs(candidate)) return candidate.lexically_normal().string();
  return "";
}

std::string shipped_config_path(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(name, error) || name.find('/') != std::string::npos) return name;
  std::string dir = data_dir();
  if (dir.empty()) return name;
  for (const std::string& file : {name, name + ".json"})
    if (fs::path path = fs::path(dir) / "configs" / file; fs::is_regular_file(path, error)) return path.string();
  return name;
}

void write_text_file(const std::string& path, const std::string& text) {
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot open for writing", path));
  out << text;
  if (!out.flush()) throw std::runtime_error(fmt::format("{}: write failed", path));
}

namespace {

// Why `path` is too long a name for the file system, or "".
std::string name_problem(const std::filesystem::path& path) {
  std::string text = path.string();
  if (text.size() >= PATH_MAX) return fmt::format("the path is {} bytes; paths are at most {}", text.size(), PATH_MAX - 1);
  for (const std::filesystem::path& part : path)
    if (part.string().size() > NAME_MAX)
      return fmt::format("the name '{}...' is {} bytes; a file or folder name is at most {}", part.string().substr(0, 40),
                         part.string().size(), NAME_MAX);
  return "";
}

// Why the folder `path` could not be written into or made, or "": the nearest part of it that
// exists must be a folder this process may write into.
std::string folder_problem(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  if (std::string problem = name_problem(path); !problem.empty()) return problem;
  fs::path existing = path.empty() ? fs::path(".") : path;
  std::error_code error;
  while (!fs::exists(existing, error) && existing.has_parent_path() && existing != existing.parent_path())
    existing = existing.parent_path();
  if (!fs::exists(existing, error)) existing = ".";
  if (!fs::is_directory(existing, error)) return fmt::format("{} is not a folder", existing.string());
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    return fmt::format("the folder {} cannot be written ({})", existing.string(), std::strerror(errno));
  // Made now, as the command would make it: a folder that cannot be (under /proc) is said so here,
  // not as the library's "filesystem error" after the work is done.
  if (!path.empty() && !fs::exists(path, error) && !fs::create_directories(path, error) && error)
    return fmt::format("the folder {} cannot be made ({})", path.string(), error.message());
  return "";
}

}  // namespace

std::string output_file_problem(const std::string& path, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  if (path.empty()) return "expected a file name, got an empty one";
  std::error_code error;
  fs::file_status status = fs::status(path, error);
  if (fs::exists(status)) {
    // A folder cannot be written as a file; a device (/dev/null, a terminal) can, as the user asked.
    if (fs::is_directory(status)) return "it is a folder; expected a file to write";
    for (const std::string& input : inputs)
      if (fs::equivalent(path, input, error))
        return fmt::format("it is also an input of this command ({}); writing it would destroy that input: name another file",
                           input);
  }
  if (std::string problem = name_problem(path); !problem.empty()) return problem;
  return folder_problem(fs::path(path).parent_path());
}

void check_output_file(const std::string& flag, const std::string& path, const std::vector<std::string>& inputs) {
  if (std::string problem = output_file_problem(path, inputs); !problem.empty())
    throw BadInput(fmt::format("{} {}: {}", flag, path, problem));
}

void check_output_file_ours(const std::string& flag, const std::string& path, const std::vector<std::string>& inputs,
                            const std::string& own_marker) {
  check_output_file(flag, path, inputs);
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return;  // new, or a device the user named
  std::ifstream in(path, std::ios::binary);
  std::string head(256, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  if (head.find(own_marker) == std::string::npos)
    throw BadInput(fmt::format("{} {}: the file exists and was not written by this command; occbench never writes over a file "
                               "of yours: name another, or remove it",
                               flag, path));
}

void check_output_folder(const std::string& flag, const std::string& path) {
  if (std::string problem = folder_problem(path); !problem.empty()) throw BadInput(fmt::format("{} {}: {}", flag, path, problem));
}

}  // namespace occbench
