// lib/tuning.h's run-time values: the TENSORCAST_PREFETCH_BYTES rule and the streaming
// thresholds that follow the last-level cache. The expected values come from the rules as
// documented in lib/tuning.h and docs/performance.md, and the cache sizes from the fake
// sysfs values written here (the behaviour of the installed binary under the environment
// variable is checked by the cli_routes_prefetch_* tests).
#include "lib/tuning.h"

#include <gtest/gtest.h>
#include <tensorcast/tensorcast.h>

#include "lib/cache_info.h"

namespace tensorcast {
namespace {

using tuning::ParsePrefetchBytes;
using tuning::PrefetchSource;

constexpr size_t kKiB = size_t{1} << 10;
constexpr size_t kMiB = size_t{1} << 20;

TEST(Tuning, PrefetchBytesUnsetIsTheDefault) {
  const auto p = ParsePrefetchBytes(nullptr);
  EXPECT_EQ(p.bytes, 2048u);
  EXPECT_EQ(p.source, PrefetchSource::kDefault);
}

TEST(Tuning, PrefetchBytesZeroTurnsPrefetchingOff) {
  const auto p = ParsePrefetchBytes("0");
  EXPECT_EQ(p.bytes, 0u);
  EXPECT_EQ(p.source, PrefetchSource::kEnvironment);
}

TEST(Tuning, PrefetchBytesTakesDecimalBytesUpTo64KiB) {
  EXPECT_EQ(ParsePrefetchBytes("1").bytes, 1u);
  EXPECT_EQ(ParsePrefetchBytes("1024").bytes, 1024u);
  EXPECT_EQ(ParsePrefetchBytes("00512").bytes, 512u);
  EXPECT_EQ(ParsePrefetchBytes("65536").bytes, 65536u);
  EXPECT_EQ(ParsePrefetchBytes("65536").source, PrefetchSource::kEnvironment);
}

TEST(Tuning, MalformedPrefetchBytesAreIgnored) {
  for (const char* bad : {"", " ", "abc", "2k", "2K", "-1", "+64", "1.5", "0x40", "65537", "100000",
                          "999999999999999999999", "64 ", " 64", "1e3"}) {
    const auto p = ParsePrefetchBytes(bad);
    EXPECT_EQ(p.bytes, 2048u) << "'" << bad << "'";
    EXPECT_EQ(p.source, PrefetchSource::kMalformed) << "'" << bad << "'";
  }
}

// The thresholds for a machine whose last-level cache has `per_core` bytes per CPU.
struct Thresholds {
  size_t cast, subbyte, table, hub, split;
};
Thresholds For(size_t per_core) {
  return {tuning::ScaledStreamBytes(tuning::kCastLoopStreamBytes, per_core),
          tuning::ScaledStreamBytes(tuning::kSubbyteStreamBytes, per_core),
          tuning::ScaledStreamBytes(tuning::kTableStreamBytes, per_core),
          tuning::ScaledStreamBytes(tuning::kHubStreamBytes, per_core),
          tuning::ScaledStreamBytes(tuning::kSplitStreamBytes, per_core)};
}

// A VM that reports its host's 480 MiB L3 as shared by its 2 vCPUs (an Intel Xeon VM the
// team measured): 240 MiB per CPU, so every threshold stays at its cap.
TEST(Tuning, HugeReportedCacheKeepsTheCaps) {
  const Thresholds t = For(480 * kMiB / 2);
  EXPECT_EQ(t.cast, 4 * kMiB);
  EXPECT_EQ(t.subbyte, 8 * kMiB);
  EXPECT_EQ(t.table, 4 * kMiB);
  EXPECT_EQ(t.hub, 4 * kMiB);
  EXPECT_EQ(t.split, 16 * kMiB);
}

// The machines the caps were measured on: 32 MiB shared by 2 vCPUs.
TEST(Tuning, ReferenceCacheGivesTheCaps) {
  const Thresholds t = For(16 * kMiB);
  EXPECT_EQ(t.cast, 4 * kMiB);
  EXPECT_EQ(t.subbyte, 8 * kMiB);
  EXPECT_EQ(t.split, 16 * kMiB);
}

// 2 MiB per core (a server L3 slice): an eighth of the reference share.
TEST(Tuning, SmallerCacheStreamsEarlier) {
  const Thresholds t = For(2 * kMiB);
  EXPECT_EQ(t.cast, 512 * kKiB);
  EXPECT_EQ(t.subbyte, 1 * kMiB);
  EXPECT_EQ(t.table, 512 * kKiB);
  EXPECT_EQ(t.hub, 512 * kKiB);
  EXPECT_EQ(t.split, 2 * kMiB);
}

TEST(Tuning, TinyCacheStopsAtTheFloor) {
  const Thresholds t = For(256 * kKiB);
  EXPECT_EQ(t.cast, 256 * kKiB);
  EXPECT_EQ(t.split, 256 * kKiB);
}

TEST(Tuning, UnknownCacheKeepsTheCaps) {
  const Thresholds t = For(0);
  EXPECT_EQ(t.cast, 4 * kMiB);
  EXPECT_EQ(t.split, 16 * kMiB);
}

// The tuning the public API reports is the one the rules give on this machine.
TEST(Tuning, DescribeTuningReportsTheValuesInForce) {
  TuningInfo info;
  ASSERT_TRUE(DescribeTuning(&info).ok());
  EXPECT_EQ(info.prefetch_bytes, tuning::PrefetchBytes());
  const auto& c = cache_info::SystemCacheSizes();
  EXPECT_EQ(info.llc_bytes, c.llc_bytes);
  EXPECT_EQ(info.llc_shared_cpus, c.llc_shared_cpus);
  const size_t per_core = cache_info::LlcPerCoreBytes(c);
  const size_t override_bytes = tuning::SetStreamBytesForTest(0);
  EXPECT_EQ(info.cast_stream_bytes,
            override_bytes != 0 ? override_bytes : tuning::ScaledStreamBytes(4 * kMiB, per_core));
  tuning::SetStreamBytesForTest(override_bytes);
  EXPECT_FALSE(DescribeTuning(nullptr).ok());
}

}  // namespace
}  // namespace tensorcast
