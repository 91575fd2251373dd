// Every class of bad input is refused with the file, the JSON path and what was expected.
#include "harness/sweep/config.hpp"
#include "data_dir.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using occbench::ConfigError;
using occbench::builtin_registry;
using occbench::parse_sweep_text;

namespace {

const char* kGood = R"({
  "name": "t", "family": "adjacent_difference",
  "variants": ["global", "shared_dynamic", "host"], "baseline": "global",
  "sizes": {"n": [1000, 1025]}, "axes": {"block_size": [128, 256]},
  "measurement": {"mode": "hot", "min_samples": 3}
})";

// Parses `text` expecting a ConfigError; returns it for inspection.
ConfigError refuse(const std::string& text) {
  try {
    parse_sweep_text(text, "bad.json", builtin_registry());
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << text;
  return ConfigError("", "", "");
}

// The good config with one replacement applied.
std::string with(const std::string& from, const std::string& to) {
  std::string text = kGood;
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST(Config, AcceptsAGoodSweep) {
  auto spec = parse_sweep_text(kGood, "good.json", builtin_registry());
  EXPECT_EQ(spec.name, "t");
  EXPECT_EQ(spec.baseline, "global");
  EXPECT_EQ(spec.measurement.mode, "hot");
  EXPECT_EQ(spec.measurement.min_samples, 3);
  EXPECT_EQ(spec.variants.size(), 3u);
  EXPECT_EQ(spec.raw["sizes"]["n"][1], 1025);
}

TEST(Config, ShippedConfigsValidate) {
  int configs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(OCCBENCH_SOURCE_DIR) + "/configs")) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "schema.json") continue;
    ++configs;
    try {
      auto spec = occbench::parse_sweep_file(entry.path().string(), builtin_registry());
      EXPECT_FALSE(occbench::expand_sweep(spec, builtin_registry()).empty()) << entry.path();
    } catch (const ConfigError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GE(configs, 1);
}

TEST(Config, MalformedJsonNamesLineAndColumn) {
  auto e = refuse("{\n  \"family\": \"adjacent_difference\",\n  \"sizes\": {\"n\": [1,]}\n}");
  EXPECT_EQ(e.file(), "bad.json");
  EXPECT_EQ(e.json_path(), "line 3, column 21");
  EXPECT_NE(e.expected().find("malformed JSON"), std::string::npos);
}

TEST(Config, MissingFileIsRefused) {
  try {
    occbench::parse_sweep_file("/nonexistent/sweep.json", builtin_registry());
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/sweep.json");
    EXPECT_NE(std::string(e.what()).find("the file does not exist"), std::string::npos) << e.what();
  }
}

TEST(Config, UnknownFamilyListsKnownOnes) {
  auto e = refuse(with("\"family\": \"adjacent_difference\"", "\"family\": \"nope\""));
  EXPECT_EQ(e.json_path(), "$.family");
  EXPECT_NE(e.expected().find("adjacent_difference"), std::string::npos);
}

TEST(Config, UnknownVariantListsValidOnes) {
  auto e = refuse(with("\"shared_dynamic\"", "\"shared_dynamc\""));
  EXPECT_EQ(e.json_path(), "$.variants[1]");
  EXPECT_NE(e.expected().find("valid variants: host, global, shared_static, shared_dynamic, vectorized"), std::string::npos)
      << e.expected();
}

TEST(Config, UnknownTopLevelKey) {
  auto e = refuse(with("\"name\": \"t\"", "\"name\": \"t\", \"sizez\": {}"));
  EXPECT_EQ(e.json_path(), "$.sizez");
  EXPECT_NE(e.expected().find("valid keys here"), std::string::npos);
}

TEST(Config, UnknownAxisListsValidOnes) {
  auto e = refuse(with("\"block_size\": [128, 256]", "\"chunk_size\": [2]"));
  EXPECT_EQ(e.json_path(), "$.axes.chunk_size");
  EXPECT_NE(e.expected().find("block_size"), std::string::npos);
}

