#pragma once
// How many points a search asks for at once: as many as keep the GPU busy, no more. While the GPU
// measures one point (measuring seconds m), a compile worker compiles m / c kernels of c seconds
// each, so the GPU waits unless about c / m kernels compile at once: a batch of ceil(c / m)
// points, one at a time where measuring is the slower part (c <= m: a batch would choose points
// before it knows the results it could have had, and gain nothing), and never wider than the
// compilers (the workers and this process) can compile at once. c is what compiling cost (0 for
// a kernel found in the cache), m what measuring took, both the means over the points a walker
// was told (deterministic for the same records). Wider where the strategy's next points do not
// depend on results (Searcher::free_room: a random start, a genetic generation): such a batch
// chooses what one point at a time would. Replayed (live_model) and live (search_source) alike.
#include <cstddef>
#include <string>

namespace occbench {

struct BatchWidthRule {
  std::size_t most = 1;  // the compile workers and this process
};

// The seconds behind a width: the means over the points told so far.
struct PointTimes {
  double compile_s = 0;  // what compiling the point's kernel cost this run (0: cached, or compiled before)
  double measure_s = 0;  // what measuring the point took (time_use.point_s)
};

struct BatchWidth {
  std::size_t width = 1;
  std::size_t for_compiling = 1;  // the width the times ask for (width is wider where the strategy's next are free)
  std::size_t told = 0;  // the points the means are over (0: none yet, one at a time)
  PointTimes mean;
};

// The width for `told` points whose times sum to `sum`, where the strategy's next `free_room`
// points do not depend on results.
BatchWidth batch_width(const BatchWidthRule& rule, const PointTimes& sum, std::size_t told, std::size_t free_room = 0);

// "batches of 5: compiling 0.42 s a kernel, measuring 0.09 s a point (means over 12 points), at most 16"
std::string describe(const BatchWidth& width, const BatchWidthRule& rule);

}  // namespace occbench
