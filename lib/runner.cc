// ThreadPool: worker threads started on first use, one call's tasks at a time, claimed
// through an atomic counter by the workers and the calling thread alike.
#include "tensorcast/runner.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace tensorcast {
namespace {

// True while this thread runs tasks of a pool: a call made from a task runs inline
// instead of waiting for a pool that is busy with its caller.
thread_local bool t_in_pool_task = false;

size_t AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<size_t>(n);
  }
  const unsigned hc = std::thread::hardware_concurrency();
  return hc > 0 ? hc : 1;
}

// OMP_NUM_THREADS as OpenMP reads it: the first number of the list; 0 when unset or bad.
size_t OmpNumThreads() {
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (env == nullptr) return 0;
  size_t n = 0;
  const char* p = env;
  while (*p == ' ') ++p;
  for (; *p >= '0' && *p <= '9'; ++p) {
    n = n * 10 + static_cast<size_t>(*p - '0');
    if (n > 1000000) return 0;
  }
  return n;
}

}  // namespace

size_t DefaultThreadCount() {
  const size_t cpus = AffinityCpus();
  const size_t omp = OmpNumThreads();
  return omp != 0 && omp < cpus ? omp : cpus;
}

// Synchronisation of one process's pool. After fork() the child replaces it (the parent's
// threads do not exist there, and its mutexes may have been held at the fork).
//
// A call publishes its task through `generation`, a sequence number that is odd while the
// call's fields are being written and even once they are valid. A worker joins a call by
// incrementing `active` and then re-reading `generation`: if it changed, it leaves again
// without touching the fields. The caller of a new call makes `generation` odd, waits for
// `active` to reach 0 and only then rewrites the fields, so no worker reads them half
// written. Workers spin for kSpinMicros after their last call before they sleep on
// `work_cv`; a call wakes sleepers only when there are any, so back-to-back calls cost no
// system call.
struct PoolSync {
  std::mutex call_mutex;  // one call at a time
  std::atomic<uint64_t> generation{0};
  std::atomic<bool> stop{false};
  std::atomic<size_t> active{0};    // workers inside a call
  std::atomic<size_t> sleepers{0};  // workers blocked on work_cv
  TaskFunction task = nullptr;
  void* task_ctx = nullptr;
  size_t num_tasks = 0;
  std::atomic<size_t> next{0};
  std::atomic<size_t> completed{0};
  std::mutex mu;  // only for sleeping and waking
  std::condition_variable work_cv;
  std::vector<pthread_t> threads;
};

struct ThreadPool::State {
  Runner runner;
  size_t num_threads = 1;
  pid_t pid = 0;  // the process that owns `sync` and its threads
  PoolSync* sync = nullptr;
};

