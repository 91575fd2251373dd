#include "harness/model/kernel_resources.hpp"

#include <fmt/format.h>

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>

namespace occbench {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The text between the first pair of single quotes after `from`.
std::string quoted(std::string_view line, std::size_t from) {
  auto open = line.find('\'', from);
  if (open == std::string_view::npos) return "";
  auto close = line.find('\'', open + 1);
  if (close == std::string_view::npos) return "";
  return std::string(line.substr(open + 1, close - open - 1));
}

// "sm_90" -> 90, "sm_90a" -> 90, "sm_100" -> 100; 0 when it is not an sm_ name.
int arch_number(std::string_view arch_name) {
  if (!starts_with(arch_name, "sm_")) return 0;
  int value = 0;
  for (char c : arch_name.substr(3)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    value = value * 10 + (c - '0');
  }
  return value;
}

// The comma-separated parts of a ptxas summary line, each "<number> <what>" or "used <number> <what>".
// Calls set(what, number) for each.
template <typename Set>
void numbered_parts(std::string_view text, Set&& set) {
  std::size_t start = 0;
  while (start <= text.size()) {
    auto comma = text.find(',', start);
    std::string_view part = trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (starts_with(part, "used ")) part.remove_prefix(5);
    if (starts_with(part, "Used ")) part.remove_prefix(5);
    std::size_t digits = 0;
    while (digits < part.size() && std::isdigit(static_cast<unsigned char>(part[digits]))) ++digits;
    if (digits > 0) set(trim(part.substr(digits)), std::size_t(std::stoull(std::string(part.substr(0, digits)))));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
}

}  // namespace

KernelResources CompiledKernel::resources() const {
  KernelResources k;
  k.registers_per_thread = registers;
  k.static_smem_bytes = static_smem_bytes;
  k.local_bytes_per_thread = local_bytes_per_thread();
  return k;
}

std::string demangle_kernel_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !text) return mangled;
  std::string name = text.get();
  if (starts_with(name, "void ")) name.erase(0, 5);
  return name;
}

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Without spaces, and without the suffixes of integer literals ("k<32u>" -> "k<32>"): the
// demangler writes unsigned template arguments with a suffix, the host compiler (kernel_ref) not.
std::string canonical_kernel_name(std::string_view name) {
  std::string text = without_spaces(name), out;
  for (std::size_t i = 0; i < text.size();) {
    bool number_starts = std::isdigit(static_cast<unsigned char>(text[i])) && (i == 0 || !identifier_char(text[i - 1]));
    if (!number_starts) {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    std::size_t suffix_end = end;
    while (suffix_end < text.size() && std::strchr("uUlL", text[suffix_end])) ++suffix_end;
    out.append(text, i, end - i);
    i = suffix_end < text.size() && identifier_char(text[suffix_end]) ? end : suffix_end;
  }
  return out;
}

}  // namespace

bool kernel_name_matches(std::string_view demangled, std::string_view kernel_name) {
  std::string have = canonical_kernel_name(demangled), want = canonical_kernel_name(kernel_name);
  if (want.empty()) return false;
  if (have == want) return true;
  return have.size() > want.size() && starts_with(have, want) && have[want.size()] == '(';
}

KernelResourceTable KernelResourceTable::parse(std::string_view ptxas_text, const std::string& source) {
  return parse({{source, std::string(ptxas_text)}});
}

KernelResourceTable KernelResourceTable::parse(const std::vector<std::pair<std::string, std::string>>& logs) {
  KernelResourceTable table;
  std::set<std::pair<std::string, std::string>> seen;  // (mangled name, arch name)
  for (const auto& [source, text] : logs) {
    std::istringstream lines(text);
    std::string line;
    // The entry function being compiled (a pointer, not std::optional: GCC 12 warns of its move).
    std::unique_ptr<CompiledKernel> current;
    bool properties_of_current = false;     // the last "Function properties for" named it
    auto finish = [&] {
      if (current && seen.insert({current->mangled_name, current->arch_name}).second)
        table.kernels_.push_back(std::move(*current));
      current.reset();
      properties_of_current = false;
    };
    while (std::getline(lines, line)) {
      std::string_view l = trim(line);
      if (auto at = l.find("Compiling entry function"); at != std::string_view::npos) {
        finish();
        CompiledKernel k;
        k.mangled_name = quoted(l, at);
        auto for_at = l.find(" for ", at + 24 + k.mangled_name.size());
        k.arch_name = for_at == std::string_view::npos ? "" : quoted(l, for_at);
        k.arch = arch_number(k.arch_name);
        k.name = demangle_kernel_name(k.mangled_name);
        k.source = source;
        if (!k.mangled_name.empty() && k.arch > 0) current = std::make_unique<CompiledKernel>(std::move(k));
      } else if (auto props = l.find("Function properties for "); props != std::string_view::npos) {
        std::string_view name = trim(l.substr(props + 24));
        properties_of_current = current && name == current->mangled_name;
      } else if (l.find("bytes stack frame") != std::string_view::npos) {
        if (!properties_of_current) continue;
        // NVRTC's log prefixes the line ("ptxas         .     112 bytes stack frame, ..."); nvcc's does not.
        numbered_parts(l.substr(std::min(l.size(), l.find_first_of("0123456789"))), [&](std::string_view what, std::size_t n) {
          if (what == "bytes stack frame") current->stack_frame_bytes = n;
          else if (what == "bytes spill stores") current->spill_store_bytes = n;
          else if (what == "bytes spill loads") current->spill_load_bytes = n;
        });
      } else if (auto used = l.find(": Used "); used != std::string_view::npos) {
        if (!current) continue;
        numbered_parts(l.substr(used + 2), [&](std::string_view what, std::size_t n) {
          if (what == "registers") current->registers = int(n);
          else if (what == "barriers") current->barriers = int(n);
          else if (what == "bytes smem") current->static_smem_bytes = n;
          else if (what == "bytes lmem") current->lmem_bytes = n;
          else if (what == "bytes cumulative stack size") current->cumulative_stack_bytes = n;
          else if (what == "bytes cmem[0]") current->cmem0_bytes = n;
        });
        current->complete = true;
        finish();
      }
    }
    finish();
  }
  return table;
}

