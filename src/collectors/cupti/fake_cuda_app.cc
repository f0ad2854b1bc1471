// Test helper: a CUDA program on a machine without GPU or driver. It does what the CUDA
// driver does when a process initializes CUDA with CUDA_INJECTION64_PATH set (dlopen the
// library, call its InitializeInjection), then ends normally. `kraken profile --kernels`
// tests run it as their command.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

int main() {
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (path == nullptr) {
    std::fprintf(stderr, "fake_cuda_app: CUDA_INJECTION64_PATH is not set\n");
    return 3;
  }
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "fake_cuda_app: %s\n", dlerror());
    return 4;
  }
  auto initialize = reinterpret_cast<int (*)()>(dlsym(library, "InitializeInjection"));
  if (initialize == nullptr) return 5;
  initialize();
  return 0;
}
