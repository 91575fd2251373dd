// The built-in families. A new family adds its register function here (see README).
#include "harness/registry.hpp"
#include "kernels/adjacent_difference/adjacent_difference.hpp"
#include "kernels/covariance/covariance.hpp"

namespace occbench {

const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    r.add(adjacent_difference::make_family());
    r.add(covariance::make_family());
    return r;
  }();
  return registry;
}

}  // namespace occbench