std::vector<int> KernelResourceTable::architectures() const {
  std::set<int> archs;
  for (const auto& k : kernels_) archs.insert(k.arch);
  return {archs.begin(), archs.end()};
}

std::vector<const CompiledKernel*> KernelResourceTable::find(std::string_view kernel_name, int arch) const {
  std::vector<const CompiledKernel*> found;
  for (const auto& k : kernels_)
    if (k.arch == arch && kernel_name_matches(k.name, kernel_name)) found.push_back(&k);
  return found;
}

const CompiledKernel& KernelResourceTable::lookup(std::string_view kernel_name, int arch) const {
  if (kernel_name.empty())
    throw KernelLookupError("the variant's LaunchSpec has a kernel but no kernel_name (its demangled name, e.g. "
                            "\"occbench::family::kernel<4>\"), so its compiled resources cannot be found");
  auto found = find(kernel_name, arch);
  if (found.size() == 1) return *found.front();
  if (found.size() > 1) {
    std::string names;
    for (const auto* k : found) names += fmt::format("\n  {} ({})", k->name, k->mangled_name);
    throw KernelLookupError(fmt::format("kernel_name '{}' matches {} kernels compiled for sm_{}; give the full demangled "
                                        "name with its parameter list:{}",
                                        kernel_name, found.size(), arch, names));
  }
  std::vector<int> other_archs;
  for (int a : architectures())
    if (a != arch && !find(kernel_name, a).empty()) other_archs.push_back(a);
  if (!other_archs.empty())
    throw KernelLookupError(fmt::format("kernel '{}' has no sm_{} machine code in this build (it has {})", kernel_name,
                                        arch, arch_list_text(other_archs)));
  // Names sharing the part before any template arguments or parameters: the likely intended ones.
  std::string want = without_spaces(kernel_name);
  std::string stem = want.substr(0, want.find_first_of("<("));
  std::set<std::string> close;
  for (const auto& k : kernels_)
    if (starts_with(without_spaces(k.name), stem)) close.insert(k.name);
  std::string hint;
  for (const auto& name : close) hint += "\n  " + name;
  throw KernelLookupError(fmt::format(
      "no compiled kernel matches kernel_name '{}' (of {} in this build); {}", kernel_name,
      [&] {
        std::set<std::string> distinct;
        for (const auto& k : kernels_) distinct.insert(k.name);
        return distinct.size();
      }(),
      close.empty() ? "no kernel name even starts like it: check the variant's LaunchSpec.kernel_name (namespace and "
                      "template arguments; LaunchSpec::set_kernel(kernel_ref<&the_kernel>()) derives it from the kernel)"
                    : "these start like it (the LaunchSpec.kernel_name must equal one up to its parameter list):" + hint));
}

const KernelResourceTable& built_kernel_resources() {
  static const KernelResourceTable table = [] {
    std::vector<std::pair<std::string, std::string>> logs;
    for (std::size_t i = 0; i < generated::kPtxasLogCount; ++i)
      logs.emplace_back(generated::kPtxasLogs[i].source, generated::kPtxasLogs[i].text);
    return KernelResourceTable::parse(logs);
  }();
  return table;
}

std::vector<int> built_cuda_architectures() {
  std::set<int> archs;
  std::string_view list = generated::kCudaArchitectures;
  std::size_t start = 0;
  while (start < list.size()) {
    auto comma = list.find(',', start);
    std::string_view entry = trim(list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    start = comma == std::string_view::npos ? list.size() : comma + 1;
    if (entry.find("virtual") != std::string_view::npos) continue;  // PTX only: no machine code
    int value = 0;
    std::size_t digits = 0;
    while (digits < entry.size() && std::isdigit(static_cast<unsigned char>(entry[digits])))
      value = value * 10 + (entry[digits++] - '0');
    if (digits > 0) archs.insert(value);
  }
  // "all", "all-major" or "native": what ptxas compiled is the list.
  if (archs.empty()) return built_kernel_resources().architectures();
  return {archs.begin(), archs.end()};
}

std::optional<int> sass_arch_for(int major, int minor, const std::vector<int>& built_archs) {
  std::optional<int> best;
  for (int a : built_archs)
    if (a / 10 == major && a % 10 <= minor && (!best || a > *best)) best = a;
  return best;
}

std::string arch_list_text(const std::vector<int>& archs) {
  std::string out;
  for (int a : archs) out += fmt::format("{}sm_{}", out.empty() ? "" : ", ", a);
  return out.empty() ? "none" : out;
}

}  // namespace occbench
