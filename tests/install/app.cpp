// An application on the installed occbench::launch: it builds and links against the package (a
// kernel is declared; nothing is launched, for the install check runs without a GPU).
#include "launch/launch.hpp"

#include <iostream>

int main() {
  occbench::launch::KernelDeclaration scale;
  scale.name = "scale";
  scale.parameters = {{"BLOCK", 256}};
  std::cout << occbench::sizes_text({{"n", 1 << 20}}) << "\n";
  return 0;
}
