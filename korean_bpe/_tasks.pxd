# The compiled half of korean_bpe/_threads.py, for the compiled modules that run C++ tasks on
# threads (korean_bpe/_counting.pyx, korean_bpe/trainer/_merge.pyx).

cdef extern from "tasks.hpp":
    ctypedef void (*task_fn "kbpe::task_fn")(void* job, int i) noexcept nogil
    int run_task "kbpe::run_task"(task_fn fn, void* job, int i) noexcept nogil

cdef int share(int threads, size_t work, size_t items)
cdef run_tasks(task_fn fn, void* job, int n, int threads)
