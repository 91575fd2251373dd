#pragma once
// Runs a validated sweep on the GPU. The run loop reads as its steps: open the device and the
// outputs, choose the points (a point source: exhaustive, a shard's share, a random sample, a
// GPU's claims), measure each (harness/measure/point.hpp, with the observers' sections) or keep
// it from a resumed run, write each record as it is complete, then the documents.
#include "harness/family/registry.hpp"
#include "harness/run/run_session.hpp"
#include "harness/sweep/spec.hpp"

#include <iosfwd>
#include <string>

namespace occbench {

RunSummary run_sweep(const SweepSpec& spec, const Registry& registry, const RunOptions& options, std::ostream& log);

}  // namespace occbench
