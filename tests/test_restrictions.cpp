// Restrictions: expressions over a config's sizes and axes that rule points out before they are
// built, for built-in families and user kernels; what plan and run --dry-run say of them; and the
// refusals (a name the config does not have, an expression that does not parse).
#include "harness/sweep/config.hpp"
#include "data_dir.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"
#include "results_test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace occbench {
namespace {

const char* kMatmul = R"({"name": "r", "family": "matmul", "variants": ["naive", "tiled"], "baseline": "naive",
    "sizes": {"m": [1024], "n": [1024], "k": [1024]}, "axes": {"block_size": [8, 16, 32], "tile": [8, 16, 32]},
    "restrictions": ["block_size * block_size >= 256", "tile != 16"]})";

std::vector<std::string> ids(const std::vector<Point>& points) {
  std::vector<std::string> out;
  for (const auto& p : points) out.push_back(p.id);
  return out;
}

TEST(Restrictions, PointsTheyRuleOutAreNeverBuilt) {
  SweepSpec spec = parse_sweep_text(kMatmul, "r.json", builtin_registry());
  ASSERT_EQ(spec.restrictions.size(), 2u);
  EXPECT_EQ(spec.restrictions[0].uses, std::vector<std::string>{"block_size"});
  EXPECT_EQ(ids(expand_sweep(spec, builtin_registry())),
            (std::vector<std::string>{"matmul/naive/m=1024/n=1024/k=1024/block_size=16", "matmul/naive/m=1024/n=1024/k=1024/block_size=32",
                                      "matmul/tiled/m=1024/n=1024/k=1024/tile=8", "matmul/tiled/m=1024/n=1024/k=1024/tile=32"}));
  std::size_t unrestricted = 0;
  EXPECT_EQ(restriction_removals(spec, builtin_registry(), unrestricted), (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(unrestricted, 6u);
  std::string summary = restrictions_summary(spec, builtin_registry());
  EXPECT_NE(summary.find("restrictions: 4 of 6 point(s) kept"), std::string::npos) << summary;
  EXPECT_NE(summary.find("$.restrictions[1] \"tile != 16\" rules out 1 point(s)"), std::string::npos) << summary;
}

TEST(Restrictions, AreRefusedWhereTheyNameWhatTheConfigDoesNotHaveOrDoNotParse) {
  auto refusal = [](const std::string& restriction) {
    std::string text = R"({"name": "r", "family": "matmul", "variants": ["tiled"], "baseline": "tiled",
        "sizes": {"m": [64], "n": [64], "k": [64]}, "axes": {"tile": [16]}, "restrictions": [)" + restriction + "]}";
    try {
      parse_sweep_text(text, "r.json", builtin_registry());
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  std::string unknown = refusal("\"tiles <= 16\"");
  EXPECT_NE(unknown.find("r.json: $.restrictions[0]: in the expression \"tiles <= 16\": unknown name 'tiles'"), std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("m, n, k, tile"), std::string::npos) << unknown;  // what it may use
  EXPECT_NE(refusal("\"tile <=* 16\"").find("$.restrictions[0]"), std::string::npos);
  EXPECT_NE(refusal("16").find("$.restrictions[0]"), std::string::npos);  // a string is expected
  EXPECT_NE(refusal("\"tile <= 16\"").find("accepted"), std::string::npos);
}

TEST(Restrictions, WorkForUserKernelsAndFromTheCommandLine) {
  testing_support::TempDir dir;
  std::filesystem::copy_file(std::string(OCCBENCH_SOURCE_DIR) + "/examples/my_scale/my_scale.cu", dir.file("my_scale.cu"));
  std::string config = dir.write("my_scale.json", R"json({"name": "my_scale", "source": "my_scale.cu", "sizes": {"n": [4096]},
      "axes": {"block_size": [128, 256, 512], "items": [1, 4]}, "restrictions": ["block_size * items <= 512"],
      "arguments": [{"name": "out", "role": "output", "type": "float32", "count": "n"},
                    {"name": "in", "role": "input", "type": "float32", "count": "n"},
                    {"name": "factor", "role": "scalar", "type": "float32", "value": "3"},
                    {"name": "n", "role": "scalar", "type": "uint32", "value": "n"}],
      "kernels": {"scale": {"kernel": "scale_kernel<{items}>", "grid": "ceil_div(n, block_size * items)", "block": "block_size"}},
      "reference": {"variant": "scale", "params": {"block_size": 256, "items": 1}},
      "work": {"flops": "n", "global_bytes": "8 * n", "dram_bytes": "8 * n"}})json");
  testing_support::CliResult listed = testing_support::run_cli({"run", config, "--dry-run"});
  EXPECT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find("4 point(s) would run"), std::string::npos) << listed.out;
  EXPECT_EQ(listed.out.find("block_size=256/items=4"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("\"block_size * items <= 512\" rules out 2 point(s)"), std::string::npos) << listed.out;
  testing_support::CliResult planned = testing_support::run_cli({"plan", config, "--gpu", "h100"});
  EXPECT_NE(planned.out.find("restrictions: 4 of 6 point(s) kept"), std::string::npos) << planned.out << planned.err;
}

}  // namespace
}  // namespace occbench
