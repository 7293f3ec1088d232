// Running the independent tasks of one call through a caller's Runner
// (tensorcast/runner.h), and how large those tasks are.
#ifndef TENSORCAST_LIB_PARALLEL_H_
#define TENSORCAST_LIB_PARALLEL_H_

#include <cstddef>

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

}  // namespace parallel
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_PARALLEL_H_