namespace {

// How long an idle worker polls for the next call before it sleeps: long enough to
// cover the gap between back-to-back calls, short enough not to hold a core that the
// caller's other work needs.
constexpr int64_t kSpinMicros = 50;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

void RunClaimed(PoolSync* s, TaskFunction task, void* ctx, size_t num_tasks) {
  for (;;) {
    const size_t i = s->next.fetch_add(1, std::memory_order_relaxed);
    if (i >= num_tasks) return;
    task(ctx, i);
    s->completed.fetch_add(1, std::memory_order_acq_rel);
  }
}

// Waits for a published call newer than `seen` (an even generation); returns it, or
// `seen` when the pool stops.
uint64_t WaitForCall(PoolSync* s, uint64_t seen) {
  const auto ready = [&](uint64_t g) { return g != seen && g % 2 == 0; };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
  for (int k = 0;; ++k) {
    const uint64_t g = s->generation.load();
    if (ready(g) || s->stop.load()) return g;
    if (k % 64 == 63 && std::chrono::steady_clock::now() > deadline) break;
    CpuRelax();
  }
  std::unique_lock<std::mutex> lock(s->mu);
  s->sleepers.fetch_add(1);
  uint64_t g = s->generation.load();
  while (!ready(g) && !s->stop.load()) {
    s->work_cv.wait(lock);
    g = s->generation.load();
  }
  s->sleepers.fetch_sub(1);
  return g;
}

void* WorkerMain(void* arg) {
  auto* s = static_cast<PoolSync*>(arg);
  t_in_pool_task = true;
  uint64_t seen = 0;
  for (;;) {
    const uint64_t g = WaitForCall(s, seen);
    if (s->stop.load()) return nullptr;
    s->active.fetch_add(1);
    if (s->generation.load() == g) {  // the fields belong to call g
      seen = g;
      RunClaimed(s, s->task, s->task_ctx, s->num_tasks);
    }
    s->active.fetch_sub(1);
  }
}

void Wake(PoolSync* s) {
  if (s->sleepers.load() == 0) return;
  { std::lock_guard<std::mutex> lock(s->mu); }
  s->work_cv.notify_all();
}

void StartThreads(PoolSync* s, size_t workers) {
  for (size_t i = 0; i < workers; ++i) {
    pthread_t t;
    if (pthread_create(&t, nullptr, &WorkerMain, s) != 0) break;  // fewer workers: still right
    s->threads.push_back(t);
  }
}

void StopThreads(PoolSync* s) {
  s->stop.store(true);
  { std::lock_guard<std::mutex> lock(s->mu); }
  s->work_cv.notify_all();
  for (pthread_t t : s->threads) pthread_join(t, nullptr);
  s->threads.clear();
}

int PoolRun(void* opaque, size_t num_tasks, TaskFunction task, void* task_ctx) {
  auto* st = static_cast<ThreadPool::State*>(opaque);
  if (num_tasks == 0) return 0;
  if (t_in_pool_task || st->num_threads <= 1 || num_tasks == 1) {
    for (size_t i = 0; i < num_tasks; ++i) task(task_ctx, i);
    return 0;
  }
  const pid_t pid = getpid();
  if (st->pid != pid) {
    // A forked child: the parent's threads are not here. Leave the parent's state alone
    // (its mutexes may be locked forever) and start afresh.
    st->sync = new PoolSync();
    st->pid = pid;
  }
  PoolSync* s = st->sync;
  std::lock_guard<std::mutex> call(s->call_mutex);
  if (s->threads.empty()) StartThreads(s, st->num_threads - 1);
  // Odd: the fields are being written. Workers still inside the previous call (they
  // found no task left, or are about to) leave before the fields change.
  const uint64_t g = s->generation.load() + 1;
  s->generation.store(g);
  while (s->active.load() != 0) CpuRelax();
  s->task = task;
  s->task_ctx = task_ctx;
  s->num_tasks = num_tasks;
  s->next.store(0, std::memory_order_relaxed);
  s->completed.store(0, std::memory_order_relaxed);
  s->generation.store(g + 1);
  Wake(s);
  t_in_pool_task = true;
  RunClaimed(s, task, task_ctx, num_tasks);
  t_in_pool_task = false;
  // Every task has finished once `completed` reaches num_tasks; a worker that joined late
  // finds no task left and leaves on its own.
  for (int k = 0; s->completed.load(std::memory_order_acquire) != num_tasks; ++k) {
    if (k < 4096) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
  return 0;
}

}  // namespace

ThreadPool::ThreadPool(size_t num_threads) : state_(new State()) {
  state_->num_threads = num_threads != 0 ? num_threads : DefaultThreadCount();
  state_->pid = getpid();
  state_->sync = new PoolSync();
  state_->runner.opaque = state_.get();
  state_->runner.run = &PoolRun;
}

ThreadPool::~ThreadPool() {
  if (state_->pid == getpid()) {
    StopThreads(state_->sync);
    delete state_->sync;
  }  // else: a forked child that never used the pool; the parent's state is not ours
}

const Runner* ThreadPool::runner() const { return &state_->runner; }

size_t ThreadPool::num_threads() const { return state_->num_threads; }

}  // namespace tensorcast
