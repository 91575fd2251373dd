// Launch axes of strings, floats and booleans in a config of one's own kernel (Kernel Tuner's
// "float_type": ["float", "double"]): positions to the engine, their labels in #define lines,
// kernel names, point ids, records, restrictions, the reference, --set, search and best's header.
#include "harness/cli/cli.hpp"
#include "harness/family/point.hpp"
#include "kernels/families.hpp"
#include "results_test_support.hpp"
#include "harness/records/best.hpp"
#include "harness/records/merge.hpp"
#include "harness/run/plan.hpp"
#include "harness/search/search_source.hpp"
#include "harness/search/space.hpp"
#include "harness/sweep/config.hpp"
#include "harness/sweep/selection.hpp"
#include "harness/sweep/sweep.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using occbench::Point;

namespace {

// A kernel whose every labelled value must arrive as written: the type, the float, the boolean.
const char* const kSource = R"(#include <cuda/std/type_traits>
static_assert(ALPHA == 0.5 || ALPHA == 1.5, "a float reaches the kernel as written");
template <class T>
__global__ void axpy(float* y, const float* x, unsigned n) {
  static_assert(cuda::std::is_same<T, FLOAT_TYPE>::value, "the name's and the define's types agree");
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
#if USE_FMA
  if (i < n) y[i] = float(fma(T(ALPHA), T(x[i]), T(1)));
#else
  if (i < n) y[i] = float(T(ALPHA) * T(x[i]) + T(1));
#endif
}
)";

