// occbench's command line over the built-in families, built from the installed package: a
// program of one's own would add its families to the registry here.
#include "harness/cli/cli.hpp"
#include "kernels/families.hpp"

int main(int argc, char** argv) {
  occbench::Registry registry = occbench::builtin_registry();
  return occbench::cli_main(argc, argv, registry);
}
