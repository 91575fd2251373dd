// occbench list: every family, its sizes, variants and the axes each accepts (text or JSON).
#include "harness/cli/cli.hpp"
#include "harness/cli/commands.hpp"
#include "harness/family/harness_axes.hpp"
#include "harness/core/optional_number.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace occbench {

namespace {

using ordered_json = nlohmann::ordered_json;

int list_families(const Registry& registry, bool as_json) {
  if (as_json) {
    ordered_json out = ordered_json::array();
    auto axes_json = [](const std::vector<Axis>& axes) {
      ordered_json list = ordered_json::array();
      for (const auto& a : axes)
        list.push_back({{"name", a.name}, {"legal", a.describe_legal()}, {"description", a.description},
                        {"default", optional_number(a.default_value)}});
      return list;
    };
    for (const auto& f : registry.families()) {
      ordered_json variants = ordered_json::array();
      for (const auto& v : f.variants)
        variants.push_back({{"name", v.name}, {"executor", v.executor == Executor::host ? "host" : "device"},
                            {"description", v.description}, {"axes", axes_json(v.axes)}});
      out.push_back({{"family", f.name}, {"description", f.description}, {"size_axes", axes_json(f.size_axes)},
                     {"variants", variants}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  auto print_axes = [](const std::vector<Axis>& axes, const char* indent) {
    for (const auto& a : axes)
      std::cout << fmt::format("{}{:<12} {}{}{}\n", indent, a.name, a.describe_legal(),
                               a.default_value ? fmt::format(" (default {})", *a.default_value) : "",
                               a.description.empty() ? "" : " - " + a.description);
  };
  for (const auto& f : registry.families()) {
    std::cout << fmt::format("{}: {}\n  sizes:\n", f.name, f.description);
    print_axes(f.size_axes, "    ");
    std::cout << "  variants:\n";
    for (const auto& v : f.variants) {
      std::cout << fmt::format("    {:<16} [{}] {}\n", v.name, v.executor == Executor::host ? "host" : "device", v.description);
      print_axes(v.axes, "        ");
    }
    std::cout << "\n";
  }
  std::cout << "every [device] variant also takes (harness/occupancy_limit):\n";  // the harness's own axes; this text is kept byte for byte
  print_axes(harness_axes(Variant{}), "    ");  // a default Variant is a device variant
  return kExitOk;
}

}  // namespace

Command add_list_command(CLI::App& app, const Registry& registry) {
  auto as_json = std::make_shared<bool>(false);
  auto* list = app.add_subcommand("list", "Show every kernel family, its variants and the axes each accepts");
  list->add_flag("--json", *as_json, "Print as JSON");
  return {list, [&registry, as_json](const std::vector<std::string>&) { return list_families(registry, *as_json); }};
}

}  // namespace occbench
