// The CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID), for budgets that must count
// the event loop's own work and not the process's other threads (the ASR pool): a search's CPU budget
// (src/search/budget.ts). Node 20 has no per-thread CPU clock of its own.
#pragma once

#include <cstdint>

namespace voxdex {

// Nanoseconds of CPU this thread has used; -1 when the clock is not available.
int64_t ThreadCpuNanoseconds();

}  // namespace voxdex
