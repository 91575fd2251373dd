// The built-in families. A new family adds its register function here (docs/adding-a-family.md).
#include "kernels/families.hpp"

#include "kernels/adjacent_difference/adjacent_difference.hpp"
#include "kernels/cost_volume/cost_volume.hpp"
#include "kernels/covariance/covariance.hpp"
#include "kernels/matmul/matmul.hpp"
#include "kernels/stencil/stencil.hpp"
#include "kernels/transpose/transpose.hpp"

namespace occbench {

const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    r.add(adjacent_difference::make_family());
    r.add(covariance::make_family());
    r.add(matmul::make_family());
    r.add(transpose::make_family());
    r.add(stencil::make_family());
    r.add(cost_volume::make_family());
    return r;
  }();
  return registry;
}

}  // namespace occbench
