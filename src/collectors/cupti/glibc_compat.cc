// Keeps libkraken_cupti.so loadable on glibc 2.35 (Ubuntu 22.04, common on GPU machines)
// although it is built on glibc 2.36: the static libstdc++ it carries references
// arc4random (glibc 2.36) from std::random_device, which std::system_error (std::thread)
// drags in and the tracer never calls. This local definition satisfies that reference;
// the version script keeps it out of the library's exports.
#include <sys/random.h>

#include <cstdint>

extern "C" uint32_t arc4random(void) {
  uint32_t value = 0;
  // One blocking read of the kernel's generator; a 4-byte getrandom is never short.
  (void)getrandom(&value, sizeof(value), 0);
  return value;
}
