// A library that claims to be libkraken with another ABI version: the package must refuse
// it with both versions in the message (test_library.py).
extern "C" __attribute__((visibility("default"))) int kraken_abi_version() { return 999; }
