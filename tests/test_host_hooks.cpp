// What an embedding program hands the engine in memory (harness/family/host_hooks.hpp), as a
// config names it ("host"): arrays, a kernel's launch, restrictions as functions, verification
// functions; each refused with its path where the program handed over no such thing.
#include "harness/family/host_hooks.hpp"
#include "harness/run/plan.hpp"
#include "harness/sweep/config.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace occbench {
namespace {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

// A config over arrays in memory, as occbench.tune_kernel writes it; its source in a scratch folder.
struct HostConfig {
  fs::path dir = fs::temp_directory_path() / "occbench_host_hooks";
  std::vector<float> a = std::vector<float>(1000, 1.0f), expected = std::vector<float>(1000, 2.0f);
  ordered_json doc;
  HostConfig() {
    fs::create_directories(dir);
    std::ofstream(dir / "k.cu") << "__global__ void k(float* out, const float* a, int n) {}\n";
    doc = ordered_json::parse(R"json({"name": "host", "source": "k.cu", "variants": ["tuned"], "sizes": {"kernel_tuner": [1]},
      "axes": {"block_size_x": [64, 128, 256, 512]},
      "restrictions": [{"host": "restrictions"}],
      "arguments": [
        {"name": "arg0", "role": "output", "type": "float32", "count": "1000", "init": {"kind": "host", "array": "arg0"}},
        {"name": "arg1", "role": "input", "type": "float32", "count": "1000", "init": {"kind": "host", "array": "arg1"}},
        {"name": "arg2", "role": "scalar", "type": "int32", "value": "1000"}],
      "kernels": {"tuned": {"kernel": "k", "launch": {"host": "launch"}}},
      "reference": {"host": {"arg0": "answer0"}, "verify": "verify"}})json");
    HostHooks& hooks = host_hooks();
    hooks.clear();
    hooks.arrays["arg0"] = {"<f4", a.size(), a.data()};
    hooks.arrays["arg1"] = {"<f4", a.size(), a.data()};
    hooks.arrays["answer0"] = {"<f4", expected.size(), expected.data()};
    hooks.conditions["restrictions"] = [](const Params& p) { return p.get("block_size_x") <= 256; };
    hooks.launches["launch"] = [](const Params& p) {
      HostLaunch l;
      l.block.x = unsigned(p.get("block_size_x"));
      l.grid.x = unsigned((1000 + l.block.x - 1) / l.block.x);
      l.defines = {{"block_size_x", std::to_string(p.get("block_size_x"))}};
      return l;
    };
    hooks.verifiers["verify"] = [](const std::vector<HostOutput>&) { return HostVerdict{true, ""}; };
  }
  ~HostConfig() {
    host_hooks().clear();
    fs::remove_all(dir);
  }
  SweepSpec parse() const { return parse_sweep_json(doc, (dir / "host.json").string(), builtin_registry()); }
  std::string refusal() const {
    try {
      parse();
    } catch (const ConfigError& e) {
      return std::string(e.json_path()) + " | " + e.what();
    }
    return "accepted";
  }
};

TEST(HostHooks, TheCallersConditionChoosesThePointsAndItsLaunchShapesThem) {
  HostConfig c;
  SweepSpec spec = c.parse();
  auto points = expand_sweep(spec, builtin_registry());
  ASSERT_EQ(points.size(), 3u);  // 512 ruled out by the condition
  EXPECT_EQ(points.back().params.get("block_size_x"), 256);
  LaunchSpec launch = points.back().variant->launch(points.back().params);
  EXPECT_EQ(launch.block.x, 256u);
  EXPECT_EQ(launch.grid.x, 4u);
}

TEST(HostHooks, AnArrayNotHandedOverIsRefusedWithItsPath) {
  HostConfig c;
  c.doc["arguments"][1]["init"]["array"] = "missing";
  std::string why = c.refusal();
  EXPECT_NE(why.find("$.arguments[1].init.array"), std::string::npos) << why;
  EXPECT_NE(why.find("answer0, arg0, arg1"), std::string::npos) << why;  // the names it could be
}

TEST(HostHooks, AnArrayOfAnotherTypeIsRefused) {
  HostConfig c;
  c.doc["arguments"][1]["type"] = "float64";
  std::string why = c.refusal();
  EXPECT_NE(why.find("holds <f4 elements"), std::string::npos) << why;
}

