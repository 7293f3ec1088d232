// Cast, CastLike and Split through a Runner give the same bytes as on one thread: every
// numeric pair and option at counts just past the parallel threshold, strings (the first
// bad element in index order is reported as serially), Arrow's string layout both ways
// (nulls, the first of a bad text and a null, roomy and exact output capacities), Split's
// row and chunk cuts, runners that run tasks in reverse or shuffled order on several
// threads, a runner that fails, the ThreadPool (concurrent calls, calls from inside its
// tasks, fork), and the C API's options.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lib/tuning.h"
#include "tensorcast/tensorcast.h"
#include "tensorcast/tensorcast_c.h"

namespace tensorcast {
namespace {

using Bytes = std::vector<uint8_t>;

// Runs the tasks on `threads` std::threads in the order of `order` (a permutation of the
// task indices, built per call by make_order), counting calls and tasks.
struct OrderedRunner {
  enum Order { kReverse, kShuffled };
  Order order = kReverse;
  int threads = 3;
  std::atomic<size_t> calls{0}, tasks{0};
  Runner runner{this, &Run};

  static int Run(void* opaque, size_t num_tasks, TaskFunction task, void* ctx) {
    auto* self = static_cast<OrderedRunner*>(opaque);
    self->calls.fetch_add(1);
    std::vector<size_t> order(num_tasks);
    std::iota(order.begin(), order.end(), size_t{0});
    if (self->order == kReverse) {
      std::reverse(order.begin(), order.end());
    } else {
      std::shuffle(order.begin(), order.end(), std::mt19937(static_cast<unsigned>(num_tasks)));
    }
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < self->threads; ++t) {
      pool.emplace_back([&] {
        for (size_t i; (i = next.fetch_add(1)) < num_tasks;) {
          task(ctx, order[i]);
          self->tasks.fetch_add(1);
        }
      });
    }
    for (std::thread& th : pool) th.join();
    return 0;
  }
};

// Runs the first half of the tasks, then reports a failure.
struct FailingRunner {
  Runner runner{this, &Run};
  static int Run(void*, size_t num_tasks, TaskFunction task, void* ctx) {
    for (size_t i = 0; i < num_tasks / 2; ++i) task(ctx, i);
    return 1;
  }
};

std::vector<DataType> NumericTypes() {
  std::vector<DataType> types;
  for (int code = 1; code <= kMaxDataTypeCode; ++code) {
    const auto t = static_cast<DataType>(code);
    if (IsCastable(t) && t != DataType::kString) types.push_back(t);
  }
  return types;
}

Bytes RandomBytes(size_t n, unsigned seed) {
  Bytes b(n);
  std::mt19937 rng(seed);
  for (uint8_t& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

// A count past the parallel threshold for the pair, odd, so the last chunk is partial.
size_t ParallelCount(DataType src, DataType dst) {
  const size_t bits = static_cast<size_t>(BitWidth(src) + BitWidth(dst));
  return tuning::kParallelMinBytes * 8 / bits * 3 / 2 + 777;
}

// A valid source of `count` elements: BOOL bytes 0/1, packed padding zero.
Bytes Source(DataType type, size_t count, unsigned seed) {
  Bytes b = RandomBytes(StorageBytes(type, count), seed);
  if (type == DataType::kBool) {
    for (uint8_t& x : b) x &= 1;
  }
  const size_t bits = count * static_cast<size_t>(BitWidth(type));
  if (bits % 8 != 0) b.back() = static_cast<uint8_t>(b.back() & ((1u << (bits % 8)) - 1));
  return b;
}

TEST(ParallelCast, EveryNumericPairAndOptionGivesTheSerialBytes) {
  OrderedRunner reverse;
  OrderedRunner shuffled;
  shuffled.order = OrderedRunner::kShuffled;
  const std::vector<DataType> types = NumericTypes();
  unsigned seed = 1;
  for (DataType st : types) {
    for (DataType dt : types) {
      const size_t count = ParallelCount(st, dt);
      const Bytes src = Source(st, count, seed++);
      for (int option = 0; option < 6; ++option) {
        CastOptions o;
        o.saturate = option % 2 == 0;
        o.round_mode = static_cast<RoundMode>(option / 2);
        // Only FLOAT8E8M0 targets read round_mode: one mode elsewhere.
        if (dt != DataType::kFloat8E8M0 && option >= 2) break;
        Bytes want(StorageBytes(dt, count), 0xA5);
        ASSERT_TRUE(Cast(src.data(), st, want.data(), dt, count, o).ok());
        for (OrderedRunner* r : {&reverse, &shuffled}) {
          Bytes got(want.size(), 0x5A);
          CastOptions po = o;
          po.runner = &r->runner;
          const size_t calls = r->calls.load();
          ASSERT_TRUE(Cast(src.data(), st, got.data(), dt, count, po).ok());
          ASSERT_EQ(r->calls.load(), calls + 1) << DataTypeName(st) << " -> " << DataTypeName(dt);
          ASSERT_TRUE(got == want)
              << DataTypeName(st) << " -> " << DataTypeName(dt) << " option " << option;
        }
      }
    }
  }
}

TEST(ParallelCast, SmallCallsRunInlineWithoutCallingTheRunner) {
  OrderedRunner r;
  CastOptions o;
  o.runner = &r.runner;
  std::vector<float> src(4096, 1.5f);
  std::vector<uint16_t> dst(src.size());
  ASSERT_TRUE(
      Cast(src.data(), DataType::kFloat, dst.data(), DataType::kFloat16, src.size(), o).ok());
  EXPECT_EQ(r.calls.load(), 0u);
  EXPECT_EQ(dst[4095], 0x3E00);
}

TEST(ParallelCast, AFailingRunnerStillGivesTheSerialBytes) {
  FailingRunner r;
  const size_t count = ParallelCount(DataType::kFloat, DataType::kFloat8E4M3FN) * 3;
  const Bytes src = Source(DataType::kFloat, count, 7);
  Bytes want(count), got(count, 0);
  ASSERT_TRUE(Cast(src.data(), DataType::kFloat, want.data(), DataType::kFloat8E4M3FN, count).ok());
  CastOptions o;
  o.runner = &r.runner;
  ASSERT_TRUE(
      Cast(src.data(), DataType::kFloat, got.data(), DataType::kFloat8E4M3FN, count, o).ok());
  EXPECT_TRUE(got == want);
}

TEST(ParallelCast, StringsBothWaysAndTheFirstBadElementInIndexOrder) {
  OrderedRunner r;
  r.order = OrderedRunner::kShuffled;
  CastOptions o;
  o.runner = &r.runner;
  const size_t count = 3 * tuning::kParallelStringMinElements + 5;
  std::vector<double> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<double>(i) * 0.37 - 100.0;
  std::vector<std::string> want(count), got(count);
  ASSERT_TRUE(Cast(values.data(), DataType::kDouble, want.data(), DataType::kString, count).ok());
  ASSERT_TRUE(Cast(values.data(), DataType::kDouble, got.data(), DataType::kString, count, o).ok());
  EXPECT_EQ(got, want);
  EXPECT_GT(r.calls.load(), 0u);

  // Two bad elements in different chunks: the first in index order is reported, with
  // every element before it written.
  std::vector<std::string> texts = want;
  texts[count - 10] = "bad late";
  texts[5000] = "bad early";
  std::vector<double> serial(count, -1.0), parallel(count, -1.0);
  const Status s = Cast(texts.data(), DataType::kString, serial.data(), DataType::kDouble, count);
  const Status p =
      Cast(texts.data(), DataType::kString, parallel.data(), DataType::kDouble, count, o);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_EQ(p.code(), s.code());
  EXPECT_EQ(p.message(), s.message());
  EXPECT_EQ(p.elements_written(), 5000u);
  EXPECT_TRUE(std::equal(parallel.begin(), parallel.begin() + 5000, serial.begin()));
}

// ---- Arrow strings (tensorcast/strings.h) through a runner ------------------------------

// Past the parallel threshold of string casts, several tasks (1024 elements each at this
// size), odd and not a multiple of 64: the last task is partial and ends inside a byte of
// the packed outputs.
constexpr size_t kArrowCount = 5 * tuning::kParallelStringMinElements + 333;
static_assert(kArrowCount % 2 == 1 && kArrowCount % 64 != 0, "a partial last task");

// An Arrow column of `lead` elements ("lead", present) and then the texts, as utf8 and as
// large_utf8; a null's slot holds its text (never read as a number).
struct ArrowColumn {
  std::vector<int32_t> offsets32;
  std::vector<int64_t> offsets64;
  std::string data;
  Bytes validity;
  size_t lead = 0;

  ArrowColumn(const std::vector<std::string>& texts, const std::vector<bool>& present,
              size_t lead_elements)
      : lead(lead_elements) {
    const size_t n = lead + texts.size();
    offsets32.push_back(0);
    offsets64.push_back(0);
    validity.assign((n + 7) / 8, 0);
    for (size_t i = 0; i < n; ++i) {
      const bool valid = i < lead || present[i - lead];
      data += i < lead ? std::string("lead") : texts[i - lead];
      if (valid) validity[i / 8] = static_cast<uint8_t>(validity[i / 8] | (1u << (i % 8)));
      offsets32.push_back(static_cast<int32_t>(data.size()));
      offsets64.push_back(static_cast<int64_t>(data.size()));
    }
  }

  // The texts (after the lead) as an ArrowStrings sliced at `lead`.
  ArrowStrings View(int width, NullPolicy policy) const {
    ArrowStrings a;
    a.offsets = width == 8 ? static_cast<const void*>(offsets64.data()) : offsets32.data();
    a.offset_width = width;
    a.data = data.data();
    a.validity = validity.data();
    a.offset = static_cast<int64_t>(lead);
    a.null_policy = policy;
    return a;
  }
};

// A mix of spellings: shortest and 17-digit doubles over the whole range (the 128-bit fast
// path, and the reference for |q| > 27), 9-digit floats, positional decimals, integers,
// 25-digit texts with dropped digits, spaces, signed zeros, NaN and infinities, values
// beyond the narrow formats' ranges.
std::vector<std::string> NumberTexts(size_t count, unsigned seed) {
  static const char* const kWords[] = {"nan",  "-inf", "Infinity", " 1.5 ", "\t-0\n", "1e-50",
                                       "1e40", "448",  "465",      "0.25",  "-6.5",   "1e308"};
  std::mt19937_64 rng(seed);
  std::vector<std::string> texts(count);
  char buf[96];
  for (std::string& t : texts) {
    const uint64_t r = rng();
    const double unit = static_cast<double>(r >> 11) * 0x1p-53;
    switch (r % 8) {
      case 0:
        std::snprintf(buf, sizeof buf, "%.17g", (unit - 0.5) * std::pow(10.0, (r >> 3) % 17 - 8.0));
        break;
      case 1: std::snprintf(buf, sizeof buf, "%d", static_cast<int>(r % 601) - 300); break;
      case 2: std::snprintf(buf, sizeof buf, "%.3f", (unit - 0.5) * 40); break;
      case 3:
        std::snprintf(buf, sizeof buf, "%.9g",
                      static_cast<double>(static_cast<float>(unit * 1000 - 500)));
        break;
      case 4: std::snprintf(buf, sizeof buf, "%s", kWords[(r >> 3) % 12]); break;
      case 5:
        std::snprintf(buf, sizeof buf, "-%.24fe%d", unit * 9, static_cast<int>((r >> 3) % 9) - 4);
        break;
      case 6: {
        uint64_t bits = rng() & 0x7FEFFFFFFFFFFFFFull;
        double d;
        std::memcpy(&d, &bits, sizeof d);
        std::snprintf(buf, sizeof buf, "%.17g", d);
        break;
      }
      default:
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(r >> 24) - (1ll << 39));
        break;
    }
    t = buf;
  }
  return texts;
}

// Element i of a buffer of `type` as a code (packed types: their bits).
uint64_t Element(const Bytes& buf, DataType type, size_t i) {
  const int bits = BitWidth(type);
  if (bits == 4) return (buf[i / 2] >> (4 * (i % 2))) & 0xF;
  if (bits == 2) return (buf[i / 4] >> (2 * (i % 4))) & 0x3;
  uint64_t v = 0;
  std::memcpy(&v, buf.data() + i * static_cast<size_t>(bits) / 8, static_cast<size_t>(bits) / 8);
  return v;
}

// The first `n` elements of a and b are the same codes.
bool SamePrefix(const Bytes& a, const Bytes& b, DataType type, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (Element(a, type, i) != Element(b, type, i)) return false;
  }
  return true;
}

const DataType kArrowTargets[] = {
    DataType::kDouble,       DataType::kFloat,      DataType::kInt32, DataType::kFloat16,
    DataType::kFloat8E4M3FN, DataType::kFloat4E2M1, DataType::kInt4};

// Texts with every fifth element null (slots holding a word that is not a number, or
// nothing): CastFromArrowStrings under NullPolicy::kZero through `runner` (each offset
// width and target) gives the bytes of the serial call, and the runner is called.
void ExpectArrowParsesLikeSerial(Runner* runner, std::atomic<size_t>* calls) {
  std::vector<std::string> texts = NumberTexts(kArrowCount, 17);
  std::vector<bool> present(kArrowCount, true);
  for (size_t i = 2; i < kArrowCount; i += 5) {
    present[i] = false;
    texts[i] = i % 2 == 0 ? "null" : "";
  }
  const ArrowColumn column(texts, present, 5);
  for (int width : {4, 8}) {
    const ArrowStrings a = column.View(width, NullPolicy::kZero);
    for (DataType t : kArrowTargets) {
      Bytes want(StorageBytes(t, kArrowCount) + 1, 0xA5), got(want.size(), 0x5A);
      got.back() = 0xA5;
      const Status s = CastFromArrowStrings(a, want.data(), t, kArrowCount);
      ASSERT_TRUE(s.ok()) << DataTypeName(t) << ": " << s.message();
      CastOptions o;
      o.runner = runner;
      const size_t before = calls != nullptr ? calls->load() : 0;
      const Status p = CastFromArrowStrings(a, got.data(), t, kArrowCount, o);
      ASSERT_TRUE(p.ok()) << DataTypeName(t) << ": " << p.message();
      EXPECT_TRUE(got == want) << DataTypeName(t) << " offset_width " << width;
      if (calls != nullptr) {
        EXPECT_GT(calls->load(), before) << DataTypeName(t);
      }
      // Nulls are the zero code.
      EXPECT_EQ(Element(got, t, 2), 0u) << DataTypeName(t);
      EXPECT_EQ(Element(got, t, kArrowCount - 1 - (kArrowCount - 1 - 2) % 5), 0u);
    }
  }
}

TEST(ParallelArrowStrings, NullsAsZeroGiveTheSerialBytesForEveryKindOfTarget) {
  OrderedRunner reverse;
  OrderedRunner shuffled;
  shuffled.order = OrderedRunner::kShuffled;
  ExpectArrowParsesLikeSerial(&reverse.runner, &reverse.calls);
  ExpectArrowParsesLikeSerial(&shuffled.runner, &shuffled.calls);
}

// A column without nulls but for `nulls`, with `bad` texts that are not numbers.
ArrowColumn ColumnWithFaults(const std::vector<size_t>& bad, const std::vector<size_t>& nulls) {
  std::vector<std::string> texts = NumberTexts(kArrowCount, 23);
  std::vector<bool> present(kArrowCount, true);
  for (size_t i : bad) texts[i] = "bad text " + std::to_string(i);
  for (size_t i : nulls) present[i] = false;
  return ArrowColumn(texts, present, 3);
}

// CastFromArrowStrings under NullPolicy::kError through the runner reports what the serial
// call reports (code, message, elements_written == `first`, the message naming element
// `first` and `what`) with the elements before `first` equal to the serial call's.
void ExpectFirstFault(const ArrowColumn& column, size_t first, const std::string& what,
                      Runner* runner) {
  for (int width : {4, 8}) {
    const ArrowStrings a = column.View(width, NullPolicy::kError);
    for (DataType t :
         {DataType::kDouble, DataType::kFloat4E2M1, DataType::kInt32, DataType::kFloat8E4M3FN}) {
      Bytes want(StorageBytes(t, kArrowCount), 0xA5), got(want.size(), 0x5A);
      const Status s = CastFromArrowStrings(a, want.data(), t, kArrowCount);
      CastOptions o;
      o.runner = runner;
      const Status p = CastFromArrowStrings(a, got.data(), t, kArrowCount, o);
      const std::string where = std::string(DataTypeName(t)) + " offset_width " +
                                std::to_string(width) + ": " + p.message();
      EXPECT_EQ(s.code(), StatusCode::kParseError) << where;
      EXPECT_EQ(p.code(), StatusCode::kParseError) << where;
      EXPECT_EQ(p.message(), s.message()) << where;
      EXPECT_EQ(s.elements_written(), first) << where;
      EXPECT_EQ(p.elements_written(), first) << where;
      EXPECT_NE(p.message().find("element " + std::to_string(first) + ":"), std::string::npos)
          << where;
      EXPECT_NE(p.message().find(what), std::string::npos) << where;
      EXPECT_TRUE(SamePrefix(got, want, t, first)) << where;
    }
  }
}

TEST(ParallelArrowStrings, TheFirstOfTwoBadTextsInIndexOrderIsReported) {
  OrderedRunner reverse;
  OrderedRunner shuffled;
  shuffled.order = OrderedRunner::kShuffled;
  // Different tasks; 2065 is odd (mid-byte in packed outputs), the later one is in the
  // last, partial task, which the reverse runner runs first.
  const ArrowColumn column = ColumnWithFaults({kArrowCount - 10, 2065}, {});
  ExpectFirstFault(column, 2065, "bad text 2065", &reverse.runner);
  ExpectFirstFault(column, 2065, "bad text 2065", &shuffled.runner);
  EXPECT_GT(reverse.calls.load(), 0u);
  EXPECT_GT(shuffled.calls.load(), 0u);
}

TEST(ParallelArrowStrings, ANullUnderErrorPolicyAndABadTextTheFirstInIndexOrderIsReported) {
  OrderedRunner reverse;
  OrderedRunner shuffled;
  shuffled.order = OrderedRunner::kShuffled;
  for (Runner* r : {&reverse.runner, &shuffled.runner}) {
    // A bad text, then a null in a later task.
    ExpectFirstFault(ColumnWithFaults({3001}, {9001}), 3001, "cannot parse", r);
    // A null, then a bad text in a later task.
    ExpectFirstFault(ColumnWithFaults({9001}, {3001}), 3001, "null", r);
    // Both in the same task, the null first.
    ExpectFirstFault(ColumnWithFaults({3100}, {3099}), 3099, "null", r);
  }
}

// Numeric sources of every formatting path: DOUBLE and FLOAT over all bit patterns (NaN,
// infinities, subnormals, both layouts), INT64, INT32, FLOAT16 and INT4 (the generic
// formatter), BOOL.
std::vector<std::pair<DataType, Bytes>> FormatSources() {
  std::vector<std::pair<DataType, Bytes>> sources;
  unsigned seed = 31;
  for (DataType t : {DataType::kDouble, DataType::kFloat, DataType::kInt64, DataType::kInt32,
                     DataType::kFloat16, DataType::kInt4, DataType::kBool}) {
    sources.emplace_back(t, Source(t, kArrowCount, seed++));
  }
  // Typical doubles as well: values printed positionally.
  Bytes typical(8 * kArrowCount);
  for (size_t i = 0; i < kArrowCount; ++i) {
    const double v = (static_cast<double>(i) - 9000.0) * 0.37;
    std::memcpy(typical.data() + 8 * i, &v, 8);
  }
  sources.emplace_back(DataType::kDouble, typical);
  return sources;
}

// One CastToArrowStrings output.
struct ArrowOut {
  Bytes offsets;
  std::string data;
  Status status;
  size_t data_size = 0;
};

int64_t OffsetAt(const ArrowOut& out, int width, size_t i) {
  if (width == 8) {
    int64_t v;
    std::memcpy(&v, out.offsets.data() + 8 * i, 8);
    return v;
  }
  int32_t v;
  std::memcpy(&v, out.offsets.data() + 4 * i, 4);
  return v;
}

// CastToArrowStrings into `capacity` bytes (data null when 0) plus 64 guard bytes, and
// count + 1 offsets plus 8 guard bytes; the guards must stay untouched.
ArrowOut FormatArrow(const Bytes& src, DataType type, int width, size_t capacity,
                     const Runner* runner) {
  ArrowOut r;
  r.offsets.assign((kArrowCount + 1) * static_cast<size_t>(width) + 8, 0x5A);
  r.data.assign(capacity + 64, '#');
  ArrowStringsOut out;
  out.offsets = r.offsets.data();
  out.offset_width = width;
  out.data = capacity == 0 ? nullptr : &r.data[0];
  out.data_capacity = capacity;
  CastOptions o;
  o.runner = runner;
  r.status = CastToArrowStrings(src.data(), type, &out, kArrowCount, o);
  r.data_size = out.data_size;
  EXPECT_EQ(r.data.substr(capacity), std::string(64, '#')) << "wrote past data_capacity";
  EXPECT_EQ(Bytes(r.offsets.end() - 8, r.offsets.end()), Bytes(8, 0x5A))
      << "wrote past count + 1 offsets";
  return r;
}

// CastToArrowStrings through `runner` with a roomy capacity (33 bytes per element: every
// text at its longest), with exactly the size a query (through the runner) reports, and
// one byte less, gives the serial call's offsets, data and data_size for both widths.
void ExpectArrowFormatsLikeSerial(const Runner* runner) {
  for (const auto& [type, src] : FormatSources()) {
    for (int width : {4, 8}) {
      const std::string where =
          std::string(DataTypeName(type)) + " offset_width " + std::to_string(width);
      const ArrowOut want = FormatArrow(src, type, width, 33 * kArrowCount, nullptr);
      ASSERT_TRUE(want.status.ok()) << where << ": " << want.status.message();
      const size_t size = want.data_size;
      ASSERT_GT(size, 0u);
      const auto same = [&](const ArrowOut& got, const char* how) {
        ASSERT_TRUE(got.status.ok()) << where << " " << how << ": " << got.status.message();
        EXPECT_EQ(got.data_size, size) << where << " " << how;
        if (got.offsets != want.offsets) {
          size_t i = 0;
          while (OffsetAt(got, width, i) == OffsetAt(want, width, i)) ++i;
          ADD_FAILURE() << where << " " << how << ": offset " << i << " is "
                        << OffsetAt(got, width, i) << ", serial " << OffsetAt(want, width, i);
        }
        EXPECT_EQ(got.data.compare(0, size, want.data, 0, size), 0)
            << where << " " << how << ": data differs";
      };
      same(FormatArrow(src, type, width, 33 * kArrowCount, runner), "roomy");
      // The size query.
      const ArrowOut query = FormatArrow(src, type, width, 0, runner);
      EXPECT_EQ(query.status.code(), StatusCode::kBufferTooSmall) << where;
      EXPECT_EQ(query.data_size, size) << where;
      EXPECT_EQ(query.offsets, Bytes(query.offsets.size(), 0x5A)) << where;
      same(FormatArrow(src, type, width, size, runner), "exact capacity");
      const ArrowOut short_by_one = FormatArrow(src, type, width, size - 1, runner);
      EXPECT_EQ(short_by_one.status.code(), StatusCode::kBufferTooSmall) << where;
      EXPECT_EQ(short_by_one.data_size, size) << where;
      EXPECT_EQ(short_by_one.data, std::string(size - 1 + 64, '#')) << where;
      EXPECT_EQ(short_by_one.offsets, Bytes(short_by_one.offsets.size(), 0x5A)) << where;
    }
  }
}

TEST(ParallelArrowStrings, OutputsGiveTheSerialOffsetsAndDataRoomyAndExact) {
  OrderedRunner reverse;
  OrderedRunner shuffled;
  shuffled.order = OrderedRunner::kShuffled;
  ExpectArrowFormatsLikeSerial(&reverse.runner);
  ExpectArrowFormatsLikeSerial(&shuffled.runner);
  EXPECT_GT(reverse.calls.load(), 0u);
  EXPECT_GT(shuffled.calls.load(), 0u);
}

// A runner that runs some tasks and then returns non-zero: the library runs every task
// again on the calling thread, so every task must be idempotent, and the call gives the
// serial results.
TEST(ParallelArrowStrings, AFailingRunnerStillGivesTheSerialBytesFromStrings) {
  FailingRunner r;
  ExpectArrowParsesLikeSerial(&r.runner, nullptr);
  const ArrowColumn column = ColumnWithFaults({kArrowCount - 10, 2065}, {});
  ExpectFirstFault(column, 2065, "bad text 2065", &r.runner);
}

TEST(ParallelArrowStrings, AFailingRunnerStillGivesTheSerialOffsetsAndData) {
  FailingRunner r;
  ExpectArrowFormatsLikeSerial(&r.runner);
}

// The same contract for the C API's arena (tc_cast_ex into STRING): with a capacity that
// holds every text at its longest and a runner that fails after running some tasks, the
// views are the serial call's (the same places in the arena).
TEST(ParallelCApi, AFailingRunnerStillGivesTheSerialArenaViews) {
  FailingRunner r;
  tc_runner runner{&r, r.runner.run};
  tc_options o = TC_OPTIONS_INIT;
  o.runner = &runner;
  const Bytes src = Source(DataType::kDouble, kArrowCount, 41);
  std::vector<tc_string_view> want(kArrowCount), got(kArrowCount);
  std::string want_data(40 * kArrowCount, '#'), got_data(want_data);
  tc_string_arena a{&want_data[0], want_data.size(), want.data(), 0};
  tc_string_arena b{&got_data[0], got_data.size(), got.data(), 0};
  ASSERT_EQ(
      tc_cast_ex(src.data(), TC_TYPE_DOUBLE, &a, TC_TYPE_STRING, kArrowCount, nullptr, nullptr),
      TC_OK);
  ASSERT_EQ(tc_cast_ex(src.data(), TC_TYPE_DOUBLE, &b, TC_TYPE_STRING, kArrowCount, &o, nullptr),
            TC_OK);
  EXPECT_EQ(a.size, b.size);
  size_t mismatches = 0, first = kArrowCount;
  for (size_t i = 0; i < kArrowCount; ++i) {
    if (want[i].data - want_data.data() != got[i].data - got_data.data() ||
        want[i].size != got[i].size) {
      if (mismatches++ == 0) first = i;
    }
  }
  EXPECT_EQ(mismatches, 0u) << "first view that differs: " << first;
}

// Split through a runner vs one thread, for one shape and sizes along `axis`.
void CheckSplit(DataType type, std::vector<int64_t> shape, int64_t axis, std::vector<int64_t> sizes,
                Runner* runner) {
  size_t total = 1;
  for (int64_t d : shape) total *= static_cast<size_t>(d);
  const Bytes src = Source(type, total, 11);
  const size_t ax = static_cast<size_t>(axis);
  size_t others = total / static_cast<size_t>(shape[ax]);
  std::vector<Bytes> want, got;
  std::vector<void*> wp, gp;
  for (int64_t s : sizes) {
    want.emplace_back(StorageBytes(type, others * static_cast<size_t>(s)) + 1, 0xA5);
    got.emplace_back(want.back().size(), 0x5A);
    got.back().back() = 0xA5;
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    wp.push_back(want[i].data());
    gp.push_back(got[i].data());
  }
  ASSERT_TRUE(Split(src.data(), type, shape.data(), shape.size(), axis, sizes.data(), sizes.size(),
                    wp.data())
                  .ok());
  ASSERT_TRUE(Split(src.data(), type, shape.data(), shape.size(), axis, sizes.data(), sizes.size(),
                    gp.data(), runner)
                  .ok());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_TRUE(got[i] == want[i]) << DataTypeName(type) << " output " << i;
  }
}

