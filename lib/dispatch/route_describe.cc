// Describing the route plan (route_plan.h): the public introspection of
// tensorcast/introspection.h over the plan's entries.
#include <string>
#include <utility>
#include <vector>

#include "lib/check.h"
#include "lib/dispatch/route_plan.h"
#include "lib/text/scan_targets.h"
#include "lib/type_facts.h"
#include "tensorcast/introspection.h"

namespace tensorcast {
namespace dispatch {
namespace {

std::string KernelName(const KernelRow* row) { return row != nullptr ? row->name : "?"; }

// `index`: the target's, for the scan that parses texts there.
std::string Detail(Route route, const Entry& e, DataType src, DataType dst, size_t index) {
  switch (route) {
    case Route::kKernel: return KernelName(e.row);
    case Route::kTable:
      return std::string("TableLookup ") + std::to_string(BitWidth(src)) + " -> " +
             std::to_string(BitWidth(dst)) + " bits" +
             (BitWidth(dst) >= 16 ? (e.table_sign_extend ? " (two byte planes, sign-extended)"
                                                         : " (two byte planes)")
                                  : "");
    case Route::kHub: {
      std::string first = e.odd_decode.fn != nullptr ? e.odd_decode.name
                          : e.decode != nullptr      ? e.decode->name
                                                     : "";
      std::string second = e.encode != nullptr ? e.encode->name : "";
      std::string s = first.empty() ? second : second.empty() ? first : first + " + " + second;
      return s + " (via " + DataTypeName(e.mid) + (e.stream ? ", streamed when large)" : ")");
    }
    case Route::kCopy:
      if (e.hub_when_saturating) {
        return "memcpy; saturate=1: " + KernelName(e.decode) + " + " + KernelName(e.encode);
      }
      return src == dst ? "memcpy" : "memcpy, padding bits cleared";
    case Route::kStrings: {
      if (src == DataType::kString && dst == DataType::kString) return "string codec (a copy)";
      if (dst == DataType::kString) return "string codec (shortest digits)";
      const char* scan = text::ScanNameAt(index);
      return std::string("string codec (") + (scan != nullptr ? scan : "?") + ")";
    }
  }
  return "";
}

}  // namespace
}  // namespace dispatch

std::vector<std::string> CompiledTargetNames() {
  std::vector<std::string> names;
  for (const dispatch::CompiledTarget& t : dispatch::CompiledTargets()) {
    names.emplace_back(t.facts.name);
  }
  return names;
}

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

Status DescribeRoute(DataType src, DataType dst, std::string_view target, RouteInfo* out) {
  return check::Guarded("DescribeRoute", [&]() -> Status {
    if (out == nullptr) return check::NullOutputError("out");
    if (!check::IsCastType(src)) return check::CastTypeError(src, "source type");
    if (!check::IsCastType(dst)) return check::CastTypeError(dst, "target type");
    size_t index = 0;
    if (target.empty()) {
      index = dispatch::ActiveTargetIndex();
    } else {
      bool found = false;
      std::string names;
      for (const dispatch::CompiledTarget& t : dispatch::CompiledTargets()) {
        if (target == t.facts.name) {
          index = t.index;
          found = true;
        }
        names += names.empty() ? t.facts.name : std::string(", ") + t.facts.name;
      }
      if (!found) {
        return Status(StatusCode::kInvalidArgument,
                      "target: \"" + std::string(target) +
                          "\" is not a compiled target that this CPU supports (" + names + ")");
      }
    }
    const dispatch::Plan* plan = dispatch::PlanAt(index);
    if (plan == nullptr) return Status(StatusCode::kInternal, "no plan for the target");
    const dispatch::Entry& e = plan->entries[static_cast<size_t>(src)][static_cast<size_t>(dst)];
    if (!e.planned) {
      return Status(StatusCode::kInternal,
                    std::string("no route for ") + DataTypeName(src) + " -> " + DataTypeName(dst));
    }
    RouteInfo info;
    info.route = e.route;
    info.detail = dispatch::Detail(e.route, e, src, dst, index);
    if (e.table_min_count != 0) {
      info.small_below = e.table_min_count;
      info.small_route = e.small_route;
      info.small_detail = dispatch::Detail(e.small_route, e, src, dst, index);
    } else {
      info.small_route = e.route;
    }
    *out = std::move(info);
    return Status::Ok();
  });
}

}  // namespace tensorcast
