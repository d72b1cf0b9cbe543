#include "memory_file.h"

#include <sys/mman.h>

namespace voxdex {

int CreateMemoryFile(const char* name) { return memfd_create(name, MFD_CLOEXEC); }

}  // namespace voxdex
