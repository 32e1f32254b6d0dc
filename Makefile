# The two set-up commands: `make demo` and `make check`. Both install what is
# missing (scripts/install-deps), configure and build into build/.
BUILD ?= build
# One compile job a core: make demo from a fresh clone took 183 s at -j2 on
# two cores and 211 s at -j3 (batches of 32 files contend for the caches).
NPROC := $(shell nproc)
JOBS ?= $(NPROC)
STAMP := $(BUILD)/.deps-installed

.PHONY: all build tool demo check check-benches check-asan fuzz bench format clean deps deb load portable \
  check-portable real-gpu-kit

all: build

$(STAMP): scripts/install-deps
	scripts/install-deps
	mkdir -p $(BUILD) && touch $(STAMP)

deps: $(STAMP)

$(BUILD)/build.ninja: CMakeLists.txt tests/mock_nvml/CMakeLists.txt | $(STAMP)
	cmake -S . -B $(BUILD) -G Ninja

build: $(STAMP) $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The tool and the mock library (its three driver variants), not the tests.
tool: $(STAMP) $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target gpu-triage mock_nvml_all

# The story (tests/scenarios/story, scripts/demo): the node the morning after.
# It needs the tool and the current driver's mocks only (NVML and libcuda).
demo: $(STAMP) $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target gpu-triage mock_nvml_current mock_cuda
	@echo "== gpu-triage on the node after the crash (tests/scenarios/story, scripts/demo) =="
	@GT_BUILD_DIR=$(BUILD) scripts/demo $(BUILD)/gpu-triage; rc=$$?; \
	  echo "(exit code $$rc)"

# ctest's slots: most end-to-end tests wait (a sample window, a watch's
# interval, a tmux screen) more than they compute: the suite's 1,093 s of
# tests use 413 s of CPU, so three slots per core (on two cores: 528 s of
# tests at -j2, 302 s at -j4, 221 s at -j6, near the 207 s its CPU takes).
# The benches' build (build.benches, label bench: a minute of compiling on
# two cores) is make check-benches, which CI runs after make check.
TEST_JOBS ?= $(shell echo $$(( $(NPROC) * 3 )))

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS) -LE 'load|bench'  # make load: the serve load test

# Every bench target still compiles (make bench builds and runs them).
check-benches: build
	cd $(BUILD) && ctest --output-on-failure -L bench

# The whole suite again under AddressSanitizer and UndefinedBehaviorSanitizer
# (clang, build-asan/), every report fatal; .ci/run runs it after check.
check-asan: $(STAMP)
	scripts/check-asan

# Each fuzz target explored with libFuzzer for FUZZ_SECONDS (default 60).
fuzz: $(STAMP)
	scripts/fuzz

bench: build
	cmake --build $(BUILD) --target gt_bench
	$(BUILD)/gt_bench
	cmake --build $(BUILD) --target gt_fleet_bench
	$(BUILD)/gt_fleet_bench
	cmake --build $(BUILD) --target gt_kernel_log_bench
	$(BUILD)/gt_kernel_log_bench
	cmake --build $(BUILD) --target gt_history_bench
	$(BUILD)/gt_history_bench
	cmake --build $(BUILD) --target gt_readiness_bench
	$(BUILD)/gt_readiness_bench
	cmake --build $(BUILD) --target gt_json_redact_bench
	$(BUILD)/gt_json_redact_bench
	cmake --build $(BUILD) --target gt_data_floor
	bench/data_bench.sh $(BUILD)
	bench/watch_bench.sh $(BUILD)
	bench/cuda_bench.sh $(BUILD)
	bench/fingerprint_bench.sh $(BUILD)
	bench/build_bench.sh  # clean builds from a fresh clone: several minutes

# One x86-64 binary that needs only glibc (2.34 or newer): copy it to the
# node. packaging/portable.cmake says how each library is linked in.
PORTABLE ?= build-portable
portable: $(STAMP)
	cmake -S . -B $(PORTABLE) -G Ninja -DGT_PORTABLE=ON -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG"
	cmake --build $(PORTABLE) -j $(JOBS) --target gpu-triage gt_manpage
	strip $(PORTABLE)/gpu-triage
	@echo "portable binary: $(PORTABLE)/gpu-triage ($$(du -h $(PORTABLE)/gpu-triage | cut -f1))"

# ldd shows only glibc, GLIBC symbols at most 2.34, runs with env -i.
check-portable: portable tool
	scripts/check-portable $(PORTABLE)/gpu-triage

# What a borrowed GPU machine needs, in one git-ignored folder
# (docs/real-gpu.md): the portable binary and scripts/real-gpu-check with
# its helpers. There: real-gpu-kit/real-gpu-check --out DIR.
real-gpu-kit: portable
	scripts/make-real-gpu-kit $(PORTABLE)/gpu-triage real-gpu-kit

# The package of the portable binary: it depends on libc6 only.
deb: portable
	cmake --build $(PORTABLE) --target gt_manpage
	cd $(PORTABLE) && cpack -G DEB
	@ls $(PORTABLE)/gpu-triage_*.deb

load: build
	cd $(BUILD) && ctest --output-on-failure -L load

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD) build-asan build-fuzz $(PORTABLE)
