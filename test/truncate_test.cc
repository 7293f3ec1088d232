// Regression test for lib/kernels/truncate-inl.h: TruncateToBytes (modular narrowing of
// unsigned lanes) must match static_cast on every target for every lane-type pair and
// every vector size, including the AVX3_DL cases where Highway 1.0.3's own TruncateTo
// is wrong (u32 -> u8 from 512 bits; everything but u64 -> u32 from 256 bits).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "test/truncate_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/truncate-inl.h"

#include <cstddef>
#include <cstdint>

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace {

// Wrong lanes of TruncateToBytes<sizeof(TT)> on vectors of at most kLanes TF lanes.
template <typename TF, typename TT, size_t kLanes>
size_t WrongLanes() {
  const hn::CappedTag<TF, kLanes> df;
  const hn::Rebind<TT, decltype(df)> dt;
  const size_t n = hn::Lanes(df);
  HWY_ALIGN TF in[HWY_MAX_BYTES / sizeof(TF)];
  HWY_ALIGN TT out[HWY_MAX_BYTES / sizeof(TF)];
  size_t wrong = 0;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int rep = 0; rep < 64; ++rep) {
    for (size_t i = 0; i < n; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      in[i] = static_cast<TF>(state >> (rep % 8));
    }
    hn::Store(TruncateToBytes<sizeof(TT)>(df, hn::Load(df, in)), dt, out);
    for (size_t i = 0; i < n; ++i) wrong += out[i] != static_cast<TT>(in[i]);
  }
  return wrong;
}

template <typename TF, typename TT>
size_t WrongLanesAllSizes() {
  return WrongLanes<TF, TT, 1>() + WrongLanes<TF, TT, 2>() + WrongLanes<TF, TT, 4>() +
         WrongLanes<TF, TT, 8>() + WrongLanes<TF, TT, 16>() + WrongLanes<TF, TT, 32>();
}

}  // namespace

size_t TruncateWrongLanes() {
  return WrongLanesAllSizes<uint16_t, uint8_t>() + WrongLanesAllSizes<uint32_t, uint16_t>() +
         WrongLanesAllSizes<uint32_t, uint8_t>() + WrongLanesAllSizes<uint64_t, uint32_t>() +
         WrongLanesAllSizes<uint64_t, uint16_t>() + WrongLanesAllSizes<uint64_t, uint8_t>();
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>

#include "test/target_loop.h"

namespace tensorcast {
namespace {

HWY_EXPORT(TruncateWrongLanes);

TEST(TruncateToBytes, IsModularOnEveryVectorSizeAndTarget) {
  test::TargetLoop loop;
  loop.Run([] {
    EXPECT_EQ(HWY_DYNAMIC_DISPATCH(TruncateWrongLanes)(), 0u) << "on " << ActiveTargetName();
  });
}

}  // namespace
}  // namespace tensorcast
#endif  // HWY_ONCE
