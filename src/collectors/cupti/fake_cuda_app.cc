// Test helper: a CUDA program on a machine without GPU or driver. It does what the CUDA
// driver does when a process initializes CUDA with CUDA_INJECTION64_PATH set (dlopen the
// library, call its InitializeInjection, finish cuInit: with the fake libcupti, its
// kraken_fake_cuda_init_finished), then runs for the milliseconds of its first argument
// (default 0: the fake libcupti launches on the clock meanwhile) and ends normally.
// `kraken profile --kernels` tests run it as their command.
#include <dlfcn.h>

#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace {

// What the driver does after InitializeInjection returned: with the fake libcupti, tell it.
void FinishCuInit() {
  const char* cupti = std::getenv("KRAKEN_CUPTI_LIBRARY");
  if (cupti == nullptr) return;
  void* library = dlopen(cupti, RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) return;
  if (auto finished = reinterpret_cast<void (*)()>(dlsym(library, "kraken_fake_cuda_init_finished")))
    finished();
}

}  // namespace

int main(int argc, char** argv) {
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
  FinishCuInit();
  if (argc > 1) std::this_thread::sleep_for(std::chrono::milliseconds(std::atoll(argv[1])));
  return 0;
}
