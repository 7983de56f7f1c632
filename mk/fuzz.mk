# mk/fuzz.mk — libFuzzer harnesses (fuzz/, docs/fuzzing.md; included by the Makefile).
#
# `make fuzz` rebuilds libgauntlet and the app library with clang under
# build/fuzz (ASan + UBSan with float-cast-overflow, libFuzzer coverage), builds
# one binary per fuzz/fuzz_*.c, extracts seeds from corpus/ and suite/data
# into build/fuzz/seeds, and runs each target for FUZZ_SECONDS. Any crash,
# leak, timeout, out-of-memory or property violation fails the target; the
# input is kept in build/fuzz/artifacts/<target>/.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SRC     := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_NAMES   := $(FUZZ_SRC:fuzz/%.c=%)
FUZZ_SAN     := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow

ifeq ($(FUZZ),1)
CFLAGS  += -fsanitize=fuzzer-no-link $(FUZZ_SAN) -fno-omit-frame-pointer
endif

.PHONY: fuzz fuzz-run

## fuzz: libFuzzer harnesses (clang), each for FUZZ_SECONDS (default 60); fails on crash, leak, timeout or OOM
fuzz:
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz: $(FUZZ_CC) not found (sh scripts/deps fuzz installs clang and libFuzzer)"; exit 1; }
	$(MAKE) BUILD=build/fuzz CC=$(FUZZ_CC) FUZZ=1 OPT=-O1 fuzz-run

fuzz-run: $(FUZZ_NAMES:%=$(BUILD)/fuzz/%) $(BUILD)/fuzz/seed_extract
	@BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) sh scripts/fuzz.sh $(FUZZ_NAMES)

$(BUILD)/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(BUILD)/libgtapp.a $(BUILD)/libgauntlet.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ifuzz -fsanitize=fuzzer -o $@ $< $(BUILD)/libgtapp.a $(BUILD)/libgauntlet.a $(LDLIBS)

$(BUILD)/fuzz/seed_extract: fuzz/seed_extract.c $(BUILD)/libgtapp.a $(BUILD)/libgauntlet.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FUZZ_SAN) -o $@ $< $(BUILD)/libgtapp.a $(BUILD)/libgauntlet.a $(LDLIBS)

# Every harness also builds without libFuzzer (fuzz/replay.c: each argument, a
# file or a directory, is fed once) in a normal build, and `make test` depends
# on them, so a harness keeps compiling with the code it drives.
FUZZ_REPLAY := $(FUZZ_NAMES:fuzz_%=$(BUILD)/replay/replay_%)

$(BUILD)/replay/replay_%: fuzz/fuzz_%.c fuzz/replay.c fuzz/fuzz.h $(BUILD)/libgtapp.a $(BUILD)/libgauntlet.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ifuzz $(LDFLAGS) -o $@ $< fuzz/replay.c $(BUILD)/libgtapp.a $(BUILD)/libgauntlet.a $(LDLIBS)

ifneq ($(FUZZ),1)
test: $(FUZZ_REPLAY)
endif
