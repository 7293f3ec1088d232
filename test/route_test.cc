// The route plan through the public API: every ordered pair of the castable types has a
// route on every compiled target this CPU supports; no numeric pair is left to scalar
// code; the routes follow the documented rules; DescribeRoute reports bad arguments.
// (That every route gives the reference's bits is checked per pair and target by the
// kernel tests.)
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensorcast/tensorcast.h"

namespace tensorcast {
namespace {

std::vector<DataType> CastableTypes() {
  std::vector<DataType> types;
  for (int code = 1; code <= kMaxDataTypeCode; ++code) {
    if (IsCastable(static_cast<DataType>(code))) types.push_back(static_cast<DataType>(code));
  }
  return types;
}

std::string PairName(DataType src, DataType dst) {
  return std::string(DataTypeName(src)) + " -> " + DataTypeName(dst);
}

RouteInfo Describe(DataType src, DataType dst, const std::string& target = "") {
  RouteInfo info;
  const Status s = DescribeRoute(src, dst, target, &info);
  EXPECT_TRUE(s.ok()) << PairName(src, dst) << " on '" << target << "': " << s.message();
  return info;
}

TEST(RoutePlan, TwentySixCastableTypes) { EXPECT_EQ(CastableTypes().size(), 26u); }

TEST(RoutePlan, CompiledTargetsIncludeTheActiveOne) {
  const std::vector<std::string> targets = CompiledTargetNames();
  ASSERT_FALSE(targets.empty());
  bool active = false;
  for (const std::string& t : targets) active = active || t == ActiveTargetName();
  EXPECT_TRUE(active) << ActiveTargetName() << " is not among the compiled targets";
}

TEST(RoutePlan, NoNumericPairRoutesToScalarCodeOnAnyTarget) {
  for (const std::string& target : CompiledTargetNames()) {
    for (DataType src : CastableTypes()) {
      for (DataType dst : CastableTypes()) {
        RouteInfo info;
        const Status s = DescribeRoute(src, dst, target, &info);
        ASSERT_TRUE(s.ok()) << PairName(src, dst) << " on " << target << ": " << s.message();
        const bool strings = src == DataType::kString || dst == DataType::kString;
        if (strings) {
          EXPECT_EQ(info.route, Route::kStrings) << PairName(src, dst) << " on " << target;
          continue;
        }
        EXPECT_NE(info.route, Route::kStrings) << PairName(src, dst) << " on " << target;
        EXPECT_FALSE(info.detail.empty()) << PairName(src, dst) << " on " << target;
        if (info.small_below != 0) {
          EXPECT_NE(info.small_route, Route::kStrings) << PairName(src, dst) << " on " << target;
          EXPECT_NE(info.small_route, info.route) << PairName(src, dst) << " on " << target;
          EXPECT_FALSE(info.small_detail.empty()) << PairName(src, dst) << " on " << target;
        } else {
          EXPECT_EQ(info.small_route, info.route) << PairName(src, dst) << " on " << target;
        }
      }
    }
  }
}

TEST(RoutePlan, SameTypeIsACopy) {
  for (DataType t : CastableTypes()) {
    if (t == DataType::kString) continue;
    EXPECT_EQ(Describe(t, t).route, Route::kCopy) << DataTypeName(t);
  }
}

TEST(RoutePlan, SubByteIntegersOfOneWidthWrapToACopy) {
  EXPECT_EQ(Describe(DataType::kInt4, DataType::kUint4).route, Route::kCopy);
  EXPECT_EQ(Describe(DataType::kUint4, DataType::kInt4).route, Route::kCopy);
  EXPECT_EQ(Describe(DataType::kInt2, DataType::kUint2).route, Route::kCopy);
  EXPECT_EQ(Describe(DataType::kUint2, DataType::kInt2).route, Route::kCopy);
}

TEST(RoutePlan, HotFloatPairsHaveTheirOwnKernel) {
  const RouteInfo f32_f16 = Describe(DataType::kFloat, DataType::kFloat16);
  EXPECT_EQ(f32_f16.route, Route::kKernel);
  EXPECT_EQ(f32_f16.detail, "CastF32ToF16");
  EXPECT_EQ(f32_f16.small_below, 0u);
  EXPECT_EQ(Describe(DataType::kFloat, DataType::kFloat8E4M3FN).route, Route::kKernel);
  EXPECT_EQ(Describe(DataType::kDouble, DataType::kFloat).route, Route::kKernel);
}

TEST(RoutePlan, Float8ToFloat8IsATableAboveTheThresholdAndAHubBelow) {
  // No kernel of its own; both types have 256 codes.
  const RouteInfo info = Describe(DataType::kFloat8E4M3FN, DataType::kFloat8E5M2);
  EXPECT_EQ(info.route, Route::kTable);
  EXPECT_EQ(info.small_below, 4096u);
  EXPECT_EQ(info.small_route, Route::kHub);
  EXPECT_NE(info.small_detail.find("CastF8E4M3FNToF32"), std::string::npos) << info.small_detail;
}

TEST(RoutePlan, StringPairsUseTheStringCodec) {
  EXPECT_EQ(Describe(DataType::kString, DataType::kFloat).route, Route::kStrings);
  EXPECT_EQ(Describe(DataType::kFloat8E4M3FN, DataType::kString).route, Route::kStrings);
  EXPECT_EQ(Describe(DataType::kString, DataType::kString).route, Route::kStrings);
}

// Parsing names the scan of the target: the window scan on AVX3_DL, the scalar scan on
// every other target (lib/text/scan_targets.h).
TEST(RoutePlan, ParsingNamesTheScanOfEachTarget) {
  for (const std::string& target : CompiledTargetNames()) {
    RouteInfo info;
    ASSERT_TRUE(DescribeRoute(DataType::kString, DataType::kDouble, target, &info).ok()) << target;
    const std::string scan = target == "AVX3_DL" ? "window scan (AVX3_DL)" : "scalar scan";
    EXPECT_EQ(info.detail, "string codec (" + scan + ")") << target;
    ASSERT_TRUE(DescribeRoute(DataType::kDouble, DataType::kString, target, &info).ok());
    EXPECT_EQ(info.detail, "string codec (shortest digits)") << target;
  }
}

TEST(RoutePlan, RouteNames) {
  EXPECT_STREQ(RouteName(Route::kKernel), "kernel");
  EXPECT_STREQ(RouteName(Route::kTable), "table");
  EXPECT_STREQ(RouteName(Route::kHub), "hub");
  EXPECT_STREQ(RouteName(Route::kCopy), "copy");
  EXPECT_STREQ(RouteName(Route::kStrings), "strings");
  EXPECT_STREQ(RouteName(static_cast<Route>(99)), "invalid");
}

TEST(RoutePlan, DescribeRouteRejectsBadArguments) {
  RouteInfo info;
  EXPECT_EQ(DescribeRoute(DataType::kFloat, DataType::kFloat16, "", nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(DescribeRoute(static_cast<DataType>(99), DataType::kFloat16, "", &info).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(DescribeRoute(DataType::kFloat, DataType::kComplex64, "", &info).code(),
            StatusCode::kUnsupported);
  const Status s = DescribeRoute(DataType::kFloat, DataType::kFloat16, "NO_SUCH_TARGET", &info);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("NO_SUCH_TARGET"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tensorcast
