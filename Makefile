# kraken: the two commands of the README quick start are `make demo` and `make test`.
# Both install what is missing (Debian packages), configure, build and run.

BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_FUZZ ?= build-fuzz
FUZZ_SECONDS ?= 60
JOBS       ?= $(shell nproc)
PREFIX     ?= /usr/local
# The sanitizer build: -O1 compiles much faster than -O2 and -g1 keeps the line tables the
# sanitizers' stack traces need.
ASAN_OPT_FLAGS ?= -O1 -g1 -DNDEBUG
CMAKE_ARGS ?=

.PHONY: bundle test-bundle all deps build build-asan demo test check check-tests check-deps test-asan test-asan-tests bench fuzz \
  install clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

$(BUILD_ASAN)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(BUILD_ASAN) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKRAKEN_SANITIZE=ON \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(ASAN_OPT_FLAGS)" -DKRAKEN_BUILD_BENCH=OFF $(CMAKE_ARGS)

build-asan: deps $(BUILD_ASAN)/build.ninja
	cmake --build $(BUILD_ASAN) -j $(JOBS)

# The whole suite, then the whole suite again under AddressSanitizer + UBSan.
test: check test-asan

check: build check-deps check-tests

check-tests: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Every package the build used comes from scripts/install-deps.sh or a fresh machine (needs
# the fresh machine's package list in ../shared; skipped, saying so, where it is missing).
FRESH_LIST ?= ../shared/env/fresh-machine-apt-packages.txt
check-deps: build
	@if [ -f $(FRESH_LIST) ]; then scripts/check-deps.sh $(BUILD) --fresh-list $(FRESH_LIST); \
	 else echo "kraken: check-deps skipped: no $(FRESH_LIST)"; fi

test-asan: build-asan test-asan-tests

# Every test but the release-only ones (scripts, documents, packaging: CMake's LABELS), whose
# native calls the unit, CLI and Python tests make under the sanitizers too.
test-asan-tests: build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS) -LE release-only

# bin/kraken, lib/libkraken.so* and include/kraken/kraken.h under PREFIX; the Python
# package adds its own install() rules in python/CMakeLists.txt (root CMakeLists.txt).
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

demo: build
	@scripts/demo.sh $(BUILD)

# A relocatable tarball (bin/, lib/ with every library beyond glibc/libstdc++, python/):
# dist/kraken-VERSION-linux-x86_64.tar.gz; test-bundle runs it in a minimal Debian root.
bundle: build
	@scripts/bundle.sh $(BUILD) dist

test-bundle: bundle
	@scripts/bundle_test.sh dist/kraken-$$(sed -n 's/^project(kraken VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)-linux-$$(uname -m).tar.gz $(BUILD)

bench: build
	@scripts/bench.sh $(BUILD)

# Coverage-guided fuzzing of every parser of outside input with libFuzzer (clang), seeded
# with real files; FUZZ_SECONDS is the time of all fuzzers together (scripts/fuzz.sh).
fuzz: deps
	@scripts/install-deps.sh --with fuzz
	cmake -S . -B $(BUILD_FUZZ) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DKRAKEN_FUZZ=ON -DKRAKEN_SANITIZE=ON -DKRAKEN_BUILD_TESTS=OFF -DKRAKEN_BUILD_BENCH=OFF $(CMAKE_ARGS)
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target kraken_importers_fuzzer kraken_nvml_capture_fuzzer \
	  kraken_serve_api_fuzzer kraken_extender_args_fuzzer kraken_promql_fuzzer kraken_config_fuzzer kraken_openb_csv_fuzzer \
	  kraken_profiler_step_fuzzer kraken_k8s_objects_fuzzer kraken_mig_parted_fuzzer \
	  kraken_user_files_fuzzer kraken_smi_capture_fuzzer
	@scripts/fuzz.sh $(BUILD_FUZZ) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
