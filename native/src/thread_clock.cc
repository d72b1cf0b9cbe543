#include "thread_clock.h"

#include <ctime>

namespace voxdex {

int64_t ThreadCpuNanoseconds() {
  timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

}  // namespace voxdex
