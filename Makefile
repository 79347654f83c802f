# simtlab: the user interface. `make demo` and `make test` do all set-up themselves.
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/cuda/bin
JOBS ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps deps-build configure build build-demo test demo bench format format-check asan test-asan clean docs

all: build

deps:
	@scripts/install-deps.sh

# Only what configuring and building simtlab needs (`make demo`).
deps-build:
	@scripts/install-deps.sh --build

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

configure: $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# What the demo needs and nothing more: simtlab, the replacement libcudart.so.13 and the example
# (the unit tests, test programs and workloads are built by `make build` / `make test`).
build-demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target simtlab vector_add_prog

test: deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

demo: deps-build build-demo
	$(BUILD)/bin/simtlab run --stats $(BUILD)/demo-stats.json -- $(BUILD)/examples/vector_add

bench: deps build
	cmake --build $(BUILD) -j $(JOBS) --target simtlab_bench
	scripts/bench.sh $(BUILD)

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

format-check:
	git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run -Werror

# Address/UB-sanitizer build of the unit tests (CI runs it after `make test`).
test-asan: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSIMTLAB_SANITIZE=ON -DSIMTLAB_CUDA_TESTS=OFF
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS) --timeout 900 -L unit

clean:
	rm -rf $(BUILD) build-asan
