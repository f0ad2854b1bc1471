// The library's identity: its release and ABI version.
#include "capi/call.h"

extern "C" {

int kraken_abi_version(void) { return KRAKEN_ABI_VERSION; }
const char* kraken_version(void) { return KRAKEN_VERSION_STRING; }

}  // extern "C"
