// Running the independent tasks of one call through a caller's Runner
// (tensorcast/runner.h), and how large those tasks are.
#ifndef TENSORCAST_LIB_PARALLEL_H_
#define TENSORCAST_LIB_PARALLEL_H_

#include <algorithm>
#include <cstddef>

#include "lib/tuning.h"
#include "tensorcast/runner.h"

namespace tensorcast {
namespace parallel {

// Runs f(i) for every i in [0, num_tasks): through the runner when there is one and more
// than one task, else on the calling thread. When the runner reports that it could not
// run them all, every task runs again on the calling thread (tasks are idempotent). f must
// not throw.
template <typename F>
void RunTasks(const Runner* runner, size_t num_tasks, F& f) {
  if (runner != nullptr && runner->run != nullptr && num_tasks > 1) {
    const TaskFunction trampoline = [](void* ctx, size_t i) { (*static_cast<F*>(ctx))(i); };
    if (runner->run(runner->opaque, num_tasks, trampoline, &f) == 0) return;
  }
  for (size_t i = 0; i < num_tasks; ++i) f(i);
}

// Runs f(begin, end) over consecutive ranges covering [0, n) units: one range on the calling
// thread, or, with a runner and a call moving at least tuning::kParallelMinBytes (`bytes`),
// up to tuning::kParallelMaxTasks tasks of at least tuning::kParallelTaskBytes each. The
// cuts decide no result: callers keep their own fixed chunking inside the ranges.
template <typename F>
void ForRanges(const Runner* runner, size_t n, size_t bytes, const F& f) {
  size_t tasks = 1;
  if (runner != nullptr && bytes >= tuning::kParallelMinBytes && n > 1) {
    tasks = std::min(
        {n, tuning::kParallelMaxTasks, std::max<size_t>(1, bytes / tuning::kParallelTaskBytes)});
  }
  if (tasks <= 1) {
    f(size_t{0}, n);
    return;
  }
  auto task = [&](size_t i) { f(n * i / tasks, n * (i + 1) / tasks); };
  RunTasks(runner, tasks, task);
}

}  // namespace parallel
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_PARALLEL_H_
