#include "collectors/cupti/kernel_name.h"

#include <cxxabi.h>

#include <cstdlib>

namespace kraken::cupti {

std::string ReadableKernelName(const char* symbol) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  std::string readable = status == 0 && demangled != nullptr ? demangled : symbol;
  std::free(demangled);
  return readable;
}

}  // namespace kraken::cupti
