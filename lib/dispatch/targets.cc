// Highway dynamic dispatch entry point. Bulk kernels (lib/kernels/*-inl.h) are
// compiled once per target through foreach_target and selected at run time;
// this TU reports which target HWY_DYNAMIC_DISPATCH selects on this CPU.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

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

// Placeholders until the route plan lands: the active target only, no routes.
std::vector<std::string> CompiledTargetNames() { return {ActiveTargetName()}; }

const char* RouteName(Route route) noexcept {
  switch (route) {
    case Route::kKernel: return "kernel";
    case Route::kTable: return "table";
    case Route::kHub: return "hub";
    case Route::kCopy: return "copy";
    case Route::kStrings: return "strings";
  }
  return "invalid";
}

Status DescribeRoute(DataType, DataType, std::string_view, RouteInfo*) {
  return Status(StatusCode::kUnsupported, "DescribeRoute: not implemented yet");
}

}  // namespace tensorcast
#endif  // HWY_ONCE
