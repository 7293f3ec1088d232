// Many threads make their first calls at once (Highway's dynamic dispatch chooses its
// target, the route plan is built) and keep calling Cast and Split; every result must equal
// the one computed afterwards on one thread. Built and run under ThreadSanitizer by the
// preset "tsan" (scripts/dev.sh test-tsan), and natively with the other tests.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tensorcast/tensorcast.h"

namespace tensorcast {
namespace {

struct Job {
  DataType src, dst;
  size_t count;
};

std::vector<Job> Jobs() {
  // Kernel, table (above 4096 elements), hub and copy routes, and a string pair.
  return {{DataType::kFloat, DataType::kFloat16, 1000},
          {DataType::kFloat8E4M3FN, DataType::kFloat8E5M2, 5000},
          {DataType::kFloat8E4M3FN, DataType::kFloat8E5M2, 100},
          {DataType::kInt64, DataType::kFloat8E4M3FNUZ, 777},
          {DataType::kInt4, DataType::kUint4, 333},
          {DataType::kUint8, DataType::kInt64, 6000},
          {DataType::kDouble, DataType::kString, 50}};
}

std::vector<uint8_t> Source(const Job& job) {
  std::vector<uint8_t> bytes(StorageBytes(job.src, job.count));
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131 + 7);
  if (job.src == DataType::kDouble) {
    for (size_t i = 0; i < job.count; ++i) {
      const double d = static_cast<double>(i) * 0.37 - 5.0;
      std::memcpy(&bytes[i * 8], &d, 8);
    }
  }
  return bytes;
}

// The job's output as bytes (STRING: the texts joined by NULs).
std::string RunJob(const Job& job, const std::vector<uint8_t>& src) {
  if (job.dst == DataType::kString) {
    std::vector<std::string> out(job.count);
    if (!Cast(src.data(), job.src, out.data(), job.dst, job.count).ok()) return "error";
    std::string joined;
    for (const std::string& s : out) joined += s + '\0';
    return joined;
  }
  std::string out(StorageBytes(job.dst, job.count), '\0');
  if (!Cast(src.data(), job.src, out.data(), job.dst, job.count).ok()) return "error";
  return out;
}

std::string RunSplit(const std::vector<uint8_t>& src) {
  const int64_t shape[2] = {6, 10};
  const int64_t sizes[3] = {1, 2, 3};
  std::string a(10 * 4, '\0'), b(20 * 4, '\0'), c(30 * 4, '\0');
  void* outs[3] = {a.data(), b.data(), c.data()};
  if (!Split(src.data(), DataType::kFloat, shape, 2, 0, sizes, 3, outs).ok()) return "error";
  return a + b + c;
}

TEST(Concurrency, FirstCallsFromManyThreadsAtOnceGiveTheSerialResults) {
  const std::vector<Job> jobs = Jobs();
  std::vector<std::vector<uint8_t>> sources;
  for (const Job& job : jobs) sources.push_back(Source(job));
  const std::vector<uint8_t> split_src(6 * 10 * 4, 0x3F);

  constexpr int kThreads = 8, kRounds = 20;
  std::vector<std::vector<std::string>> results(kThreads, std::vector<std::string>(jobs.size()));
  std::vector<std::string> split_results(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }  // start together: the first Cast of every thread races the others
      for (int round = 0; round < kRounds; ++round) {
        for (size_t j = 0; j < jobs.size(); ++j) {
          const size_t k = (j + static_cast<size_t>(t)) % jobs.size();
          std::string r = RunJob(jobs[k], sources[k]);
          if (round == 0) {
            results[t][k] = std::move(r);
          } else if (r != results[t][k]) {
            results[t][k] = "changed between rounds";
          }
        }
        split_results[t] = RunSplit(split_src);
      }
    });
  }
  for (std::thread& th : threads) th.join();

  for (size_t j = 0; j < jobs.size(); ++j) {
    const std::string serial = RunJob(jobs[j], sources[j]);
    ASSERT_NE(serial, "error") << DataTypeName(jobs[j].src) << " -> " << DataTypeName(jobs[j].dst);
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(results[t][j], serial) << "thread " << t << ": " << DataTypeName(jobs[j].src)
                                       << " -> " << DataTypeName(jobs[j].dst);
    }
  }
  const std::string split_serial = RunSplit(split_src);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(split_results[t], split_serial) << "thread " << t;
}

}  // namespace
}  // namespace tensorcast
