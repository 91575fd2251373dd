// A fixture of the layering test (tests/CMakeLists.txt): a model file that includes a header of
// the measure layer above it, which the build must refuse.
#include "harness/model/occupancy.hpp"
#include "harness/measure/timer.hpp"
