# pallas-triage: plain GNU make. `make demo`, `make test` and `make bench`
# install missing dependencies first (tests/deps.sh, apt-get as root); plain
# `make` never installs anything: it says what is missing and stops.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share/pallas-triage
MANDIR     ?= $(PREFIX)/share/man
PKG_CONFIG ?= pkg-config
BUILD      ?= build
VERSION    := 0.1.0

PKGS := yaml-0.1 libcjson libcurl libpcre2-8

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wpedantic -Wformat=2 -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wold-style-definition -Wwrite-strings \
            -Wpointer-arith -Wvla -Wundef
ifeq ($(WERROR),1)
WARN     += -Werror
endif
ifdef SAN
SAN_FLAGS := -fsanitize=$(SAN) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
# make check's builds (their own build directories) also run the self-checks
# too costly for every run, such as a JSON builder adding a key twice.
ifneq ($(WERROR)$(SAN),)
SELF_CHECKS := -DPT_SELF_CHECKS
endif
# Recursive (=) on purpose: pkg-config runs when a recipe needs the flags,
# after the deps target had a chance to install the libraries.
PT_CPPFLAGS = -Iinclude -I$(BUILD)/gen -D_GNU_SOURCE -DPCRE2_CODE_UNIT_WIDTH=8 \
              -DPT_DATADIR='"$(DATADIR)"' -DPT_SRCDIR='"$(CURDIR)"' -DPT_VERSION='"$(VERSION)"' \
              $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# libcurl is not linked: src/http.c opens it with dlopen() when a command
# needs HTTP, because loading it costs more than a small triage.
PT_LDLIBS   = $(shell $(PKG_CONFIG) --libs $(filter-out libcurl,$(PKGS)) 2>/dev/null) -ldl -lpthread
COMPILE      = $(CC) -std=c11 $(WARN) $(SAN_FLAGS) $(SELF_CHECKS) $(PT_CPPFLAGS) $(CPPFLAGS) $(CFLAGS)
LINK         = $(CC) $(SAN_FLAGS) $(CFLAGS) $(LDFLAGS)

