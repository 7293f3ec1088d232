// The compiled Highway targets and their facts (internal). A target is named by its index
// in Highway's dispatch tables: the value hwy::GetChosenTarget().GetIndex() takes while
// that target is active. Every foreach_target TU of the library compiles the same targets,
// so the index is the same in all of them.
#ifndef TENSORCAST_LIB_DISPATCH_TARGETS_H_
#define TENSORCAST_LIB_DISPATCH_TARGETS_H_

#include <cstddef>
#include <cstdint>

namespace tensorcast {
namespace dispatch {

struct TargetFacts {
  const char* name = "";              // hwy::TargetName, e.g. "AVX3_DL"
  int64_t target = 0;                 // the HWY_TARGET bit
  bool table_planes_8 = false;        // TablePlanes(8): 8-bit sources -> 16+ bit targets
  bool table_planes_subbyte = false;  // TablePlanes(4 and 2)
};

// Indices are below this bound.
size_t TargetIndexLimit();

// The index of the target that dynamic dispatch uses now (choosing it if not yet chosen).
size_t ActiveTargetIndex();

// The facts of the target at `index`; false when no target is compiled at that index.
// Targets that this CPU cannot run are compiled too: callers check hwy::SupportedTargets().
bool TargetFactsAt(size_t index, TargetFacts* out);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_TARGETS_H_
