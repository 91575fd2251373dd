#include "harness/records/launch_choice.hpp"

#include "harness/records/kernel_launcher_wisdom.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

namespace occbench {

namespace {

// A best point with what it was recorded on.
struct Candidate {
  BestPoint best;
  std::string gpu, compute_capability;
  double distance = 0;
};

bool names_variant(const BestPoint& best, const std::string& variant) {
  return variant == best.variant || variant == best.family + "/" + best.variant;
}

std::string recorded_text(const nlohmann::ordered_json& sizes) {
  std::string text;
  for (const auto& [name, value] : sizes.items()) text += (text.empty() ? "" : " ") + name + "=" + value.dump();
  return text;
}


// Every variant's best at every recorded size, on every GPU, at a known distance from the target.
std::vector<Candidate> candidates(const std::vector<ShardOutput>& results, const std::string& variant, const LaunchTarget& target,
                                  const Objective& objective) {
  std::vector<Candidate> out;
  for (const ShardOutput& input : results) {
    const nlohmann::ordered_json device = input.devices.empty() ? nlohmann::ordered_json::object() : input.devices.front();
    for (BestPoint& best : best_points(input, objective)) {
      std::optional<double> distance = size_distance(best.sizes, target.sizes);
      if (!names_variant(best, variant) || !distance) continue;
      out.push_back({std::move(best), device.value("name", ""), device.value("compute_capability", ""), *distance});
    }
  }
  return out;
}

// The nearest size's best among `pool` (ties: the larger size, then the better value).
const Candidate* nearest(const std::vector<const Candidate*>& pool, const Objective& objective) {
  const Candidate* chosen = nullptr;
  auto volume = [](const Candidate& c) {
    double v = 1;
    for (const auto& [name, value] : c.best.sizes.items()) v *= value.get<double>();
    return v;
  };
  for (const Candidate* c : pool) {
    if (!chosen || c->distance < chosen->distance - 1e-12) { chosen = c; continue; }
    if (std::abs(c->distance - chosen->distance) > 1e-12) continue;
    if (volume(*c) > volume(*chosen) || (volume(*c) == volume(*chosen) && objective.better(c->best.value, chosen->best.value))) chosen = c;
  }
  return chosen;
}

LaunchChoice chosen_from(const Candidate& c, LaunchChoice::From from, const LaunchTarget& target, const Objective& objective) {
  LaunchChoice choice;
  choice.from = from;
  choice.best = c.best;
  choice.gpu = c.gpu;
  std::string whose = from == LaunchChoice::From::this_gpu ? "this GPU's (" + c.gpu + ")"
                                                            : fmt::format("{}'s, the same architecture (sm {})", c.gpu, c.compute_capability);
  std::string where = c.distance == 0 ? "at this size" : fmt::format("at {}, the recorded size nearest {}", recorded_text(c.best.sizes),
                                                                        sizes_text(target.sizes));
  choice.reason = fmt::format("{}/{}: {} best {} ({} {:.6g})", c.best.family, c.best.variant, whose, where, objective.text(), c.best.value);
  return choice;
}

}  // namespace

std::string sizes_text(const std::map<std::string, double>& sizes) {
  std::string text;
  for (const auto& [name, value] : sizes) {  // whole sizes as integers: n=1048579, not 1.04858e+06
    bool whole = value == std::floor(value) && std::abs(value) < 1e15;
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, whole ? fmt::format("{}", std::int64_t(value)) : fmt::format("{:g}", value));
  }
  return text;
}

std::vector<ShardOutput> read_launch_results(const std::string& path) {
  if (is_kernel_launcher_wisdom(path)) return kernel_launcher_wisdom(path);
  return {read_shard_output(path)};
}

const char* from_name(LaunchChoice::From from) {
  switch (from) {
    case LaunchChoice::From::this_gpu: return "this_gpu";
    case LaunchChoice::From::same_architecture: return "same_architecture";
    case LaunchChoice::From::defaults: break;
  }
  return "defaults";
}

LaunchResults read_launch_results(const std::vector<std::string>& paths) {
  LaunchResults out;
  for (const std::string& path : paths) {
    try {
      for (ShardOutput& output : read_launch_results(path)) out.results.push_back(std::move(output));
    } catch (const std::exception& e) {
      out.left_out.emplace_back(path, e.what());
    }
  }
  return out;
}

std::optional<double> size_distance(const nlohmann::ordered_json& recorded, const std::map<std::string, double>& wanted) {
  if (!recorded.is_object() || recorded.size() != wanted.size()) return std::nullopt;
  double distance = 0;
  for (const auto& [name, want] : wanted) {
    auto found = recorded.find(name);
    if (found == recorded.end() || !found->is_number() || !(found->get<double>() > 0) || !(want > 0)) return std::nullopt;
    distance += std::abs(std::log2(found->get<double>() / want));
  }
  return distance;
}

LaunchChoice choose_launch(const std::vector<ShardOutput>& results, const std::string& variant, const LaunchTarget& target,
                           const Objective& objective) {
  std::vector<Candidate> all = candidates(results, variant, target, objective);
  std::vector<const Candidate*> own, same_arch;
  for (const Candidate& c : all) {
    if (c.gpu == target.gpu_name) own.push_back(&c);
    else if (!target.compute_capability.empty() && c.compute_capability == target.compute_capability) same_arch.push_back(&c);
  }
  if (const Candidate* c = nearest(own, objective)) return chosen_from(*c, LaunchChoice::From::this_gpu, target, objective);
  if (const Candidate* c = nearest(same_arch, objective)) return chosen_from(*c, LaunchChoice::From::same_architecture, target, objective);
  LaunchChoice defaults;
  defaults.reason = fmt::format("{}: the defaults: no results of {} (sm {}){} at sizes {}", variant, target.gpu_name, target.compute_capability,
                                all.empty() ? " or of any GPU" : " or of its architecture", sizes_text(target.sizes));
  return defaults;
}

}  // namespace occbench
