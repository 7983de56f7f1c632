# gauntlet — conformance suite for structured-output pipelines.
# `make help` lists the targets.

CC      ?= cc
PREFIX  ?= /usr/local
BUILD   ?= build
PKGS    := libcjson libcurl libmicrohttpd libpcre2-8 libidn2 nettle
# libunistring (Unicode bidi classes for IDNA2008's Bidi rule) ships no .pc file.
UNISTRING := -lunistring

# A fresh Debian machine: install the missing packages before anything asks
# pkg-config for flags (scripts/deps installs only what is missing).
ifeq ($(shell pkg-config --exists $(PKGS) check 2>/dev/null && test -f /usr/include/unictype.h && test -f /usr/lib/python3/dist-packages/jsonschema/schemas/draft2020-12.json && command -v xmllint zsh groff >/dev/null && echo yes),)
$(info gauntlet: some Debian packages are missing; running scripts/deps)
DEPS_STATUS := $(shell sh scripts/deps >&2 && echo ok)
ifneq ($(DEPS_STATUS),ok)
$(error scripts/deps failed: install the packages it names, then run make again)
endif
endif
OPT     ?= -O2
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -fPIC $(WARN) -Iinclude -I. -I$(BUILD)/gen $(shell pkg-config --cflags $(PKGS)) -pthread
LDLIBS  += $(shell pkg-config --libs $(PKGS)) $(UNISTRING) -lm -pthread
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
# The gauntlet binary links neither libcurl nor libmicrohttpd: platform/lazy_net.c
# dlopens them on the first HTTP call, so one-shot commands skip loading their
# dependency trees (bench/startup.sh). The sonames come from the -dev packages.
NET_PKGS := libcurl libmicrohttpd
soname = $(shell objdump -p $$($(CC) -print-file-name=$(1)) 2>/dev/null | sed -n 's/^ *SONAME *//p')
LAZY_NET_DEFS = -DGT_CURL_SONAME='"$(or $(call soname,libcurl.so),libcurl.so.4)"' \
                 -DGT_MHD_SONAME='"$(or $(call soname,libmicrohttpd.so),libmicrohttpd.so.12)"'
GAUNTLET_LDLIBS := $(shell pkg-config --libs $(filter-out $(NET_PKGS),$(PKGS))) $(UNISTRING) -lm -pthread -ldl

# float-cast-overflow is not part of gcc's `undefined` group: attacker numbers
# (1e300 tokens) converted to integers must trip the suite, not wrap silently.
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=undefined,float-cast-overflow
LDFLAGS += -fsanitize=address,undefined,float-cast-overflow
endif
ifeq ($(COV),1)
CFLAGS  += --coverage -O0
LDFLAGS += --coverage
endif
ifeq ($(WERROR),1)
CFLAGS  += -Werror
endif

# libgauntlet: the reference pipeline (one file per gate or layer).
LIB_SRC  := $(sort $(wildcard reference/*.c))
# Generated sources (embedded metaschemas, ...) are compiled into libgauntlet.
GEN_SRC  :=
# Everything the CLI needs besides libgauntlet: runner (engine, explorer, targets, CLI), reports, mock server.
APP_SRC  := $(sort $(wildcard runner/*.c runner/explore/*.c runner/targets/*.c) $(filter-out runner/cli/main.c,$(wildcard runner/cli/*.c)) $(wildcard reports/*.c) $(wildcard mocks/*.c))
# The platform room (platform/lazy_net.c): linked into the gauntlet binary only.
PLATFORM_SRC := $(sort $(wildcard platform/*.c))
TEST_SRC := $(sort $(wildcard suite/test_*.c))
BENCH_SRC := $(sort $(wildcard bench/*.c))
ADAPTER_SRC := $(sort $(wildcard adapters/*/main.c))

# What `make install` ships (mk/install.mk): one library holding every function
# of the public headers (reference, corpus and runner engine, reports, mock),
# static and shared (soname libgauntlet.so.$(SOVERSION)).
VERSION   := $(shell sed -n 's/^\#define GAUNTLET_VERSION "\(.*\)"/\1/p' include/gauntlet/version.h)
SOVERSION := 0
DIST_LIB  := $(BUILD)/dist/libgauntlet.a
SHARED_LIB := $(BUILD)/dist/libgauntlet.so.$(VERSION)

