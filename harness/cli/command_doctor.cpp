// occbench doctor: what this machine can do, one line per capability (harness/run/doctor.hpp).
#include "harness/cli/cli.hpp"
#include "harness/cli/commands.hpp"
#include "harness/run/doctor.hpp"

#include <fmt/format.h>

#include <iostream>

namespace occbench {

Command add_doctor_command(CLI::App& app) {
  auto* doctor = app.add_subcommand(
      "doctor", "What this machine can do: GPU, drivers, hardware counters, clock locking, energy, NVRTC, tools; exit 0 "
                "when runs can work");
  return {doctor, [](const std::vector<std::string>&) {
            std::vector<Capability> capabilities = check_capabilities();
            std::cout << fmt::format("occbench doctor: {}\n", version_text()) << format_capabilities(capabilities);
            return doctor_exit_code(capabilities);
          }};
}

}  // namespace occbench