# Modules (src/*.c, headers in include/pt/) make libpt.a; the commands
# (src/cmd/, git's builtin/, with their headers beside them) and main make
# the binary. No module includes a command header (make lint).
SRCS     := $(wildcard src/*.c)
CMD_SRCS := $(wildcard src/cmd/*.c)
LIB_OBJS := $(SRCS:src/%.c=$(BUILD)/%.o)
CMD_OBJS := $(CMD_SRCS:src/cmd/%.c=$(BUILD)/cmd/%.o)
OBJS     := $(LIB_OBJS) $(CMD_OBJS)
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))

all: $(BUILD)/pallas-triage

deps:
	@sh tests/deps.sh check build

$(BUILD)/%.o: src/%.c | deps
	@mkdir -p $(@D)
	$(COMPILE) -MMD -MP -c -o $@ $<
$(BUILD)/cmd/%.o: src/cmd/%.c | deps
	@mkdir -p $(@D)
	$(COMPILE) -MMD -MP -c -o $@ $<
# The rules cache is keyed on a hash of every source file and header
# (src/rules_cache.c): the header is rewritten only when the hash changes.
$(BUILD)/gen/source_hash.h: $(SRCS) $(CMD_SRCS) $(wildcard include/pt/*.h src/cmd/*.h)
	@mkdir -p $(@D)
	@h=$$(cat $(sort $^) | sha256sum | cut -c1-16); \
	  echo "#define PT_SOURCE_HASH \"$$h\"" >$@.tmp; \
	  if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/rules_cache.o: $(BUILD)/gen/source_hash.h
# rm first: `ar r` keeps members whose source was moved or deleted
$(BUILD)/libpt.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/pallas-triage: $(CMD_OBJS) $(BUILD)/libpt.a
	$(LINK) -o $@ $^ $(PT_LDLIBS) $(LDLIBS)
# every unit test depends on every shared test header (test.h, *_fixture.h, shape_text.h)
$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/libpt.a
	@mkdir -p $(@D)
	$(COMPILE) -Itests/unit $(LDFLAGS) -o $@ $< $(BUILD)/libpt.a $(PT_LDLIBS) $(LDLIBS)
-include $(OBJS:.o=.d)

# src/http.c linked to libcurl with curl's compile-time type checks on: the
# release build opens libcurl with dlopen(), which needs them off. curl.h
# checks through a macro, and GCC hides warnings from system headers, so the
# check compiles against a copy of the headers outside the system path.
$(BUILD)/curl-include/curl/curl.h: | deps
	@mkdir -p $(@D)
	@for d in $$($(PKG_CONFIG) --cflags-only-I libcurl | sed 's/-I//g') /usr/include; do \
	  if [ -f "$$d/curl/curl.h" ]; then cp "$$d"/curl/*.h $(@D)/; exit 0; fi; done; \
	  echo 'curl/curl.h not found' >&2; exit 1
$(BUILD)/http-linked.o: src/http.c $(BUILD)/curl-include/curl/curl.h
	$(COMPILE) -I$(BUILD)/curl-include -DPT_HTTP_LINKED -MMD -MP -c -o $@ $<
$(BUILD)/pallas-triage-curl: $(CMD_OBJS) $(BUILD)/http-linked.o $(BUILD)/libpt.a
	$(LINK) -o $@ $^ $(PT_LDLIBS) $$($(PKG_CONFIG) --libs libcurl) $(LDLIBS)
-include $(BUILD)/http-linked.d

demo:
	@sh tests/deps.sh install build
	@$(MAKE) --no-print-directory all
	@echo '$$ pallas-triage --no-input docs/examples/vmem-oom.log'
	@$(BUILD)/pallas-triage --no-input docs/examples/vmem-oom.log; rc=$$?; \
	  [ $$rc -le 1 ] || exit $$rc

test:
	@sh tests/deps.sh install test
	@$(MAKE) --no-print-directory test-run
test-run: lint all $(UNITS) $(BUILD)/perf/verdict_same
	PT=$(CURDIR)/$(BUILD)/pallas-triage BUILD=$(BUILD) sh tests/run.sh

check:
	$(MAKE) BUILD=build-check WERROR=1 test
	$(MAKE) BUILD=build-check WERROR=1 check-curl
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(MAKE) BUILD=build-asan SAN=address,undefined test
	$(MAKE) check-threads

# The HTTP code built with curl's type checks, linked directly, against tests/http.
check-curl: $(BUILD)/pallas-triage-curl
	PT=$(CURDIR)/$(BUILD)/pallas-triage-curl BUILD=$(BUILD) sh tests/run.sh http

# The threaded code (the scout, scan's workers) under ThreadSanitizer.
check-threads:
	$(MAKE) BUILD=build-tsan SAN=thread all build-tsan/tests/test_scout build-tsan/perf/verdict_same
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/test_scout
	TSAN_OPTIONS=halt_on_error=1 PT=$(CURDIR)/build-tsan/pallas-triage BUILD=build-tsan \
	  sh tests/run.sh scout
	TSAN_OPTIONS=halt_on_error=1 PT=$(CURDIR)/build-tsan/pallas-triage BUILD=build-tsan \
	  sh tests/run.sh scan

# Every unit test, then every suite with $PT a wrapper that runs the binary
# under valgrind (tests/valgrind/), so suites that call $PT directly are
# covered too; VALGRIND=1 lets suites skip timing and memory-size checks.
# Any error or leak fails.
VG_FLAGS := -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
            --suppressions=tests/valgrind/pcre2-jit.supp
valgrind: all $(UNITS)
	@command -v valgrind >/dev/null || { echo 'make valgrind needs valgrind: apt-get install valgrind'; exit 1; }
	@for t in $(UNITS); do echo "valgrind $$t"; valgrind $(VG_FLAGS) $$t >/dev/null || exit 1; done
	VALGRIND=1 PT_REAL=$(CURDIR)/$(BUILD)/pallas-triage PT=$(CURDIR)/tests/valgrind/pallas-triage \
	  BUILD=$(BUILD) sh tests/run.sh

# libFuzzer targets (tests/fuzz/, docs/reliability.md): the library built by
# clang with ASan and UBSan into build-fuzz; each target runs FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
fuzz: all
	@sh tests/fuzz/fuzz.sh deps
	$(MAKE) BUILD=build-fuzz CC=clang SAN=fuzzer-no-link,address,undefined CFLAGS='-O1 -g' build-fuzz/libpt.a
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/fuzz.sh run

# tests/perf/: the benchmark (docs/performance.md); its generated data goes
# to $(BUILD)/perf-data unless BENCH_DATA says otherwise.
bench:
	@sh tests/deps.sh install bench
	@$(MAKE) --no-print-directory all $(BUILD)/perf/litset_bench $(BUILD)/perf/verdict_same
	BENCH_DATA=$${BENCH_DATA:-$(CURDIR)/$(BUILD)/perf-data} \
	  sh tests/perf/bench.sh $(CURDIR)/$(BUILD)/pallas-triage
$(BUILD)/perf/%: tests/perf/%.c $(BUILD)/libpt.a
	@mkdir -p $(@D)
	$(COMPILE) $(LDFLAGS) -o $@ $< $(BUILD)/libpt.a $(PT_LDLIBS) $(LDLIBS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/rules $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(BUILD)/pallas-triage $(DESTDIR)$(BINDIR)/
	install -m 0644 rules/*.yaml $(DESTDIR)$(DATADIR)/rules/
	install -m 0644 docs/pallas-triage.1 $(DESTDIR)$(MANDIR)/man1/
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pallas-triage $(DESTDIR)$(MANDIR)/man1/pallas-triage.1
	rm -rf $(DESTDIR)$(DATADIR)

lint:
	@! grep -nE '\b(gets|strcpy|strcat|sprintf|vsprintf|strtok|atoi|atol)\s*\(' src/*.c src/cmd/*.c || \
	  { echo 'banned function used (see docs/hacking.md)'; exit 1; }
	@! grep -nE '^\s*#\s*include\s+"([^"]*/)?cmd[/_.]' src/*.c include/pt/*.h || \
	  { echo 'a module includes a command header: commands call modules, not the other way (docs/hacking.md)'; exit 1; }

clean:
	rm -rf build build-check build-asan build-ubsan build-fuzz build-tsan

.PHONY: all deps demo test test-run check check-curl check-threads valgrind fuzz bench install uninstall lint clean
