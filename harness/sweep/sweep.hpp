#pragma once
// Expands a sweep into points: sizes outermost, then variants, then each variant's launch axes.
// Points a restriction rules out are never built ("restrictions": expressions over the sizes and
// axes), and only the points whose id the selection's --filter matches are kept. Which of them a run
// measures, and in which order, is its point source's choice (harness/sweep/point_source.hpp).
#include "harness/sweep/spec.hpp"
#include "harness/family/point.hpp"
#include "harness/family/registry.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

// The values a variant takes for each of its axes: its own override, else the shared list, else
// the axis default. Axes with none of these are left out (the config check reports them).
AxisValues variant_axis_values(const SweepSpec& spec, const Variant& variant);

// The sweep's family: its own (a config naming CUDA source) or the registry's built-in one.
const Family* sweep_family(const SweepSpec& spec, const Registry& registry);

// Every point of the sweep that its restrictions allow. With check_points, each point's axes are
// all set (the config was validated).
std::vector<Point> expand_sweep(const SweepSpec& spec, const Registry& registry, bool check_points = true);

// How many points of the unrestricted sweep (`unrestricted`) each restriction rules out (a point
// may be ruled out by several), and the lines plan and run --dry-run print ("" without restrictions).
std::vector<std::size_t> restriction_removals(const SweepSpec& spec, const Registry& registry, std::size_t& unrestricted);
std::string restrictions_summary(const SweepSpec& spec, const Registry& registry);

// The sweep's point with this id (index 0: its place is not looked up), or nullopt where the
// sweep has none: the id parsed, its variant's axes and the restrictions checked, nothing expanded.
std::optional<Point> point_with_id(const SweepSpec& spec, const Registry& registry, const std::string& id);

// How many points the sweep keeps, counted without building them where it can be (CountedSweep).
std::uint64_t count_sweep(const SweepSpec& spec, const Registry& registry, bool check_points = true);

// Sweeps of more points than this are not expanded: they are counted and their points built from
// the count (harness/sweep/counted_sweep.hpp) where a sample or the first points will do.
constexpr std::uint64_t kExpandedUpTo = 100000;

// The points a config's check evaluates every expression of: all of them up to kExpandedUpTo, else
// the first point of each size and variant and a uniform sample of kPointsCheckedOfALargerSweep
// (expanding 10^8 points to check them would take longer than the run).
constexpr std::uint64_t kPointsCheckedOfALargerSweep = 10000;
std::vector<Point> points_to_check(const SweepSpec& spec, const Registry& registry);

}  // namespace occbench
