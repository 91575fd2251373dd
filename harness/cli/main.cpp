#include "harness/cli/cli.hpp"
#include "kernels/families.hpp"

int main(int argc, char** argv) { return occbench::cli_main(argc, argv, occbench::builtin_registry()); }