TEST(ParallelSplit, RowAndChunkCutsGiveTheSerialOutputs) {
  OrderedRunner r;
  r.order = OrderedRunner::kShuffled;
  // Many short rows: tasks are ranges of rows.
  CheckSplit(DataType::kFloat, {4099, 300}, 1, {101, 150, 49}, &r.runner);
  CheckSplit(DataType::kInt4, {20001, 300}, 1, {101, 150, 49}, &r.runner);
  // Few long rows: tasks are chunks of each output block.
  CheckSplit(DataType::kUint8, {3, 700001}, 1, {300000, 400001}, &r.runner);
  CheckSplit(DataType::kInt4, {1, 3000001}, 1, {1000003, 1999998}, &r.runner);
  CheckSplit(DataType::kInt2, {2, 2000000}, 1, {1000003, 999997}, &r.runner);  // odd blocks
  CheckSplit(DataType::kDouble, {1 << 18}, 0, {100000, 162144}, &r.runner);
  EXPECT_GT(r.calls.load(), 0u);
}

TEST(ParallelSplit, StringsGiveTheSerialOutputs) {
  OrderedRunner r;
  const int64_t shape[2] = {4000, 10};
  const int64_t sizes[2] = {3, 7};
  std::vector<std::string> src(40000);
  for (size_t i = 0; i < src.size(); ++i) src[i] = "element " + std::to_string(i);
  std::vector<std::string> a(12000), b(28000), c(12000), d(28000);
  void* want[2] = {a.data(), b.data()};
  void* got[2] = {c.data(), d.data()};
  ASSERT_TRUE(Split(src.data(), DataType::kString, shape, 2, 1, sizes, 2, want).ok());
  ASSERT_TRUE(Split(src.data(), DataType::kString, shape, 2, 1, sizes, 2, got, &r.runner).ok());
  EXPECT_EQ(a, c);
  EXPECT_EQ(b, d);
  EXPECT_GT(r.calls.load(), 0u);
}

