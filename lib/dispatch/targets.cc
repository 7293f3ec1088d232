// foreach_target TU of the per-target facts that the route plan needs: the target's name
// and its capabilities (lib/kernels/capabilities-inl.h). TargetFactsAt reads the facts of
// any compiled target, so the plan of a target other than the active one can be shown.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/targets.cc"
#include "lib/dispatch/targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/capabilities-inl.h"
#include "tensorcast/cast.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {

dispatch::TargetFacts TargetFactsImpl() {
  dispatch::TargetFacts facts;
  facts.name = hwy::TargetName(HWY_TARGET);
  facts.target = HWY_TARGET;
  facts.table_planes_8 = TablePlanes(8);
  facts.table_planes_subbyte = TablePlanes(4) && TablePlanes(2);
  return facts;
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tensorcast {
namespace dispatch {

HWY_EXPORT(TargetFactsImpl);

namespace {
constexpr size_t kTableSize =
    sizeof(HWY_DISPATCH_TABLE(TargetFactsImpl)) / sizeof(HWY_DISPATCH_TABLE(TargetFactsImpl)[0]);
}  // namespace

size_t TargetIndexLimit() { return kTableSize; }

size_t ActiveTargetIndex() {
  if (kTableSize == 1) return 0;  // one target compiled: static dispatch
  size_t index = hwy::GetChosenTarget().GetIndex();
  if (index == 0) {
    // Entry 0 chooses the target on its first call (and after a test changes the
    // supported targets); calling through it makes the choice.
    (void)HWY_DYNAMIC_DISPATCH(TargetFactsImpl)();
    index = hwy::GetChosenTarget().GetIndex();
  }
  return index;
}

bool TargetFactsAt(size_t index, TargetFacts* out) {
  // Entry 0 of a dispatch table is the chooser, not a target.
  if (index >= kTableSize || (kTableSize > 1 && index == 0)) return false;
  const auto fn = HWY_DISPATCH_TABLE(TargetFactsImpl)[index];
  if (fn == nullptr) return false;
  *out = fn();
  return true;
}

namespace {
const char* ActiveName() { return HWY_DYNAMIC_DISPATCH(TargetFactsImpl)().name; }
}  // namespace

}  // namespace dispatch

const char* ActiveTargetName() noexcept { return dispatch::ActiveName(); }

}  // namespace tensorcast
#endif  // HWY_ONCE
