// `tensorcast routes [--target NAME]`: the run-time tuning in force, then the route plan,
// one line per ordered pair of the castable types: SRC DST ROUTE DETAIL, then the number
// of pairs per route. Uses only the public tensorcast API (DescribeTuning, DescribeRoute,
// CompiledTargetNames).
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <tensorcast/tensorcast.h>

#include "commands.h"

namespace tensorcast {
namespace cli {

namespace {

std::string Bytes(size_t b) {
  if (b >= (size_t{1} << 20) && b % (size_t{1} << 20) == 0) return std::to_string(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " bytes";
}

}  // namespace

std::string TuningLine() {
  TuningInfo t;
  if (!DescribeTuning(&t).ok()) return "tuning: unknown (out of memory)";
  std::string line = "prefetch: ";
  line += t.prefetch_bytes == 0 ? "off" : std::to_string(t.prefetch_bytes) + " bytes";
  line += " (" + t.prefetch_source + "); non-temporal stores from: cast " +
          Bytes(t.cast_stream_bytes) + ", sub-byte " + Bytes(t.subbyte_stream_bytes) + ", table " +
          Bytes(t.table_stream_bytes) + ", two-step " + Bytes(t.hub_stream_bytes) + ", Split " +
          Bytes(t.split_stream_bytes) + " (last-level cache ";
  line += t.llc_bytes == 0
              ? std::string("unknown")
              : Bytes(t.llc_bytes) + " shared by " + std::to_string(t.llc_shared_cpus) + " CPU" +
                    (t.llc_shared_cpus == 1 ? "" : "s");
  return line + ")";
}

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
  std::printf(")\n# %s\n# SRC DST ROUTE DETAIL\n", TuningLine().c_str());
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
