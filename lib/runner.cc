// ThreadPool: worker threads started on first use, one call's tasks at a time, claimed
// through an atomic counter by the workers and the calling thread alike.
#include "tensorcast/runner.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
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
struct PoolSync {
  std::mutex call_mutex;  // one call at a time
  std::mutex mu;
  std::condition_variable work_cv, done_cv;
  uint64_t generation = 0;  // of the current call
  bool stop = false;
  TaskFunction task = nullptr;
  void* task_ctx = nullptr;
  size_t num_tasks = 0;
  std::atomic<size_t> next{0};
  std::atomic<size_t> completed{0};
  size_t active_workers = 0;  // workers inside the current call (under mu)
  std::vector<pthread_t> threads;
};

struct ThreadPool::State {
  Runner runner;
  size_t num_threads = 1;
  pid_t pid = 0;  // the process that owns `sync` and its threads
  PoolSync* sync = nullptr;
};

namespace {

void RunClaimed(PoolSync* s, TaskFunction task, void* ctx, size_t num_tasks) {
  for (;;) {
    const size_t i = s->next.fetch_add(1, std::memory_order_relaxed);
    if (i >= num_tasks) return;
    task(ctx, i);
    s->completed.fetch_add(1, std::memory_order_acq_rel);
  }
}

void* WorkerMain(void* arg) {
  auto* s = static_cast<PoolSync*>(arg);
  t_in_pool_task = true;
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(s->mu);
  for (;;) {
    s->work_cv.wait(lock, [&] { return s->stop || s->generation != seen; });
    if (s->stop) return nullptr;
    seen = s->generation;
    const TaskFunction task = s->task;
    void* const ctx = s->task_ctx;
    const size_t num_tasks = s->num_tasks;
    ++s->active_workers;
    lock.unlock();
    RunClaimed(s, task, ctx, num_tasks);
    lock.lock();
    if (--s->active_workers == 0) s->done_cv.notify_all();
  }
}

void StartThreads(PoolSync* s, size_t workers) {
  for (size_t i = 0; i < workers; ++i) {
    pthread_t t;
    if (pthread_create(&t, nullptr, &WorkerMain, s) != 0) break;  // fewer workers: still right
    s->threads.push_back(t);
  }
}

void StopThreads(PoolSync* s) {
  {
    std::lock_guard<std::mutex> lock(s->mu);
    s->stop = true;
  }
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
  {
    // A worker that woke late for the previous call may still be inside it, holding that
    // call's task: let it leave before the counters are reset.
    std::unique_lock<std::mutex> lock(s->mu);
    s->done_cv.wait(lock, [&] { return s->active_workers == 0; });
    s->task = task;
    s->task_ctx = task_ctx;
    s->num_tasks = num_tasks;
    s->next.store(0, std::memory_order_relaxed);
    s->completed.store(0, std::memory_order_relaxed);
    ++s->generation;
  }
  s->work_cv.notify_all();
  t_in_pool_task = true;
  RunClaimed(s, task, task_ctx, num_tasks);
  t_in_pool_task = false;
  // Every task has finished, and no worker is still inside this call (a worker that
  // joined late must leave before the next call reuses the counters).
  std::unique_lock<std::mutex> lock(s->mu);
  s->done_cv.wait(lock, [&] {
    return s->completed.load(std::memory_order_acquire) == num_tasks && s->active_workers == 0;
  });
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
