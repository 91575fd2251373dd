#pragma once
// How many points a search asks for at once: as many as keep the GPU busy, no more. A batch waits
// for its slowest compilation (c: the slowest kernel compiled so far, seconds) while the GPU
// measures what is ready (m: a point's measuring seconds, the median so far, which a first point's
// setup does not skew). So each walker asks for ceil(c / m) points: one at a time where measuring
// is the slower part (c <= m: a batch would choose points before it knows results it could have
// had, and gain nothing), never wider than the compilers (the workers and this process) can
// compile at once. Both over the points a walker was told, so the same records give the same
// widths. Wider where the strategy's next points do not depend on results (Searcher::free_room: a
// random start, a genetic generation): such a batch chooses what one point at a time would.
// Replayed (live_model) and live (search_source) alike.
#include <cstddef>
#include <string>
#include <vector>

namespace occbench {

struct BatchWidthRule {
  std::size_t most = 1;  // the compile workers and this process
};

// What one point cost: compiling its kernel (compile.nvrtc_ms, whoever compiled it, whenever: a
// warm cache gives the same widths as a cold one) and measuring it (time_use.point_s).
struct PointTimes {
  double compile_s = 0;
  double measure_s = 0;
};

// The times of the points a walker was told.
class TimesTold {
 public:
  void add(const PointTimes& times);
  std::size_t told() const { return measure_s_.size(); }
  double slowest_compile_s() const { return slowest_compile_s_; }
  double median_measure_s() const;

 private:
  double slowest_compile_s_ = 0;
  std::vector<double> measure_s_;
};

struct BatchWidth {
  std::size_t width = 1;
  std::size_t for_compiling = 1;  // the width the times ask for (width is wider where the strategy's next are free)
  std::size_t told = 0;           // the points the times are over (0: none yet, one at a time)
  double slowest_compile_s = 0, median_measure_s = 0;
};

// The width after `times`, where the strategy's next `free_room` points do not depend on results.
BatchWidth batch_width(const BatchWidthRule& rule, const TimesTold& times, std::size_t free_room = 0);

// "batches of 5: the slowest kernel so far compiled in 2.1 s, a point measures in 0.4 s (median of 12), at most 16"
std::string describe(const BatchWidth& width, const BatchWidthRule& rule);

}  // namespace occbench
