# E-Navigator build.  Everything lands under $(BUILD) (default build/): the
# source tree is never written.  See docs/adr/0002-build-system.md.
#
#   make            agent binary + BPF objects + skeletons   -> build/enav
#   make run        install build deps, build, run with the default config
#   make test       install test deps, build all variants, run every test
#   make test-kernels  integration tests in QEMU guests on Debian's kernels
#                   and on this one -> docs/kernels.md (ARGS=--kernels 6.1 ...)
#   make bench      the proof harness's quick campaign -> docs/proof/DATE-quick.md;
#                   fails when a gate fails or gives no verdict (BENCH_FLAGS=
#                   writes the report and exits 0 whatever the verdicts)
#   make microbench  span-path microbenchmarks: ns per op (bench/micro/)
#   make asan       the agent and unit tests with ASan + UBSan -> build/asan/
#   make fuzz       libFuzzer targets                         -> build/fuzz/
#   make fuzz-long  every fuzz target FUZZ_LONG_SECONDS (600) each, FUZZ_LONG_JOBS (2)
#                   at a time (FUZZ_LONG_TARGETS="fuzz_dns ..." for some); inputs that
#                   add coverage are merged, minimized, into tests/fuzz/corpus/; crash,
#                   timeout, leak and OOM inputs -> build/fuzz-long/NAME/; non-zero exit
#                   on any (scripts/fuzz_long.sh); the targets fed with tenant files
#                   run under 256 MiB RSS, 64 MiB per allocation (tests/fuzz/limits.sh)
#   make format     clang-format every C file in place
#   make deb        Debian package -> build/enav_$(VERSION)_amd64.deb (packaging/)

BUILD     ?= build
CC        := clang
BPF_CC    := clang
BPFTOOL   ?= bpftool
ARCH      := x86
VERSION   := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
GIT_REV   := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# The run, test and test-kernels targets build in a sub-make with one job per
# CPU (a clean build of every variant: 2m21s with two jobs here, about twice
# that with one); JOBS=1 builds one file at a time.
JOBS      ?= $(shell nproc)

WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CSTD      := -std=gnu17
DEFS      := -D_GNU_SOURCE -DENAV_VERSION='"$(VERSION)"' -DENAV_WITH_K8S
# V=1 shows full command lines.
ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-6s %s\n' $(1) $(2)
endif
INCS      := -Iinclude -Isrc -I$(BUILD)/bpf -I$(BUILD)
PKGS      := libbpf libmicrohttpd yaml-0.1 libcurl jansson libnghttp2 libdw capstone
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS  := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lelf -lz -lpthread -lm
CFLAGS    ?= -O2 -g
ALL_CFLAGS = $(CSTD) $(WARN) $(DEFS) $(INCS) $(PKG_CFLAGS) $(CFLAGS)

SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	     -fno-sanitize-recover=undefined
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
	      -fno-sanitize-recover=undefined -DENAV_FUZZING

