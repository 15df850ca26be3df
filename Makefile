# ringside: eBPF observability for AES-GCM, memcg reclaim and btrfs reclaim.
# make            build library, CLI and tests' helpers
# make check      unit + integration tests (integration needs root + BPF);
#                 installs the Debian packages it lacks first (deps, kernel-deps)
# make demo       run the main job on the built-in workloads (installs deps first)
# make check REPEAT=N [TESTS="btrfs gcm"]  run the selection N times, per-test failure table
# make bench      overhead and resolver benchmarks
# make deps       install the Debian packages the build and tests need
# make install PREFIX=/usr/local [DESTDIR=...]
# make SAN=1 ...  ASan + UBSan build of all user-space code
# make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="symtab ..."]  libFuzzer runs on the parsers

VERSION   := 0.1.0
ARCH      ?= x86
PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
OUT       ?= build
CLANG     ?= clang
BPFTOOL   ?= bpftool
CC        ?= cc
AR        ?= ar
PKG_CONFIG?= pkg-config

# Debian packages the build, the tests and the demo need (make deps).
DEB_BUILD := clang llvm libbpf-dev bpftool libelf-dev libdw-dev libcapstone-dev zlib1g-dev pkg-config make gcc \
             libmicrohttpd-dev libyaml-dev libcrypt-dev libcairo2-dev
DEB_TEST  := libssl-dev libgnutls28-dev libgcrypt20-dev openssl btrfs-progs bpftrace \
             util-linux procps kmod python3 libclang-rt-14-dev gnutls-bin nettle-dev \
             golang-go prometheus curl strace
DEB_PKGS  := $(DEB_BUILD) $(DEB_TEST)

ifeq ($(SAN),1)
OUT       := build-san
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