TEST(ThreadPool, ConcurrentCallsAndCallsFromItsOwnTasks) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.num_threads(), 3u);
  CastOptions o;
  o.runner = pool.runner();
  const size_t count = size_t{1} << 20;
  const Bytes src = Source(DataType::kFloat, count, 3);
  Bytes want(2 * count);
  ASSERT_TRUE(Cast(src.data(), DataType::kFloat, want.data(), DataType::kFloat16, count).ok());
  // Calls from several threads at once share the pool.
  std::vector<std::thread> callers;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int k = 0; k < 5; ++k) {
        Bytes got(2 * count);
        if (!Cast(src.data(), DataType::kFloat, got.data(), DataType::kFloat16, count, o).ok() ||
            got != want) {
          mismatches.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& th : callers) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  // A call made from inside one of the pool's tasks runs inline (no deadlock).
  struct Ctx {
    const Bytes* src;
    const Bytes* want;
    const CastOptions* o;
    std::atomic<int> bad{0};
  } ctx{&src, &want, &o};
  const Runner* runner = pool.runner();
  runner->run(
      runner->opaque, 4,
      [](void* p, size_t) {
        auto* c = static_cast<Ctx*>(p);
        Bytes got(c->want->size());
        if (!Cast(c->src->data(), DataType::kFloat, got.data(), DataType::kFloat16,
                  c->src->size() / 4, *c->o)
                 .ok() ||
            got != *c->want) {
          c->bad.fetch_add(1);
        }
      },
      &ctx);
  EXPECT_EQ(ctx.bad.load(), 0);
}

