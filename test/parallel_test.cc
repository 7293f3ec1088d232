// Cast, CastLike and Split through a Runner give the same bytes as on one thread: every
// numeric pair and option at counts just past the parallel threshold, strings (the first
// bad element in index order is reported as serially), Split's row and chunk cuts,
// runners that run tasks in reverse or shuffled order on several threads, a runner that
// fails, the ThreadPool (concurrent calls, calls from inside its tasks, fork), and the C
// API's options.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
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
