// tensorcast/runner.h: running Cast and Split on several threads.
//
// A Runner is a caller-supplied parallel-for, as the C API's tc_runner: tensorcast cuts a
// large call into independent tasks (chunks that start on cache lines and whole bytes of
// packed types) and hands them to `run`, which may execute them on any threads, in any
// order. Below a size where threads cost more than they save, the call runs on the
// calling thread without calling the runner. Results are bit-identical to one thread.
//
// ThreadPool is a Runner backed by threads of its own; any other pool (a runtime's,
// OpenMP, TBB) fits the same interface:
//
//   tensorcast::ThreadPool pool;                  // the CPUs this process may use
//   tensorcast::CastOptions options;
//   options.runner = pool.runner();
//   tensorcast::Status s = tensorcast::Cast(src, kFloat, dst, kFloat16, n, options);
#ifndef TENSORCAST_RUNNER_H_
#define TENSORCAST_RUNNER_H_

#include <cstddef>
#include <memory>

namespace tensorcast {

// A task: task(task_ctx, index) for one index in [0, num_tasks).
using TaskFunction = void (*)(void* task_ctx, size_t index);

struct Runner {
  void* opaque = nullptr;
  // Runs task(task_ctx, i) once for every i in [0, num_tasks), on any threads, in any
  // order, and returns when every task it started has finished. Non-zero means it could
  // not run them all; tensorcast then runs every task itself on the calling thread (tasks
  // are idempotent) and the call succeeds.
  int (*run)(void* opaque, size_t num_tasks, TaskFunction task, void* task_ctx) = nullptr;
};

// A fixed set of worker threads that runs the tasks of one call at a time (concurrent
// calls take turns); the calling thread works on its call's tasks too. A call made from
// inside one of the pool's own tasks runs its tasks inline. After fork(), the child's copy
// of a pool starts new threads on first use.
class ThreadPool {
 public:
  // num_threads: threads in total, the caller included; 0 means min(the CPUs in this
  // process's affinity mask, OMP_NUM_THREADS when it is set to a positive number). One
  // thread means no worker: every call runs on the calling thread.
  explicit ThreadPool(size_t num_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The Runner to pass in CastOptions::runner or to Split; valid while the pool lives.
  const Runner* runner() const;
  size_t num_threads() const;

  struct State;  // internal

 private:
  std::unique_ptr<State> state_;
};

// The default thread count of ThreadPool(0): min(affinity CPUs, OMP_NUM_THREADS if set).
size_t DefaultThreadCount();

}  // namespace tensorcast

#endif  // TENSORCAST_RUNNER_H_
