// An anonymous file in memory (Linux memfd_create): a tool that needs a seekable file by path (the
// 7z CLI reading an archive) is handed one through /proc/self/fd/N, so that a sealed upload is never
// written to disk in plain form. The descriptor is close-on-exec; a child gets it only as one of its
// stdio descriptors.
#pragma once

namespace voxdex {

// Returns a new read-write descriptor, or -1 with errno set.
int CreateMemoryFile(const char* name);

}  // namespace voxdex
