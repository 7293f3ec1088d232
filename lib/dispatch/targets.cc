// Highway dynamic dispatch entry point. Bulk kernels (lib/kernels/*-inl.h) are
// compiled once per target through foreach_target and selected at run time;
// this TU reports which target HWY_DYNAMIC_DISPATCH selects on this CPU.
#include <cstddef>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/targets.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "tensorcast/cast.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {

const char* TargetNameImpl() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tensorcast {

HWY_EXPORT(TargetNameImpl);

const char* ActiveTargetName() noexcept { return HWY_DYNAMIC_DISPATCH(TargetNameImpl)(); }

}  // namespace tensorcast
#endif  // HWY_ONCE
