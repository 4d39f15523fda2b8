// A job's tasks as plain functions, run on threads by korean_bpe._threads.run_parallel.
#pragma once

#include <new>

namespace kbpe {

// tasks run on several threads (korean_bpe._threads.run_parallel): task i of a job
typedef void (*task_fn)(void* job, int i);
// run one task, C++ exceptions caught: 0 done, 1 out of memory, 2 another error
inline int run_task(task_fn fn, void* job, int i) noexcept {
    try { fn(job, i); return 0; }
    catch (const std::bad_alloc&) { return 1; }
    catch (...) { return 2; }
}

}  // namespace kbpe