TEST(HostHooks, UnknownConditionsLaunchesAndVerifiersAreRefused) {
  for (const char* path : {"/restrictions/0/host", "/kernels/tuned/launch/host", "/reference/verify"}) {
    HostConfig c;
    c.doc[ordered_json::json_pointer(path)] = "nothing";
    std::string why = c.refusal();
    EXPECT_NE(why.find("got 'nothing'"), std::string::npos) << path << ": " << why;
  }
}

TEST(HostHooks, TheCommandLineWithoutACallerSaysWhereHostItemsComeFrom) {
  HostConfig c;
  host_hooks().clear();
  std::string why = c.refusal();
  EXPECT_NE(why.find("none was (host items come from the Python package"), std::string::npos) << why;
}

TEST(HostHooks, OutputsComparedBySumsOnlyAndStartingValuesOnlyFromMemoryOrAFile) {
  HostConfig c;
  c.doc["arguments"][0]["compare"] = "max";
  EXPECT_NE(c.refusal().find("expected one of: elements, sum"), std::string::npos) << c.refusal();
  HostConfig d;
  d.doc["arguments"][0]["init"] = {{"kind", "uniform"}};
  EXPECT_NE(d.refusal().find("expected \"host\" or \"npy\" for an output"), std::string::npos) << d.refusal();
  HostConfig e;
  e.doc["arguments"][0]["compare"] = "sum";
  EXPECT_EQ(e.refusal(), "accepted");
}

}  // namespace
}  // namespace occbench

namespace occbench {
namespace {

// A caller's condition that says which names it uses is decided as soon as they are bound, with
// those names only: once per block size here, not once per point, and the points are the same.
TEST(HostHooks, AConditionOverSomeNamesIsDecidedAsSoonAsTheyAreBound) {
  for (bool with_uses : {false, true}) {
    HostConfig c;
    c.doc["axes"]["tile"] = {1, 2, 3};
    if (with_uses) c.doc["restrictions"][0]["uses"] = {"block_size_x"};
    int calls = 0;
    host_hooks().conditions["restrictions"] = [&calls](const Params& p) {
      ++calls;
      return p.get("block_size_x") <= 256;
    };
    SweepSpec spec = c.parse();
    calls = 0;
    EXPECT_EQ(expand_sweep(spec, builtin_registry()).size(), 9u);
    EXPECT_EQ(calls, with_uses ? 4 : 12);
  }
  HostConfig bad;
  bad.doc["restrictions"][0]["uses"] = {"block_size_y"};
  EXPECT_NE(bad.refusal().find("$.restrictions[0].uses[0]"), std::string::npos) << bad.refusal();
}

}  // namespace
}  // namespace occbench

namespace occbench {
namespace {

// A caller may give each point its kernel's name (Kernel Tuner's "scale<float_type>" with the
// point's value) and its code (a code generator's, Jinja's render): each point compiles what it
// was given, and two points with the same name but other code are two compilations.
TEST(HostHooks, TheCallersLaunchGivesEachPointItsKernelNameAndCode) {
  HostConfig c;
  c.doc["axes"] = {{"float_type", {0, 1}}, {"unroll", {1, 2}}};
  c.doc.erase("restrictions");
  std::ofstream(c.dir / "host.json") << c.doc.dump(1);
  std::vector<std::string> asked;
  host_hooks().launches["launch"] = [&asked](const Params& p) {
    HostLaunch l;
    l.block.x = 128;
    l.grid.x = 8;
    const char* type = p.get("float_type") ? "double" : "float";
    l.kernel_name = fmt::format("scale<{}>", type);
    l.source = fmt::format("template <typename T> __global__ void scale(T* out, const T* a, int n) {{\n"
                           "  static_assert(sizeof(T) == {}, \"the point's type\");\n"
                           "  for (int j = 0; j < {}; ++j) out[j] = a[j];\n}}\n",
                           p.get("float_type") ? 8 : 4, p.get("unroll"));
    l.defines = {{"unroll", std::to_string(p.get("unroll"))}};
    asked.push_back(l.kernel_name);
    return l;
  };
  PlanOptions options;
  options.config = (c.dir / "host.json").string();
  options.gpu = "h100";
  options.write_files = false;
  std::ostringstream out, err;
  EXPECT_EQ(plan_main(options, builtin_registry(), out, err), 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("4 planned, 0 skipped, 0 failed"), std::string::npos) << out.str() << err.str();
  EXPECT_NE(std::find(asked.begin(), asked.end(), "scale<double>"), asked.end());
}

}  // namespace
}  // namespace occbench