fs::path scratch() {
  fs::path dir = fs::temp_directory_path() / ("occbench_labelled_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "axpy.cu") << kSource;
  return dir;
}

json config() {
  return {{"source", "axpy.cu"},
          {"sizes", {{"n", {4096}}}},
          {"axes", {{"block_size", {128, 256}}, {"float_type", {"float", "double"}}, {"alpha", {0.5, 1.5}}, {"use_fma", {true, false}}}},
          {"restrictions", {"float_type == 'double' || block_size == 256"}},
          {"arguments", {{{"name", "y"}, {"role", "output"}, {"type", "float32"}, {"count", "n"}},
                         {{"name", "x"}, {"role", "input"}, {"type", "float32"}, {"count", "n"}},
                         {{"name", "n"}, {"role", "scalar"}, {"type", "uint32"}, {"value", "n"}}}},
          {"kernels", {{"axpy", {{"kernel", "axpy<{float_type}>"}, {"grid", "ceil_div(n, block_size)"}, {"block", "block_size"},
                                 {"defines", {{"FLOAT_TYPE", "float_type"}, {"ALPHA", "alpha"}, {"USE_FMA", "use_fma"}}}}}}},
          {"reference", {{"variant", "axpy"}, {"params", {{"float_type", "double"}, {"alpha", 0.5}}}}}};
}

std::string write(const json& doc, const std::string& name) {
  fs::path path = scratch() / name;
  std::ofstream(path) << doc.dump(2);
  return path.string();
}

occbench::SweepSpec parsed(const json& doc) {
  return occbench::parse_sweep_file(write(doc, "labelled.json"), occbench::builtin_registry());
}

struct CliRun {
  int code;
  std::string out, err;
};

CliRun cli(std::vector<std::string> args) {
  args.insert(args.begin(), "occbench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int code = occbench::cli_main(int(argv.size()), argv.data(), occbench::builtin_registry());
  std::string out = testing::internal::GetCapturedStdout();
  return {code, out, testing::internal::GetCapturedStderr()};
}

}  // namespace

TEST(LabelledAxes, PointsAreTheirLabelsInIdsAndRestrictionsCompareStrings) {
  occbench::SweepSpec spec = parsed(config());  // owns the family the points point to
  std::vector<Point> points = occbench::expand_sweep(spec, occbench::builtin_registry());
  // 2 x 2 x 2 x 2, less the four of float at 128 threads that the restriction leaves out.
  ASSERT_EQ(points.size(), 12u);
  std::set<std::string> ids;
  for (const auto& p : points) ids.insert(p.id);
  EXPECT_TRUE(ids.count("axpy/axpy/n=4096/block_size=128/float_type=double/alpha=0.5/use_fma=true")) << *ids.begin();
  EXPECT_FALSE(ids.count("axpy/axpy/n=4096/block_size=128/float_type=float/alpha=0.5/use_fma=true"));
  EXPECT_EQ(points[0].params.get("float_type"), 1) << "the engine's value is the label's position";
  EXPECT_EQ(points[0].params.text("float_type"), "double");
  EXPECT_EQ(points[0].params.json_text("float_type"), "\"double\"");
  EXPECT_EQ(points[0].params.text("alpha"), "0.5");
  EXPECT_EQ(points[0].params.number("use_fma"), 1.0);
  // A resumed run, merge and replay find each point again by its id.
  for (const auto& p : points) {
    std::optional<Point> again = occbench::point_with_id(spec, occbench::builtin_registry(), p.id);
    ASSERT_TRUE(again) << p.id;
    EXPECT_EQ(again->params, p.params);
  }
  EXPECT_FALSE(occbench::point_with_id(spec, occbench::builtin_registry(), "axpy/axpy/n=4096/block_size=256/float_type=half/alpha=0.5/use_fma=true"));
}

TEST(LabelledAxes, LabelsReachTheKernelAsDefinesAndTemplateArgumentsAndCompileWithoutAGpu) {
  occbench::SweepSpec spec = parsed(config());  // owns the family the points point to
  std::vector<Point> points = occbench::expand_sweep(spec, occbench::builtin_registry());
  const Point& p = *std::find_if(points.begin(), points.end(), [](const Point& q) {
    return q.params.text("float_type") == "double" && q.params.text("alpha") == "1.5" && q.params.text("use_fma") == "false";
  });
  occbench::CompiledSource compiled = p.variant->compile(p.params, 90);  // NVRTC: the static_asserts hold
  EXPECT_NE(compiled.mangled_name.find("axpy"), std::string::npos);
  EXPECT_NE(compiled.mangled_name.find("IdE"), std::string::npos) << "axpy<double>: " << compiled.mangled_name;
  json defines = json::parse(compiled.compile_json)["defines"];
  EXPECT_EQ(defines["FLOAT_TYPE"], "double") << defines.dump();
  EXPECT_EQ(defines["ALPHA"], "1.5") << defines.dump();
  EXPECT_EQ(defines["USE_FMA"], "false") << defines.dump();
}

TEST(LabelledAxes, PlanAndSetTakeLabelsAndTheRecordHoldsTheValuesThemselves) {
  std::string path = write(config(), "labelled.json");
  std::string out = (scratch() / "plan").string();
  CliRun plan = cli({"plan", path, "--gpu", "h100", "--out", out, "--set", "float_type=double", "--set", "alpha=1.5"});
  EXPECT_EQ(plan.code, 0) << plan.out << plan.err;
  EXPECT_NE(plan.out.find("4 planned, 0 skipped, 0 failed"), std::string::npos) << plan.out << plan.err;
  EXPECT_NE(plan.out.find("float_type=double"), std::string::npos) << plan.out;
  CliRun unknown = cli({"plan", path, "--gpu", "h100", "--out", out, "--set", "float_type=half"});
  EXPECT_EQ(unknown.code, 0) << "a new label from the command line is a new value: " << unknown.err;
  // The record's params: the labels as JSON values (through the search's coordinates too).
  occbench::SweepSpec spec = parsed(config());  // owns the family the points point to
  std::vector<Point> points = occbench::expand_sweep(spec, occbench::builtin_registry());
  occbench::Coordinates c = occbench::point_coordinates(points[0]);
  auto value_of = [&](const std::string& name) {
    return std::find_if(c.begin(), c.end(), [&](const auto& item) { return item.first == name; })->second;
  };
  EXPECT_EQ(value_of("float_type"), "double");
  EXPECT_EQ(value_of("alpha"), 0.5);
  EXPECT_EQ(value_of("use_fma"), true);
  std::vector<occbench::Coordinates> candidates;
  for (const auto& p : points) candidates.push_back(occbench::point_coordinates(p));
  occbench::SearchSpace space(candidates);
  for (const auto& d : space.dimensions()) {
    if (d.name == "float_type" || d.name == "use_fma") EXPECT_FALSE(d.ordered) << d.name << ": categorical to the search";
    if (d.name == "alpha" || d.name == "block_size") EXPECT_TRUE(d.ordered) << d.name;
  }
}

TEST(LabelledAxes, BadLabelsAndReferencesAreRefusedNamingThePath) {
  struct Case {
    json doc;
    std::string expected;
  };
  json slash = config(), object = config(), reference = config(), twice = config();
  slash["axes"]["float_type"] = {"float", "a/b"};
  object["axes"]["float_type"] = {"float", {{"x", 1}}};
  reference["reference"]["params"]["float_type"] = json::array({"half"});
  twice["axes"]["float_type"] = {"float", "float"};
  for (const auto& c : std::vector<Case>{
           {slash, "$.axes.float_type[1]: expected a value without '/'"},
           {object, "$.axes.float_type[1]: expected an integer, a number, a string or true/false"},
           {reference, "$.reference.params.float_type: expected an integer, a number, a string or true/false, got [\"half\"]"},
           {twice, "$.axes.float_type[1]: \"float\" appears twice in the list for 'float_type'"}}) {
    CliRun r = cli({"validate", write(c.doc, "bad_labels.json")});
    EXPECT_EQ(r.code, 2) << c.expected << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.expected << "\n" << r.err;
  }
}

TEST(LabelledAxes, BestsHeaderWritesAStringAsItIs) {
  json record = {{"point_id", "axpy/axpy/n=4096/block_size=256/float_type=double/alpha=0.5/use_fma=true"}, {"family", "axpy"},
                 {"variant", "axpy"},
                 {"params", {{"n", 4096}, {"block_size", 256}, {"float_type", "double"}, {"alpha", 0.5}, {"use_fma", true}}},
                 {"status", "ok"}, {"timing", {{"median_ms", 1.0}}}};
  // Through the record checks a run's file gets (a boolean value was refused there).
  json doc = occbench::testing_support::make_doc("NVIDIA H200", {record});
  doc["config"]["sizes"] = {{"n", {4096}}};
  std::string path = write(doc, "labelled_run.json");
  occbench::ShardOutput run = occbench::read_shard_output(path);
  occbench::Objective objective = occbench::parse_objective("timing.median_ms");
  std::string header = occbench::best_header(occbench::best_points(run, objective), run, objective);
  EXPECT_NE(header.find("_FLOAT_TYPE double\n"), std::string::npos) << header;
  EXPECT_NE(header.find("_ALPHA 0.5\n"), std::string::npos) << header;
  EXPECT_NE(header.find("_USE_FMA true\n"), std::string::npos) << header;
}
