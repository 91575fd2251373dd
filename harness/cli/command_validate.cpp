// occbench validate: check sweep configs against the registry without running them.
#include "harness/cli/cli.hpp"
#include "harness/cli/commands.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/sweep/config.hpp"
#include "harness/core/files.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace occbench {

namespace {

int validate_configs(const Registry& registry, const std::vector<std::string>& paths) {
  int code = kExitOk;
  for (const auto& path : paths) {
    try {
      SweepSpec spec = parse_sweep_file(shipped_config_path(path), registry);
      std::uint64_t points = count_sweep(spec, registry);
      if (spec.search) check_objective(*spec.search, spec, spec.source, "$.search.objective");
      std::cout << fmt::format("{}: ok: sweep '{}', family {}, {} variants, {} points\n", path, spec.name, spec.family,
                               spec.variants.size(), points);
    } catch (const BadInput& e) {
      std::cerr << "error: " << e.what() << "\n";
      code = kExitBadInput;
    }
  }
  return code;
}

}  // namespace

Command add_validate_command(CLI::App& app, const Registry& registry) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto* validate = app.add_subcommand("validate", "Check sweep configs without running them");
  validate->add_option("config", *paths, "Sweep config files (JSON), or shipped ones' names")->required();
  return {validate, [&registry, paths](const std::vector<std::string>&) { return validate_configs(registry, *paths); }};
}

}  // namespace occbench
