# Makefile - builds the BPF object and its skeleton, retsnoop-record,
# retsnoop-report, simfail and the unit tests; `make test` runs every test.
# Sources are picked up per folder (see docs/design.md for who owns what).
# Header dependencies come from the compiler (-MMD -MP, build/**/*.d); only
# record/ and live/ objects need the BPF skeleton, so retsnoop-report builds
# without clang and bpftool.

CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
PREFIX  ?= /usr/local
DESTDIR ?=
O       := build

WARN     := -Wall -Wextra
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARN) -I. -I$(O) -D_GNU_SOURCE
DEPFLAGS := -MMD -MP
LDLIBS   := -lbpf -ldw -lelf -lz -lzstd -lpthread -lm -ldl
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

ARCH := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
# every BPF object (ISA v3: 32-bit ALU and jumps; Linux 6.1 loads it)
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -I. \
	      -idirafter /usr/include/$(shell uname -m)-linux-gnu

COMMON_SRCS := $(wildcard common/*.c symbols/*.c)
FORMAT_SRCS := $(wildcard format/*.c)
REPORT_SRCS := $(filter-out report/main.c,$(wildcard report/*.c))
RECORD_SRCS := $(filter-out record/main.c,$(wildcard record/*.c))
LIB_SRCS    := $(COMMON_SRCS) $(FORMAT_SRCS) $(REPORT_SRCS)
TEST_SRCS   := $(wildcard tests/unit/test_*.c)

LIB_OBJS    := $(LIB_SRCS:%.c=$(O)/%.o)
BASE_OBJS   := $(COMMON_SRCS:%.c=$(O)/%.o) $(FORMAT_SRCS:%.c=$(O)/%.o)
REPORT_OBJS := $(REPORT_SRCS:%.c=$(O)/%.o)
RECORD_OBJS := $(RECORD_SRCS:%.c=$(O)/%.o)
ASAN_OBJS   := $(LIB_SRCS:%.c=$(O)/asan/%.o) $(RECORD_SRCS:%.c=$(O)/asan/%.o)
TEST_BINS   := $(TEST_SRCS:tests/unit/%.c=$(O)/tests/%)
# objects whose sources may include the skeleton (build order only; the
# .d files then make the ones that do include it depend on it)
SKEL_USERS  := $(RECORD_SRCS:%.c=$(O)/%.o) $(RECORD_SRCS:%.c=$(O)/asan/%.o) \
	       $(O)/record/main.o $(O)/live/main.o
ALL_OBJS    := $(LIB_OBJS) $(RECORD_OBJS) $(ASAN_OBJS) $(O)/record/main.o \
	       $(O)/report/main.o $(O)/live/main.o

BINS := $(O)/retsnoop-record $(O)/retsnoop-report $(O)/simfail
ifneq ($(wildcard live/main.c),)
BINS += $(O)/retsnoop
endif

# test programs of tests/vm/ustack.sh (-U) and scenarios.sh (cpu_hop), installed nowhere
USTACK_TEST_BINS := $(O)/ustack_prog_static $(O)/ustack_prog_dyn $(O)/ustack_dump

.PHONY: all clean install test test-unit test-golden test-vm fuzz
all: $(BINS) $(USTACK_TEST_BINS) $(O)/cpu_hop

# ------------------------------------------------------------------ BPF --
$(O)/retsnoop.bpf.o: bpf/retsnoop.bpf.c $(wildcard bpf/*.h) | $(O)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# the lean build of the same source (bpf/lean_knobs.h): record/bpf_objects.c
# embeds its bytes and opens them through the general skeleton, so the two
# must agree on everything but the bytes (maps, programs, .rodata and .bss
# layout): the check compares the skeleton bpftool makes of each
$(O)/retsnoop_lean.bpf.o: bpf/retsnoop.bpf.c $(wildcard bpf/*.h) | $(O)
	$(CLANG) $(BPF_CFLAGS) -DRS_LEAN -c $< -o $@

$(O)/retsnoop.skel.h: $(O)/retsnoop.bpf.o
	$(BPFTOOL) gen skeleton $< name retsnoop_bpf > $@

$(O)/retsnoop_lean.checked: $(O)/retsnoop_lean.bpf.o $(O)/retsnoop.skel.h
	$(BPFTOOL) gen skeleton $< name retsnoop_bpf | sed -n '1,/__elf_bytes(&s->data_sz)/p' > $@.b
	sed -n '1,/__elf_bytes(&s->data_sz)/p' $(O)/retsnoop.skel.h > $@.a
	@cmp -s $@.a $@.b || { echo "the lean BPF object's skeleton differs from the general one's" \
		"(maps, programs or .rodata layout): diff $@.a $@.b" >&2; exit 1; }
	@rm -f $@.a $@.b
	touch $@

$(O)/record/bpf_objects.o $(O)/asan/record/bpf_objects.o: $(O)/retsnoop_lean.bpf.o $(O)/retsnoop_lean.checked
$(O)/record/bpf_objects.o $(O)/asan/record/bpf_objects.o: CFLAGS += -DRS_LEAN_OBJ='"$(O)/retsnoop_lean.bpf.o"'

# the kallsyms reader's ksym iterator (record/ksym_iter.c), its own object
$(O)/ksym_iter.bpf.o: bpf/ksym_iter.bpf.c bpf/ksym_iter_abi.h bpf/kernel_types.h | $(O)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/ksym_iter.skel.h: $(O)/ksym_iter.bpf.o
	$(BPFTOOL) gen skeleton $< name ksym_iter_bpf > $@

# ------------------------------------------------------------ C objects --
$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(O)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SANFLAGS) $(DEPFLAGS) -c $< -o $@

$(SKEL_USERS): | $(O)/retsnoop.skel.h $(O)/ksym_iter.skel.h

# built through the test binaries' pattern rule: keep them between runs
.SECONDARY: $(ASAN_OBJS)

-include $(ALL_OBJS:.o=.d)

# record/ and report/ never link each other: only the live tool composes them
$(O)/retsnoop-record: $(O)/record/main.o $(RECORD_OBJS) $(BASE_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(O)/retsnoop-report: $(O)/report/main.o $(REPORT_OBJS) $(BASE_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(O)/retsnoop: $(O)/live/main.o $(RECORD_OBJS) $(REPORT_OBJS) $(BASE_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(O)/mkrec: tests/golden/mkrec.c tests/golden/reclib.c tests/golden/reclib.h $(LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $< tests/golden/reclib.c $(LIB_OBJS) $(LDLIBS)

$(O)/mkrec_views: tests/golden/mkrec_views.c tests/golden/reclib.c tests/golden/reclib.h $(LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $< tests/golden/reclib.c $(LIB_OBJS) $(LDLIBS)

# the host user-stack test (tests/ustack): the self-capture program, -O2 -g
# without frame pointers, dynamic and static (libc only), and the dump to
# recording converter
USTACK_CFLAGS := -O2 -g -fomit-frame-pointer -Wall -Wextra
$(O)/selfcap: tests/ustack/selfcap.c | $(O)
	$(CC) $(USTACK_CFLAGS) -o $@ $<

$(O)/selfcap-static: tests/ustack/selfcap.c | $(O)
	$(CC) $(USTACK_CFLAGS) -static -o $@ $<

$(O)/mkustack: tests/ustack/mkustack.c tests/golden/reclib.c tests/golden/reclib.h $(LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $< tests/golden/reclib.c $(LIB_OBJS) $(LDLIBS)

USTACK_TEST := $(O)/selfcap $(O)/selfcap-static $(O)/mkustack

$(O)/mkrec_probes: tests/golden/mkrec_probes.c tests/golden/reclib.c tests/golden/reclib.h $(LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $< tests/golden/reclib.c $(LIB_OBJS) $(LDLIBS)

$(O)/mkrec_args: tests/golden/mkrec_args.c tests/golden/reclib.c tests/golden/reclib.h $(LIB_OBJS)
	$(CC) $(CFLAGS) -o $@ $< tests/golden/reclib.c $(LIB_OBJS) $(LDLIBS)

$(O)/args_dump: tests/vm/args_dump.c $(BASE_OBJS)
	$(CC) $(CFLAGS) -o $@ $< $(BASE_OBJS) $(LDLIBS)

$(O)/ksyms_dump: tests/vm/ksyms_dump.c $(BASE_OBJS)
	$(CC) $(CFLAGS) -o $@ $< $(BASE_OBJS) $(LDLIBS)

$(O)/simfail: tests/simfail/simfail.c | $(O)
	$(CC) $(CFLAGS) -o $@ $<

# static: no dynamic loader's own failing openat()s in its sessions
$(O)/cpu_hop: tests/cpu_hop/cpu_hop.c | $(O)
	$(CC) $(CFLAGS) -static -o $@ $<

# without frame pointers on purpose: the report unwinds them with CFI
$(O)/ustack_prog_static: tests/ustack/ustack_prog.c | $(O)
	$(CC) -O2 -g -fomit-frame-pointer -static -o $@ $<

$(O)/ustack_prog_dyn: tests/ustack/ustack_prog.c | $(O)
	$(CC) -O2 -g -fomit-frame-pointer -o $@ $<

$(O)/ustack_dump: tests/ustack/ustack_dump.c $(FORMAT_SRCS:%.c=$(O)/%.o)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(O)/tests/%: tests/unit/%.c $(ASAN_OBJS) tests/unit/testlib.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SANFLAGS) -o $@ $< $(ASAN_OBJS) $(LDLIBS)

$(O):
	mkdir -p $(O)

# ----------------------------------------------------------------- fuzz --
# libFuzzer targets (tests/fuzz): the report-side libraries and
# retsnoop-report's main (renamed) built with clang under ASan/UBSan and
# fuzzer coverage in their own directory; the normal build is untouched
FUZZ_CC    := $(CLANG)
FUZZ_FLAGS := -g -O1 -std=gnu11 $(WARN) -I. -D_GNU_SOURCE -fno-omit-frame-pointer \
	      -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_SRCS  := $(COMMON_SRCS) $(FORMAT_SRCS) $(REPORT_SRCS) report/main.c
FUZZ_OBJS  := $(FUZZ_SRCS:%.c=$(O)/fuzz/obj/%.o)
FUZZ_BINS  := $(O)/fuzz/fuzz_reader $(O)/fuzz/fuzz_report $(O)/fuzz/fuzz_args
-include $(FUZZ_OBJS:.o=.d)

$(O)/fuzz/obj/report/main.o: report/main.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -Dmain=report_cli_main -c $< -o $@

$(O)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(O)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_file.h $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(LDLIBS)

fuzz: $(FUZZ_BINS)

# ---------------------------------------------------------------- tests --
test: all $(TEST_BINS) $(O)/mkrec $(O)/args_dump $(O)/ksyms_dump $(USTACK_TEST) fuzz
	tests/run-all.sh

test-unit: $(TEST_BINS)
	tests/run-all.sh unit

test-golden: all $(O)/mkrec
	tests/run-all.sh golden

test-vm: all $(O)/args_dump $(O)/ksyms_dump
	tests/run-all.sh vm

# -------------------------------------------------------------- install --
install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	if [ -d docs/man ]; then install -d $(DESTDIR)$(PREFIX)/share/man/man1 && \
		install -m 0644 docs/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/; fi
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 completion/retsnoop.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/retsnoop
	ln -sf retsnoop $(DESTDIR)$(PREFIX)/share/bash-completion/completions/retsnoop-record
	ln -sf retsnoop $(DESTDIR)$(PREFIX)/share/bash-completion/completions/retsnoop-report

clean:
	rm -rf $(O)
