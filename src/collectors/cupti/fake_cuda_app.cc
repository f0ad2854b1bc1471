// Test helper: a CUDA program on a machine without GPU or driver. It does what the CUDA
// driver does when a process initializes CUDA with CUDA_INJECTION64_PATH set (dlopen the
// library, call its InitializeInjection, finish cuInit: with the fake libcupti, its
// kraken_fake_cuda_init_finished), then runs for the milliseconds of its first argument
// (default 0: the fake libcupti launches on the clock meanwhile), making a CUDA call every
// ms (kraken_fake_cuda_api_call: where the tracer may detach CUPTI), and ends normally.
// `kraken profile --kernels` tests run it as their command.
#include <dlfcn.h>

#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace {

// A function of the fake libcupti the tracer loaded, or nullptr.
void (*FakeCuptiFunction(const char* name))() {
  const char* cupti = std::getenv("KRAKEN_CUPTI_LIBRARY");
  void* library = cupti != nullptr ? dlopen(cupti, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  return library != nullptr ? reinterpret_cast<void (*)()>(dlsym(library, name)) : nullptr;
}

// What the driver does after InitializeInjection returned: with the fake libcupti, tell it.
void FinishCuInit() {
  if (auto finished = FakeCuptiFunction("kraken_fake_cuda_init_finished")) finished();
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
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(argc > 1 ? std::atoll(argv[1]) : 0);
  auto api_call = FakeCuptiFunction("kraken_fake_cuda_api_call");
  while (std::chrono::steady_clock::now() < end) {
    if (api_call != nullptr) api_call();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return 0;
}
