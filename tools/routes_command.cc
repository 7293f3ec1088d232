// `tensorcast routes [--target NAME]`: the route plan, one line per ordered pair of the
// castable types: SRC DST ROUTE DETAIL, then the number of pairs per route.
// Uses only the public tensorcast API (DescribeRoute, CompiledTargetNames).
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <tensorcast/tensorcast.h>

#include "commands.h"

namespace tensorcast {
namespace cli {

int RunRoutes(const std::vector<std::string>& args) {
  std::string target;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string name = OptionName(args[i]);
    if (name != "--target") {
      return Fail(kExitUsage, "routes: unknown argument '" + args[i] + "' (see tensorcast --help)");
    }
    if (!OptionValue(args, &i, &target)) return Fail(kExitUsage, "option --target needs a value");
  }
  const std::vector<std::string> targets = CompiledTargetNames();
  if (!target.empty()) {
    bool known = false;
    std::string names;
    for (const std::string& t : targets) {
      known = known || t == target;
      names += (names.empty() ? "" : ", ") + t;
    }
    if (!known) {
      return Fail(kExitUsage, "routes: --target " + target +
                                  " is not a compiled target that this CPU supports (" + names +
                                  ")");
    }
  }
  std::printf("# target %s (compiled and supported here:",
              target.empty() ? ActiveTargetName() : target.c_str());
  for (const std::string& t : targets) std::printf(" %s", t.c_str());
  std::printf(")\n# SRC DST ROUTE DETAIL\n");
  std::map<std::string, int> counts;
  for (int from = 1; from <= kMaxDataTypeCode; ++from) {
    const auto src = static_cast<DataType>(from);
    if (!IsCastable(src)) continue;
    for (int to = 1; to <= kMaxDataTypeCode; ++to) {
      const auto dst = static_cast<DataType>(to);
      if (!IsCastable(dst)) continue;
      RouteInfo info;
      const Status s = DescribeRoute(src, dst, target, &info);
      if (!s.ok()) {
        return Fail(kExitRuntime, std::string("routes: ") + DataTypeName(src) + " -> " +
                                      DataTypeName(dst) + ": " + s.message());
      }
      std::string detail = info.detail;
      if (info.small_below != 0) {
        detail += "; below " + std::to_string(info.small_below) + ": " +
                  RouteName(info.small_route) + " " + info.small_detail;
      }
      std::printf("%s %s %s %s\n", DataTypeName(src), DataTypeName(dst), RouteName(info.route),
                  detail.c_str());
      ++counts[RouteName(info.route)];
    }
  }
  std::printf("# pairs per route:");
  for (const auto& [route, n] : counts) std::printf(" %s %d", route.c_str(), n);
  std::printf("\n");
  return kExitOk;
}

}  // namespace cli
}  // namespace tensorcast
