// Prints the Highway target tensorcast dispatches to on this CPU. test/run_on_target.sh
// runs it under qemu to check that an emulated CPU model selects the intended target
// (aarch64 cross build, see test/CMakeLists.txt).
#include <cstdio>

#include "tensorcast/cast.h"

int main() {
  std::printf("%s\n", tensorcast::ActiveTargetName());
  return 0;
}