WARN      := -Wall -Wextra -Werror -Wno-missing-field-initializers -Wno-format-truncation
CFLAGS    ?= -O2 -g
# src/ by domain: core (session, totals, features, state journal), sys (procfs,
# cgroupfs, sysfs, ELF, kallsyms), and one folder per collector, each holding
# its X.bpf.c beside the X.c that loads it.
SRC_DIRS  := $(sort $(dir $(wildcard src/*/*.c)))
SRC_INC   := $(patsubst %/,-I%,$(SRC_DIRS))
# -fno-math-errno: sqrt() is an instruction, not a libm call (nothing reads
# errno after math), so no command maps libm for it.
ALL_CFLAGS:= -std=gnu11 -D_GNU_SOURCE -fno-math-errno $(WARN) $(CFLAGS) $(SANFLAGS) -Iinclude -I$(OUT) $(SRC_INC)
# libdw (--stacks) and capstone (Go return sites) are opened on first use,
# not linked (src/sys/dl_bind.h); their headers are still needed to build.
LDLIBS    := $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null || echo -lbpf) -lelf -lz \
	     -Wl,--as-needed -lm -Wl,--no-as-needed
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)
# The CLI's own libraries (the agent's YAML config, bcrypt and HTTP server,
# the profile's charts) are opened on first use, not linked (src/sys/dl_bind.h).
CAIRO_CFLAGS := $(shell $(PKG_CONFIG) --cflags cairo 2>/dev/null)

BPF_SRCS  := $(wildcard src/*/*.bpf.c)
BPF_NAMES := $(notdir $(BPF_SRCS:.bpf.c=))
BPF_OBJS  := $(patsubst %,$(OUT)/bpf/%.bpf.o,$(BPF_NAMES))
SKELS     := $(patsubst %,$(OUT)/%.skel.h,$(BPF_NAMES))
vpath %.bpf.c $(SRC_DIRS) bench
LIB_SRCS  := $(filter-out %.bpf.c,$(wildcard src/*/*.c))
LIB_OBJS  := $(patsubst src/%.c,$(OUT)/lib/%.o,$(LIB_SRCS))
CLI_SRCS  := $(wildcard tools/ringside/*.c)
CLI_OBJS  := $(patsubst tools/ringside/%.c,$(OUT)/cli/%.o,$(CLI_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
PROG_SRCS := $(wildcard tests/progs/*.c)
PROG_BINS := $(patsubst tests/progs/%.c,$(OUT)/tests/progs/%,$(PROG_SRCS)) \
             $(OUT)/tests/progs/gcm_go $(OUT)/tests/progs/gcm_go_stripped $(OUT)/tests/progs/nogcm_go
BENCH_SRCS:= $(filter-out %.bpf.c,$(wildcard bench/*.c))
BENCH_BINS:= $(patsubst bench/%.c,$(OUT)/bench/%,$(BENCH_SRCS))
# Benches' own BPF programs (the ring-buffer bench's producer), built as the
# library's are but not part of it.
BENCH_SKELS := $(patsubst bench/%.bpf.c,$(OUT)/%.skel.h,$(wildcard bench/*.bpf.c))

LIB_A     := $(OUT)/libringside.a
LIB_SO    := $(OUT)/libringside.so.$(VERSION)
CLI       := $(OUT)/ringside

.PHONY: all lib cli tests check check-run unit integration demo demo-run bench deps install clean vmlinux kernel-deps kernel-check fuzz fuzz-build
.DELETE_ON_ERROR:
.SECONDARY:

all: $(LIB_A) $(LIB_SO) $(CLI) $(OUT)/ringside.pc

# ---- BPF objects and skeletons --------------------------------------------
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
              -Ivmlinux/$(ARCH) -Iinclude -Isrc/core

$(OUT)/bpf/%.bpf.o: %.bpf.c src/core/common.bpf.h include/ringside/events.h vmlinux/$(ARCH)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -MMD -MP -MF $(@:.o=.d) -MT $@ -c $< -o $@.tmp
	$(BPFTOOL) gen object $@ $@.tmp
	@rm -f $@.tmp

$(OUT)/%.skel.h: $(OUT)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# ---- library ---------------------------------------------------------------
# Skeletons exist before any object compiles; depfiles rebuild only the
# objects that include a changed one.
$(OUT)/lib/%.o: src/%.c | $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -DRINGSIDE_BUILD -MMD -MP -c $< -o $@

$(LIB_A): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIB_SO): $(LIB_OBJS)
	$(CC) -shared -Wl,-soname,libringside.so.0 $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
	ln -sf libringside.so.$(VERSION) $(OUT)/libringside.so.0
	ln -sf libringside.so.0 $(OUT)/libringside.so

$(OUT)/ringside.pc: ringside.pc.in Makefile
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

# ---- CLI ---------------------------------------------------------------------
$(OUT)/cli/%.o: tools/ringside/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itools/ringside $(if $(filter %/profile_chart.o,$@),$(CAIRO_CFLAGS)) -MMD -MP -c $< -o $@

# libbpf's own calls of btf__load_vmlinux_btf() reach the binary's
# (tools/ringside/libbpf_vmlinux_btf.c) only if the binary exports it.
$(CLI): $(CLI_OBJS) $(LIB_A)
	$(CC) $(ALL_LDFLAGS) -Wl,--export-dynamic-symbol=btf__load_vmlinux_btf -o $@ $(CLI_OBJS) $(LIB_A) \
	  $(LDLIBS)

# ---- tests -------------------------------------------------------------------
$(OUT)/tests/test_%: tests/unit/test_%.c tests/unit/unit.h tests/frozen_child.h $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(LIB_A) $(LDLIBS) -lm -ldl

# The BTF reader's test reads the bench's prices object too: it calls a kfunc.
$(OUT)/tests/test_btf_reader: $(OUT)/bpf_prices.skel.h

# A CLI helper with a unit test of its own: the test links its object.
$(OUT)/tests/test_text_buf: tests/unit/test_text_buf.c tests/unit/unit.h $(OUT)/cli/text_buf.o
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/unit -Itools/ringside -o $@ $< $(OUT)/cli/text_buf.o

# Workload programs; the ones named *_crypto link the real crypto libraries.
PROG_LIBS_gcm_workload := -lcrypto -lssl $(shell $(PKG_CONFIG) --libs gnutls libgcrypt nettle 2>/dev/null)
PROG_LIBS_gcm_chain := $(PROG_LIBS_gcm_workload)
PROG_LIBS_map_fill := -lbpf
# Like Debian's crypto libraries: only .eh_frame can unwind it.
PROG_FLAGS_gcm_chain := -fomit-frame-pointer
PROG_FLAGS_nopie_target := -no-pie -fno-pie
# its inline asm calls a function: no red zone for the call to clobber
PROG_FLAGS_uretprobe_check := -mno-red-zone
$(OUT)/tests/progs/%: tests/progs/%.c tests/median.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -O1 -fno-omit-frame-pointer $(PROG_FLAGS_$*) -o $@ $< $(PROG_LIBS_$*) -ldl -lpthread

# The Go workload: built with Debian's Go toolchain (statically linked, like
# the Go programs ringside meets), once with symbols and once stripped.
GO_ENV := GOCACHE=$(abspath $(OUT))/go-cache GOPATH=$(abspath $(OUT))/go-path GO111MODULE=off \
          CGO_ENABLED=0 GOFLAGS=
$(OUT)/tests/progs/%_go: tests/progs/go/%_go.go
	@mkdir -p $(@D)
	$(GO_ENV) go build -o $@ $<
$(OUT)/tests/progs/gcm_go_stripped: tests/progs/go/gcm_go.go
	@mkdir -p $(@D)
	$(GO_ENV) go build -ldflags='-s -w' -o $@ $<

# ---- fuzzing: libFuzzer (clang) with ASan+UBSan over the whole library --------
# Targets are tests/fuzz/fuzz_NAME.c; seeds (and every crash ever found, as
# regressions) under tests/fuzz/corpus/NAME and tests/fuzz/crashes/NAME.
# make check replays them all; make fuzz explores for FUZZ_SECONDS each.
FUZZ_OUT    := build-fuzz
FUZZ_SRCS   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS   := $(patsubst tests/fuzz/%.c,$(FUZZ_OUT)/%,$(FUZZ_SRCS))
FUZZ_SAN    := -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(filter-out -Wno-format-truncation,$(WARN)) -Iinclude -I$(OUT) $(SRC_INC) -Itools/ringside
FUZZ_OBJS   := $(patsubst src/%.c,$(FUZZ_OUT)/lib/%.o,$(LIB_SRCS)) $(FUZZ_OUT)/cli/cli.o
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRCS))

$(FUZZ_OUT)/lib/%.o: src/%.c | $(SKELS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

$(FUZZ_OUT)/cli/cli.o: tools/ringside/cli.c
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJS)
	$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_OBJS) $(LDLIBS) -lm

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_OUT)/corpus/$$t $(FUZZ_OUT)/crashes tests/fuzz/crashes/$$t; \
		echo "== fuzz_$$t for $(FUZZ_SECONDS) s"; \
		$(FUZZ_OUT)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -close_fd_mask=3 \
			-artifact_prefix=$(FUZZ_OUT)/crashes/$$t- \
			$(FUZZ_OUT)/corpus/$$t tests/fuzz/corpus/$$t tests/fuzz/crashes/$$t 2>&1 | \
			grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY)' || true; \
	done

tests: all $(UNIT_BINS) $(PROG_BINS) $(if $(SAN),,$(FUZZ_BINS))

# The two README commands install what they lack, then build in a fresh make
# (pkg-config answers above must be read after the packages are there).
check:
	@tools/deps.sh $(DEB_PKGS) $(KERNEL_PKGS)
	@$(MAKE) --no-print-directory check-run

check-run: tests
	@OUT=$(OUT) SANFLAGS="$(SANFLAGS)" REPEAT="$(REPEAT)" tests/run-tests.sh $(TESTS)

unit: $(UNIT_BINS)
	@OUT=$(OUT) tests/run-tests.sh unit

integration: tests
	@OUT=$(OUT) tests/run-tests.sh integration

# ---- demo and bench ----------------------------------------------------------
demo:
	@tools/deps.sh $(DEB_PKGS)
	@$(MAKE) --no-print-directory demo-run

demo-run: all $(PROG_BINS)
	@OUT=$(OUT) tools/demo.sh

$(OUT)/bench/%: bench/%.c tests/frozen_child.h tests/median.h $(LIB_A) | $(BENCH_SKELS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_A) $(LDLIBS) -lm $(PROG_LIBS_$*)

bench: all $(BENCH_BINS) $(PROG_BINS)
	@OUT=$(OUT) bench/run.sh

# ---- kernel: the 6.1 test kernel under qemu (see kernel/ and README) ----------
KERNEL_PKGS := linux-source-6.1 linux-source-6.12 qemu-system-x86 busybox-static flex bison bc dwarves cpio libzstd-dev libbz2-dev

kernel-deps:
	@tools/deps.sh $(KERNEL_PKGS)

kernel-check:
	@OUT=$(OUT) tools/kernel-check.sh

# ---- housekeeping ------------------------------------------------------------
deps:
	@OUT=$(OUT) tools/deps.sh $(DEB_PKGS)

vmlinux:
	tools/gen-vmlinux.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include/ringside $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/ringside
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libringside.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libringside.so.0
	ln -sf libringside.so.0 $(DESTDIR)$(LIBDIR)/libringside.so
	install -m 644 include/ringside/*.h $(DESTDIR)$(PREFIX)/include/ringside/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	  ringside.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/ringside.pc
	install -m 644 man/ringside.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed -e 's|/usr/local/bin/|$(PREFIX)/bin/|' dist/ringside.service \
	  > $(DESTDIR)$(PREFIX)/lib/systemd/system/ringside.service

clean:
	rm -rf build build-san build-fuzz

-include $(wildcard $(OUT)/lib/*/*.d $(OUT)/cli/*.d $(OUT)/bpf/*.d)
