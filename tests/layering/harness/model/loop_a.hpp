#pragma once
// A fixture of the layering check: loop_a and loop_b include each other (a circle inside a layer).
#include "harness/model/loop_b.hpp"