// Back-to-back runs of a few short tasks, where workers still leaving one run meet the
// next: every task of every run runs exactly once, and before run() returns.
TEST(ThreadPool, ConcurrentBackToBackRunsRunEachTaskOnce) {
  ThreadPool pool(3);
  const Runner* runner = pool.runner();
  struct Ctx {
    std::atomic<int> hits[5];
  } ctx;
  for (int run = 0; run < 20000; ++run) {
    const size_t n = 2 + static_cast<size_t>(run % 4);
    for (size_t i = 0; i < n; ++i) ctx.hits[i].store(0);
    ASSERT_EQ(runner->run(
                  runner->opaque, n,
                  [](void* p, size_t i) { static_cast<Ctx*>(p)->hits[i].fetch_add(1); }, &ctx),
              0);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(ctx.hits[i].load(), 1) << "run " << run << " task " << i;
  }
}

// Not under ThreadSanitizer, which cannot start threads in the child of a multi-threaded
// process.
TEST(ThreadPool, AForkedChildGetsThreadsOfItsOwn) {
  ThreadPool pool(2);
  CastOptions o;
  o.runner = pool.runner();
  const size_t count = size_t{1} << 20;
  const Bytes src = Source(DataType::kFloat, count, 4);
  Bytes want(2 * count), got(2 * count);
  ASSERT_TRUE(Cast(src.data(), DataType::kFloat, want.data(), DataType::kFloat16, count).ok());
  // The parent's workers exist before the fork.
  ASSERT_TRUE(Cast(src.data(), DataType::kFloat, got.data(), DataType::kFloat16, count, o).ok());
  ASSERT_TRUE(got == want);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Bytes child_got(2 * count);
    const bool ok =
        Cast(src.data(), DataType::kFloat, child_got.data(), DataType::kFloat16, count, o).ok() &&
        child_got == want;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(ParallelCApi, OptionsStructSizesAndThePool) {
  tc_thread_pool* pool = tc_thread_pool_create(2);
  ASSERT_NE(pool, nullptr);
  const size_t count = size_t{1} << 20;
  const Bytes src = Source(DataType::kFloat, count, 5);
  Bytes want(count), got(count);
  char msg[256];
  tc_error err = TC_ERROR_INIT(msg, sizeof msg);
  ASSERT_EQ(tc_cast(src.data(), TC_TYPE_FLOAT, want.data(), TC_TYPE_FLOAT8E4M3FN, count, 0,
                    TC_ROUND_UP, &err),
            TC_OK);
  tc_options o = TC_OPTIONS_INIT;
  o.saturate = 0;
  o.runner = tc_thread_pool_runner(pool);
  ASSERT_EQ(
      tc_cast_ex(src.data(), TC_TYPE_FLOAT, got.data(), TC_TYPE_FLOAT8E4M3FN, count, &o, &err),
      TC_OK)
      << msg;
  EXPECT_TRUE(got == want);
  // NULL options: the defaults (saturate = 1).
  Bytes sat(count), sat_want(count);
  ASSERT_EQ(tc_cast(src.data(), TC_TYPE_FLOAT, sat_want.data(), TC_TYPE_FLOAT8E4M3FN, count, 1,
                    TC_ROUND_UP, &err),
            TC_OK);
  ASSERT_EQ(tc_cast_like_ex(src.data(), TC_TYPE_FLOAT, sat.data(), TC_TYPE_FLOAT8E4M3FN, count,
                            nullptr, &err),
            TC_OK);
  EXPECT_TRUE(sat == sat_want);
  // An older caller's smaller struct: the missing fields (runner) take their defaults.
  tc_options old = o;
  old.struct_size = offsetof(tc_options, runner);
  ASSERT_EQ(
      tc_cast_ex(src.data(), TC_TYPE_FLOAT, got.data(), TC_TYPE_FLOAT8E4M3FN, count, &old, &err),
      TC_OK);
  EXPECT_TRUE(got == want);
  // A larger struct is refused.
  tc_options big = o;
  big.struct_size = sizeof(tc_options) + 8;
  EXPECT_EQ(
      tc_cast_ex(src.data(), TC_TYPE_FLOAT, got.data(), TC_TYPE_FLOAT8E4M3FN, count, &big, &err),
      TC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(msg).find("struct_size"), std::string::npos) << msg;
  // Split through the pool.
  const int64_t shape[2] = {1024, 1024};
  const int64_t sizes[2] = {300, 724};
  Bytes a(1024 * 300 * 4), b(1024 * 724 * 4), c(a.size()), d(b.size());
  void* want_out[2] = {a.data(), b.data()};
  void* got_out[2] = {c.data(), d.data()};
  const Bytes split_src = Source(DataType::kFloat, 1024 * 1024, 9);
  ASSERT_EQ(tc_split(split_src.data(), TC_TYPE_FLOAT, shape, 2, 1, sizes, 2, want_out, &err),
            TC_OK);
  ASSERT_EQ(tc_split_ex(split_src.data(), TC_TYPE_FLOAT, shape, 2, 1, sizes, 2, got_out,
                        tc_thread_pool_runner(pool), &err),
            TC_OK);
  EXPECT_TRUE(a == c && b == d);
  tc_thread_pool_destroy(pool);
}

}  // namespace
}  // namespace tensorcast
