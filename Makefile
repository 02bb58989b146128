# rigkit - thin wrapper around CMake. Every target installs the Debian
# packages it needs first (scripts/install-deps.sh).
#
#   make demo      build, then run the main job on built-in sample data
#   make test      build and run every test (CTest)
#   make test-unit (test-cli, test-interop, test-build, test-slow) the tests
#                  with that CTest label; make test-fast: all but "slow"
#   make scalar    scalar-only build (-DRIGKIT_SCALAR_ONLY=ON: no SIMD
#                  skinning kernels) and its unit tests
#   make sanitize  ASan + UBSan build (clang), whole test suite, no recovery
#   make bench     benchmarks side by side with peers (results: docs/benchmarks.md)
#   make fuzz      build the libFuzzer targets (clang)
#   make wasm      WebAssembly build + browser demo (emscripten; docs/wasm.md)
#   make install   install library, headers, CLI, CMake package and rigkit.pc
#                  (PREFIX=/usr/local; docs/packaging.md)

BUILD      ?= build
SAN_BUILD  ?= build-sanitize
SCALAR_BUILD ?= build-scalar
FUZZ_BUILD ?= build-fuzz
WASM_BUILD ?= build-wasm
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX     ?= /usr/local
RIGKIT     := $(BUILD)/rigkit

TEST_LABELS := unit cli interop build slow

.PHONY: all deps build test $(TEST_LABELS:%=test-%) test-fast demo sanitize scalar bench fuzz wasm install clean

all: build

# `view` (SDL2, libepoxy, Xvfb, Mesa) so `rigkit view` is built and tested too.
deps:
	@bash scripts/install-deps.sh build view

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

test: build
	@bash scripts/install-deps.sh oracles
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

$(TEST_LABELS:%=test-%): test-%: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS) -L '^$*$$'

test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS) -LE '^slow$$'

demo: build
	@bash scripts/demo.sh $(RIGKIT)

sanitize:
	@bash scripts/install-deps.sh build view oracles sanitize
	@CC=clang CXX=clang++ cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRIGKIT_SANITIZE=ON \
		-DRIGKIT_BUILD_BENCH=OFF -DCMAKE_C_FLAGS_DEBUG="-O1 -g" >/dev/null
	@cmake --build $(SAN_BUILD) -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		RIGKIT_TEST_QUICK=1 ctest --test-dir $(SAN_BUILD) --output-on-failure -j$(JOBS)

# The unit tests without the slow one (test_fbx_robust: parser robustness,
# which the scalar switch does not touch; `make test` and `make sanitize`
# run it). The library must hold no SIMD skinning kernel.
scalar: deps
	@cmake -S . -B $(SCALAR_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIGKIT_SCALAR_ONLY=ON \
		-DRIGKIT_BUILD_BENCH=OFF -DRIGKIT_BUILD_EXAMPLES=OFF >/dev/null
	@cmake --build $(SCALAR_BUILD) -j$(JOBS)
	@if nm $(SCALAR_BUILD)/librigkit.a | grep -E ' [TtU] rki_(skin_kernel_)?(sse2|avx)'; then \
		echo "scalar: the scalar-only library holds the SIMD kernels above"; exit 1; fi
	ctest --test-dir $(SCALAR_BUILD) --output-on-failure -j$(JOBS) -L '^unit$$' -LE '^slow$$'

bench:
	@bash scripts/install-deps.sh build view bench
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DRIGKIT_WERROR=OFF >/dev/null   # -O3 false positives (-Wstringop-overflow in a test) must not stop the bench
	@cmake --build $(BUILD) -j$(JOBS) >/dev/null
	@bash scripts/bench.sh $(BUILD) | tee $(BUILD)/benchmarks.md
	@echo "(also written to $(BUILD)/benchmarks.md; docs/benchmarks.md records reviewed runs)"

fuzz:
	@bash scripts/install-deps.sh build fuzz
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRIGKIT_BUILD_FUZZ=ON \
		-DRIGKIT_BUILD_TESTS=OFF -DRIGKIT_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD) -j$(JOBS)
	@echo "fuzzers built in $(FUZZ_BUILD)/ (see fuzz/README.md)"

wasm:
	@bash scripts/install-deps.sh build wasm
	@JOBS=$(JOBS) bash scripts/build-wasm.sh $(WASM_BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(SCALAR_BUILD) $(FUZZ_BUILD) $(WASM_BUILD) out