TEST(Config, UnknownSizeAxis) {
  auto e = refuse(with("\"n\": [1000, 1025]", "\"n\": [1000], \"m\": [3]"));
  EXPECT_EQ(e.json_path(), "$.sizes.m");
}

TEST(Config, UnknownMeasurementKey) {
  auto e = refuse(with("\"min_samples\": 3", "\"min_sample\": 3"));
  EXPECT_EQ(e.json_path(), "$.measurement.min_sample");
}

TEST(Config, WrongTypes) {
  EXPECT_EQ(refuse(with("\"name\": \"t\"", "\"name\": 5")).json_path(), "$.name");
  EXPECT_EQ(refuse(with("[128, 256]", "[128, \"256\"]")).json_path(), "$.axes.block_size[1]");
  EXPECT_EQ(refuse(with("[128, 256]", "[128, 256.5]")).json_path(), "$.axes.block_size[1]");
  EXPECT_EQ(refuse(with("[128, 256]", "128")).json_path(), "$.axes.block_size");
  EXPECT_EQ(refuse(with("\"mode\": \"hot\"", "\"mode\": true")).json_path(), "$.measurement.mode");
  EXPECT_EQ(refuse(with("\"mode\": \"hot\"", "\"mode\": \"warm\"")).json_path(), "$.measurement.mode");
  EXPECT_EQ(refuse("[1, 2]").json_path(), "$");
}

TEST(Config, EmptyAxesAndVariants) {
  auto e = refuse(with("[128, 256]", "[]"));
  EXPECT_EQ(e.json_path(), "$.axes.block_size");
  EXPECT_NE(e.expected().find("empty"), std::string::npos);
  EXPECT_EQ(refuse(with("[\"global\", \"shared_dynamic\", \"host\"]", "[]")).json_path(), "$.variants");
}

TEST(Config, BlockSizeOutsideTheLegalSet) {
  auto e = refuse(with("[128, 256]", "[128, 100]"));
  EXPECT_EQ(e.json_path(), "$.axes.block_size[1]");
  EXPECT_NE(e.expected().find("a multiple of 32 in [32, 1024]"), std::string::npos) << e.expected();
  EXPECT_EQ(refuse(with("[128, 256]", "[2048]")).json_path(), "$.axes.block_size[0]");
}

TEST(Config, SizesZeroNegativeOrOverflowing32BitIndexing) {
  EXPECT_EQ(refuse(with("[1000, 1025]", "[0]")).json_path(), "$.sizes.n[0]");
  EXPECT_EQ(refuse(with("[1000, 1025]", "[1000, -5]")).json_path(), "$.sizes.n[1]");
  auto e = refuse(with("[1000, 1025]", "[4294967296]"));
  EXPECT_EQ(e.json_path(), "$.sizes.n[0]");
  EXPECT_NE(e.expected().find("2147483647"), std::string::npos);
  EXPECT_EQ(refuse(with("[1000, 1025]", "[18446744073709551615]")).json_path(), "$.sizes.n[0]");
}

TEST(Config, DuplicateValues) {
  EXPECT_EQ(refuse(with("[128, 256]", "[128, 128]")).json_path(), "$.axes.block_size[1]");
  EXPECT_EQ(refuse(with("\"host\"]", "\"host\", \"global\"]")).json_path(), "$.variants[3]");
}

TEST(Config, BaselineMustBeASweepVariant) {
  auto e = refuse(with("\"baseline\": \"global\"", "\"baseline\": \"vectorized\""));
  EXPECT_EQ(e.json_path(), "$.baseline");
}