-include mk/*.mk

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN_SRC:%.c=%.o)
APP_OBJ  := $(APP_SRC:%.c=$(BUILD)/%.o)
PLATFORM_OBJ := $(PLATFORM_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:suite/%.c=$(BUILD)/suite/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
LIBGT    := $(BUILD)/libgauntlet.a
LIBAPP   := $(BUILD)/libgtapp.a
GAUNTLET := $(BUILD)/gauntlet
ADAPTER_BIN := $(ADAPTER_SRC:adapters/%/main.c=$(BUILD)/adapters/gauntlet-adapter-%)

.PHONY: all test test-browser check-suite sanitize coverage bench bench-run format install clean help deps interop matrix matrix-deps matrix-column matrix-merge

all: $(GAUNTLET) $(LIBGT) $(ADAPTER_BIN)
ifeq ($(BUILD),build)
	@ln -sf $(GAUNTLET) gauntlet
	@ln -sf $(LIBGT) libgauntlet.a
endif

$(BUILD)/%.o: %.c $(wildcard include/gauntlet/*.h include/gauntlet/runner/*.h) $(wildcard runner/*.h runner/*/*.h reports/*.h mocks/*.h reference/*.h) | $(GEN_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBGT): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBAPP): $(APP_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(DIST_LIB): $(LIB_OBJ) $(APP_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# -z defs: a shared library that links is one with no undefined symbol.
$(SHARED_LIB): $(LIB_OBJ) $(APP_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libgauntlet.so.$(SOVERSION) -Wl,-z,defs $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/platform/lazy_net.o: CFLAGS += $(LAZY_NET_DEFS)

$(GAUNTLET): $(BUILD)/runner/cli/main.o $(PLATFORM_OBJ) $(LIBAPP) $(LIBGT)
	$(CC) $(LDFLAGS) -o $@ $^ $(GAUNTLET_LDLIBS)

$(BUILD)/adapters/gauntlet-adapter-%: adapters/%/main.c $(LIBAPP) $(LIBGT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBAPP) $(LIBGT) $(LDLIBS)

$(BUILD)/suite/%: suite/%.c $(wildcard suite/*.h) $(LIBAPP) $(LIBGT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBAPP) $(LIBGT) $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(LIBAPP) $(LIBGT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBAPP) $(LIBGT) $(LDLIBS)

# The syntax gate's second peer, simdjson (C++, bench only, Debian
# libsimdjson-dev): linked into bench_parse when pkg-config finds it, else
# bench_parse prints a "skipped" line for it. `make bench` installs it first
# (scripts/deps bench), so it is looked up when the bench rule runs.
SIMDJSON_FOUND = $(shell pkg-config --exists simdjson 2>/dev/null && test -f /usr/include/simdjson.h && echo yes)
$(BUILD)/bench/simdjson_peer.o: bench/peers/simdjson_peer.cpp
	@mkdir -p $(dir $@)
	$(CXX) -O2 -std=c++17 $(shell pkg-config --cflags simdjson) -c $< -o $@

$(BUILD)/bench/bench_parse: bench/bench_parse.c $(LIBAPP) $(LIBGT) $(if $(SIMDJSON_FOUND),$(BUILD)/bench/simdjson_peer.o)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(if $(SIMDJSON_FOUND),-DGT_BENCH_SIMDJSON) $(LDFLAGS) -o $@ $< \
	    $(if $(SIMDJSON_FOUND),$(BUILD)/bench/simdjson_peer.o $(shell pkg-config --libs simdjson) -lstdc++) \
	    $(LIBAPP) $(LIBGT) $(LDLIBS)

## test: build and run every Check suite, the bundled corpus and the JSON-Schema-Test-Suite floor
test: $(GAUNTLET) $(ADAPTER_BIN) $(TEST_BIN) $(DIST_LIB) $(SHARED_LIB)
	@BUILD=$(BUILD) GAUNTLET=$(GAUNTLET) SAN=$(SAN) COV=$(COV) sh scripts/run-tests.sh $(TEST_BIN)

## test-browser: render the HTML report in headless Chromium (apt-get install -y chromium); fails if absent
test-browser: $(BUILD)/suite/test_html_browser
	GAUNTLET_REQUIRE_BROWSER=1 $(BUILD)/suite/test_html_browser

## sanitize: ASan + UBSan (with float-cast-overflow) build running the whole test suite
sanitize:
	$(MAKE) BUILD=build/sanitize SAN=1 OPT=-O1 test

## coverage: instrumented test run, gcovr HTML (build/coverage/html/index.html) and summary
coverage:
	$(MAKE) BUILD=build/coverage COV=1 test
	@mkdir -p build/coverage/html
	gcovr --root . --object-directory build/coverage --filter reference/ --filter runner/ --filter reports/ --filter mocks/ --filter platform/ \
	    --html-details build/coverage/html/index.html --print-summary

## bench: throughput ratios against named peers, in one run (see bench/README.md)
# Peers from Debian first (simdjson, nginx, wrk: scripts/deps bench); a peer
# still missing afterwards is reported as "skipped", never as a ratio.
bench:
	@sh scripts/deps bench || echo "bench: scripts/deps bench failed: missing peers will be skipped"
	@$(MAKE) --no-print-directory bench-run

bench-run: $(GAUNTLET) $(ADAPTER_BIN) $(BENCH_BIN)
	@BUILD=$(BUILD) GAUNTLET=$(GAUNTLET) sh scripts/bench.sh

## format: clang-format every C source and header
format:
	clang-format -i $(wildcard include/gauntlet/*.h include/gauntlet/runner/*.h reference/*.[ch] runner/*.[ch] runner/*/*.[ch] reports/*.[ch] mocks/*.[ch] platform/*.[ch] suite/*.[ch] bench/*.[ch] fuzz/*.[ch])

## deps: install the Debian packages gauntlet needs (only the missing ones)
deps:
	sh scripts/deps

## clean: remove build products
clean:
	rm -rf build gauntlet libgauntlet.a

## help: this list
help:
	@grep -hE '^## ' Makefile mk/*.mk | sed -e 's/^## /  make /'

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CFLAGS) -c $< -o $@