# Library sources: everything except the CLI entry point, so tests link it.
LIB_SRCS  := $(sort $(filter-out src/main.c,$(shell find src -name '*.c')))
MAIN_SRC  := src/main.c
# One folder per feature under bpf/, helpers shared by all in bpf/lib/.
BPF_SRCS  := $(wildcard bpf/*/*.bpf.c)
BPF_HDRS  := $(wildcard bpf/*/*.h)
BPF_NAMES := $(notdir $(BPF_SRCS:.bpf.c=))
vpath %.bpf.c $(sort $(dir $(BPF_SRCS)))
TRANSPORTS := ringbuf perf
SKELS     := $(foreach n,$(BPF_NAMES),$(foreach t,$(TRANSPORTS),$(BUILD)/bpf/$(n)_$(t).skel.h))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
HELPER_SRCS := $(wildcard tests/integration/helpers/*.c)

.PHONY: all microbench run test test-kernels bench asan fuzz fuzz-long format format-check clean unit helpers k8s-tests \
	deb FORCE
.DELETE_ON_ERROR:
# Keep generated skeletons and objects: deleting them as intermediates would
# force every object to rebuild on the next make.
.SECONDARY:

all: $(BUILD)/enav $(BUILD)/microbench $(BUILD)/enav-bench-analyze

# ---- kernel side -----------------------------------------------------------
$(BUILD)/bpf/vmlinux.h: /sys/kernel/btf/vmlinux
	@mkdir -p $(@D)
	$(call msg,BTF,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	      -Iinclude -Ibpf/lib -I$(BUILD)/bpf

$(BUILD)/bpf/%_ringbuf.bpf.o: %.bpf.c $(BPF_HDRS) include/enav/abi.h $(BUILD)/bpf/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(BPF_CC) $(BPF_CFLAGS) -DENAV_TRANSPORT_RINGBUF -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(BUILD)/bpf/%_perf.bpf.o: %.bpf.c $(BPF_HDRS) include/enav/abi.h $(BUILD)/bpf/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(BPF_CC) $(BPF_CFLAGS) -DENAV_TRANSPORT_PERF -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

# profile_bounded.bpf.c is profile.bpf.c for kernels without bpf_loop.
$(BUILD)/bpf/profile_bounded_ringbuf.bpf.o $(BUILD)/bpf/profile_bounded_perf.bpf.o: \
	bpf/profiling/profile.bpf.c

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*) > $@

# ---- user side -------------------------------------------------------------
define objs
$(patsubst %.c,$(1)/obj/%.o,$(2))
endef

$(BUILD)/obj/%.o: %.c $(SKELS) $(BUILD)/version.h
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/enav: $(call objs,$(BUILD),$(LIB_SRCS) $(MAIN_SRC))
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(PKG_LIBS) -o $@

# The revision lives in one generated header, rewritten only when it changes,
# so a commit does not rebuild every object.
$(BUILD)/version.h: FORCE
	@mkdir -p $(@D)
	@echo '#define ENAV_GIT_REV "$(GIT_REV)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

# Microbenchmarks of the span path (bench/micro/microbench.c): built by
# `all` so they keep compiling, run only by `make microbench`.
$(BUILD)/microbench: $(call objs,$(BUILD),bench/micro/microbench.c $(LIB_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(PKG_LIBS) -o $@

microbench: $(BUILD)/microbench
	$(BUILD)/microbench

# The proof harness's analyzer (bench/analyze/): a bench tool of its own,
# not linked into the agent; bench/campaign.sh runs it.  The unit test and
# the fuzz target of the analyzer link its files besides the library's.
ANALYZE_SRCS := $(filter-out bench/analyze/main.c,$(wildcard bench/analyze/*.c))
$(BUILD)/enav-bench-analyze: $(call objs,$(BUILD),$(ANALYZE_SRCS) bench/analyze/main.c)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $^ -lm -o $@
$(patsubst tests/unit/%.c,$(BUILD)/asan/tests/%,$(wildcard tests/unit/test_bench_*.c)): \
	$(call objs,$(BUILD)/asan,$(ANALYZE_SRCS))
$(BUILD)/fuzz/fuzz_bench_analyze: $(call objs,$(BUILD)/fuzz,$(ANALYZE_SRCS))

# Sanitizer variant: same sources, separate object tree.
$(BUILD)/asan/obj/%.o: %.c $(SKELS) $(BUILD)/version.h
	@mkdir -p $(@D)
	$(call msg,CC-SAN,$<)
	$(Q)$(CC) $(CSTD) $(WARN) $(DEFS) $(INCS) $(PKG_CFLAGS) $(SAN_FLAGS) -MMD -MP -c $< -o $@

$(BUILD)/asan/enav: $(call objs,$(BUILD)/asan,$(LIB_SRCS) $(MAIN_SRC))
	$(call msg,LD,$@)
	$(Q)$(CC) $(SAN_FLAGS) $^ $(PKG_LIBS) -o $@

$(BUILD)/asan/tests/%: $(BUILD)/asan/obj/tests/unit/%.o $(call objs,$(BUILD)/asan,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(SAN_FLAGS) $^ $(PKG_LIBS) -lcmocka -ljansson -o $@

UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/asan/tests/%,$(UNIT_SRCS))
# The Kubernetes controller against the fake API server (tests/k8s/).
K8S_TEST_OBJS := $(call objs,$(BUILD)/asan,tests/k8s/test_controller.c tests/k8s/fake.c)
$(BUILD)/asan/k8s/test_controller: $(K8S_TEST_OBJS) $(call objs,$(BUILD)/asan,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(SAN_FLAGS) $^ $(PKG_LIBS) -lcmocka -o $@
k8s-tests: $(BUILD)/asan/k8s/test_controller

asan: $(BUILD)/asan/enav $(UNIT_BINS) $(BUILD)/asan/k8s/test_controller
unit: $(UNIT_BINS)

# libFuzzer variant.
$(BUILD)/fuzz/obj/%.o: %.c $(SKELS) $(BUILD)/version.h
	@mkdir -p $(@D)
	$(call msg,CC-FUZZ,$<)
	$(Q)$(CC) $(CSTD) $(WARN) $(DEFS) $(INCS) $(PKG_CFLAGS) $(FUZZ_FLAGS) -MMD -MP -c $< -o $@

$(BUILD)/fuzz/%: $(BUILD)/fuzz/obj/tests/fuzz/%.o $(call objs,$(BUILD)/fuzz,$(LIB_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC) $(FUZZ_FLAGS) $^ $(PKG_LIBS) -o $@

FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
fuzz: $(FUZZ_BINS)

# Hours, not seconds: never part of `make test` (tests/run.sh replays the
# corpora and fuzzes a few seconds per target).
FUZZ_LONG_SECONDS ?= 600
FUZZ_LONG_JOBS    ?= 2
fuzz-long: fuzz
	FUZZ_LONG_SECONDS=$(FUZZ_LONG_SECONDS) FUZZ_LONG_JOBS=$(FUZZ_LONG_JOBS) \
		FUZZ_LONG_TARGETS="$(FUZZ_LONG_TARGETS)" scripts/fuzz_long.sh $(BUILD)

# Small C programs the integration tests drive (exec storm, cgroup launcher).
$(BUILD)/helpers/%: tests/integration/helpers/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CSTD) $(WARN) $(DEFS) -O2 -g -fno-omit-frame-pointer $(HELPER_CFLAGS_$*) $< \
		-o $@ -lpthread $(HELPER_LIBS_$*)
# Helpers that drive a real client library link it (libmariadb-dev: binary
# prepared statements for tests/integration/test_l7_sql.sh).
HELPER_LIBS_mariadb_stmt := -lmariadb
# The tenant of hostile/profile_memory.sh maps crafted libraries.
HELPER_LIBS_dlopen_burn := -ldl
# The native-unwinding workload is built like a distribution binary, without
# frame pointers (the later flag wins): tests/integration/test_unwind.sh.
HELPER_CFLAGS_unwind_nofp := -fomit-frame-pointer
HELPER_BINS := $(patsubst tests/integration/helpers/%.c,$(BUILD)/helpers/%,$(HELPER_SRCS))
helpers: $(HELPER_BINS)

# ---- entry points ----------------------------------------------------------
run:
	@scripts/deps.sh build
	@$(MAKE) -j$(JOBS) --no-print-directory all
	./$(BUILD)/enav run $(if $(CONFIG),--config $(CONFIG),)

test: format-check
	@scripts/deps.sh test
	@$(MAKE) -j$(JOBS) --no-print-directory all asan fuzz helpers
	tests/run.sh $(BUILD)

# The kernel matrix (scripts/kernel_matrix.sh): tests/kernels/tests.list in a
# QEMU guest per kernel of tests/kernels/kernels.list, then natively here;
# writes docs/kernels.md.  ARGS passes options (--kernels 6.1,6.12, --no-host).
test-kernels:
	@scripts/deps.sh test
	@$(MAKE) -j$(JOBS) --no-print-directory all helpers
	BUILD=$(BUILD) scripts/kernel_matrix.sh $(ARGS)

# The proof harness's quick campaign (bench/campaign.sh): a dated report in
# docs/proof/ with the gate verdicts.  --strict: exit 3 when a gate fails, 4
# when none fails but one gives no verdict (a noisy baseline) or has no data.
# The full one: bench/campaign.sh --full.
BENCH_FLAGS ?= --strict
bench:
	@scripts/deps.sh test
	@$(MAKE) -j$(JOBS) --no-print-directory all
	BUILD=$(BUILD) bench/campaign.sh --quick $(BENCH_FLAGS)

deb: $(BUILD)/enav
	packaging/deb/build.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	clang-format --dry-run -Werror $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
