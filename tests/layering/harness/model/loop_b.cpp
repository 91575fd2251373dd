// A fixture of the layering check: loop_b and loop_a include each other (a circle inside a layer).
#include "harness/model/loop_a.hpp"