TEST(Config, MeasurementRanges) {
  EXPECT_EQ(refuse(with("\"min_samples\": 3", "\"min_samples\": 0")).json_path(), "$.measurement.min_samples");
  EXPECT_EQ(refuse(with("\"min_samples\": 3", "\"min_samples\": 30, \"max_samples\": 10")).json_path(),
            "$.measurement.max_samples");
  EXPECT_EQ(refuse(with("\"min_samples\": 3", "\"target_noise\": 0")).json_path(), "$.measurement.target_noise");
  EXPECT_EQ(refuse(with("\"min_samples\": 3", "\"timeout_s\": -1")).json_path(), "$.measurement.timeout_s");
  // A profiled collection's ranges are bounded (harness/measure/counters): at most 100 samples.
  EXPECT_EQ(refuse(with("\"min_samples\": 3", "\"profiled_samples\": 101")).json_path(), "$.measurement.profiled_samples");
  EXPECT_EQ(refuse(with("\"min_samples\": 3", "\"profiled_samples\": -1")).json_path(), "$.measurement.profiled_samples");
  auto spec = parse_sweep_text(with("\"min_samples\": 3", "\"profiled_samples\": 10"), "p.json", builtin_registry());
  EXPECT_EQ(spec.measurement.profiled_samples, 10);
  EXPECT_EQ(occbench::MeasurementSettings{}.profiled_samples, 0);  // opt-in: ~5 ms per profiled sample
  EXPECT_EQ(refuse(with("\"min_samples\": 3", "\"instrumented_max_kernel_ms\": -1")).json_path(),
            "$.measurement.instrumented_max_kernel_ms");
  EXPECT_EQ(refuse(with("\"min_samples\": 3", "\"instrumented_max_kernel_ms\": \"2\"")).json_path(),
            "$.measurement.instrumented_max_kernel_ms");
  spec = parse_sweep_text(with("\"min_samples\": 3", "\"instrumented_max_kernel_ms\": 50"), "p.json", builtin_registry());
  EXPECT_EQ(spec.measurement.instrumented_max_kernel_ms, 50);
  EXPECT_EQ(occbench::MeasurementSettings{}.instrumented_max_kernel_ms, 2.0);
  // When counters flush the L2: two named choices, anything else refused with the field's path.
  EXPECT_EQ(occbench::MeasurementSettings{}.counters_l2_flush, "per_launch");
  spec = parse_sweep_text(with("\"min_samples\": 3", "\"counters_l2_flush\": \"per_kernel\""), "p.json", builtin_registry());
  EXPECT_EQ(spec.measurement.counters_l2_flush, "per_kernel");
  EXPECT_EQ(occbench::to_json(spec.measurement)["counters_l2_flush"], "per_kernel");
  auto wrong = refuse(with("\"min_samples\": 3", "\"counters_l2_flush\": \"kernel\""));
  EXPECT_EQ(wrong.json_path(), "$.measurement.counters_l2_flush");
  EXPECT_NE(std::string(wrong.what()).find("\"per_launch\" or \"per_kernel\""), std::string::npos) << wrong.what();
  EXPECT_EQ(refuse(with("\"min_samples\": 3", "\"counters_l2_flush\": true")).json_path(), "$.measurement.counters_l2_flush");
}

TEST(Config, VariantAxesOverrideAndAreChecked) {
  auto spec = parse_sweep_text(with("\"measurement\"", "\"variant_axes\": {\"shared_dynamic\": {\"block_size\": [1024]}}, \"measurement\""),
                               "v.json", builtin_registry());
  auto points = occbench::expand_sweep(spec, builtin_registry());
  int dynamic = 0;
  for (const auto& p : points)
    if (p.variant->name == "shared_dynamic") {
      ++dynamic;
      EXPECT_EQ(p.params.get("block_size"), 1024);
    }
  EXPECT_EQ(dynamic, 2);  // one block size x two sizes
  EXPECT_EQ(refuse(with("\"measurement\"", "\"variant_axes\": {\"vectorized\": {}}, \"measurement\"")).json_path(),
            "$.variant_axes.vectorized");
  EXPECT_EQ(refuse(with("\"measurement\"", "\"variant_axes\": {\"host\": {\"block_size\": [64]}}, \"measurement\"")).json_path(),
            "$.variant_axes.host.block_size");
}

TEST(Config, MessageNamesFilePathAndExpectation) {
  auto e = refuse(with("[128, 256]", "[128, 100]"));
  EXPECT_EQ(std::string(e.what()), "bad.json: $.axes.block_size[1]: block_size must be a multiple of 32 in [32, 1024], got 100");
}
