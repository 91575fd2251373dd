// A fixture of the layering test (tests/CMakeLists.txt): a model file that includes its own layer
// and the family layer below it, which the build accepts.
#include "harness/model/occupancy.hpp"
#include "harness/family/registry.hpp"
