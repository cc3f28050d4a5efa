# pgpstream: `make demo` runs the main job, `make test` runs the tests.
GO      ?= go
BIN     := bin/pgpstream
export GOFLAGS ?= -trimpath

.PHONY: all build demo test test-long test-purego test-arm64 openpgpjs fuzz bench gnupg-suite peer-suites clean \
	docs install uninstall dist dist-check

all: build

# bin/pgpstream-sop is the same binary as the Stateless OpenPGP CLI alone
# (pgpstream sop SUBCOMMAND ...), for programs that take a sop to drive.
build:
	$(GO) build -o $(BIN) ./cmd/pgpstream
	ln -sf pgpstream $(BIN)-sop

# Build, make a throwaway key in a temporary homedir, stream 1 GiB of zeros
# through --encrypt and back through --decrypt, and print the throughput.
demo: build
	./scripts/demo.sh $(BIN)

# Everything CI runs: vet, the unit and CLI tests, the interoperability
# tests against gpg, rnp, sq and OpenPGP.js, and the engines' tests on
# their fallbacks: the pure-Go build and, under qemu-user, linux/arm64.
# Only Go and make are required. A missing peer or tool is installed first
# when make runs as root with apt-get (INSTALL=no prevents it); otherwise
# the tests that need it skip and a summary at the end says loudly what was
# not tested. With PGPSTREAM_REQUIRE_PEERS=1 (CI) a missing one fails.
test: build
	@./scripts/test-tools.sh install
	@$(MAKE) --no-print-directory openpgpjs
	$(GO) vet ./...
	GOARCH=arm64 $(GO) vet ./...
	$(GO) vet -tags purego ./...
	$(GO) test -short -count=1 -timeout 15m ./...
	$(MAKE) test-purego
	@if ./scripts/test-tools.sh missing | grep -qx qemu-aarch64; then \
		echo "test: skipping test-arm64: qemu-aarch64 not found (see the summary)"; \
	else $(MAKE) test-arm64; fi
	@./scripts/test-tools.sh summary

# GnuPG 2.2.40's own OpenPGP test suite (tests/openpgp, 60 tests), first
# with GnuPG's gpg as the control, then with bin/pgpstream as gpg. It builds
# GnuPG once (pinned by commit) into GNUPG_SUITE_DIR, outside the tree, and
# is not part of `make test`. See docs/GNUPG-SUITE.md.
gnupg-suite: build
	PGPSTREAM=$(BIN) ./scripts/gnupg-suite.sh all

# Other projects' own test suites (python-gnupg, pass, GPGME, and GnuPG's
# tests/openpgp through gnupg-suite.sh), each with the system's gpg as the
# control and then with bin/pgpstream as gpg, ending with a table of the
# counts. The sources are fetched from outside the tree (PEER_SRC), so
# this is not part of `make test`. See docs/PEER-SUITES.md.
peer-suites: build
	PGPSTREAM=$(BIN) ./scripts/peer-suites.sh $(SUITES)

# OpenPGP.js, pinned in testdata/openpgpjs, for the RFC 9580 interop tests;
# installed again only when its lock file changes. Without npm the tests
# that need it skip (or fail, with PGPSTREAM_REQUIRE_PEERS set).
OPENPGPJS := testdata/openpgpjs/node_modules/.package-lock.json
openpgpjs:
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory $(OPENPGPJS); \
	else echo "openpgpjs: npm not found; the OpenPGP.js tests will skip"; fi
$(OPENPGPJS): testdata/openpgpjs/package-lock.json
	npm ci --prefix testdata/openpgpjs --no-audit --no-fund --loglevel=error

# The engines and the filters on the pure-Go paths (no assembly at all).
test-purego:
	$(GO) test -short -count=1 -tags purego ./internal/... ./packet ./filter

# The engines as a linux/arm64 binary under qemu-user, twice: on qemu's
# "max" CPU, which has the ARMv8 AES, PMULL and SHA instructions, so the
# assembly engines run; and with those hidden, so the pure-Go fallbacks run.
# QEMU 7.2 has no CPU model without the crypto extension (a35, a53, a57,
# a72, a76, a64fx and neoverse-n1 all report it) and no aes=off property,
# so the second run hides AES from the test binary (qemu's -E sets its
# environment) the way the Go runtime and x/sys/cpu both honour:
# GODEBUG=cpu.aes=off. (No engine of ours uses PMULL.) PGPSTREAM_EXPECT_AES makes the
# tests check which engine ran, so neither run passes on the wrong path.
# QEMU is needed: without it this fails rather than pass having tested
# nothing.
QEMU_ARM64 ?= $(shell command -v qemu-aarch64 || command -v qemu-aarch64-static)
# internal/startfds and internal/dotlock are left out: their tests start
# the test binary again as a child, which qemu-user cannot exec, and they
# have no code that differs by architecture.
ARM64_INTERNAL = $(shell $(GO) list ./internal/... | grep -v -e /internal/startfds -e /internal/dotlock)
ARM64_PKGS = $(ARM64_INTERNAL) ./cmd/pgpstream/internal/bench ./packet ./iobuf
test-arm64:
	@test -n "$(QEMU_ARM64)" || { echo "test-arm64: needs qemu-aarch64 (apt-get install qemu-user)"; exit 1; }
	PGPSTREAM_EXPECT_AES=1 CGO_ENABLED=0 GOARCH=arm64 $(GO) test -short -count=1 -exec "$(QEMU_ARM64) -cpu max" $(ARM64_PKGS)
	PGPSTREAM_EXPECT_AES=0 CGO_ENABLED=0 GOARCH=arm64 $(GO) test -short -count=1 -exec "$(QEMU_ARM64) -cpu max -E GODEBUG=cpu.aes=off" $(ARM64_INTERNAL)

# The long runs (1 GiB streams, RSS checks) that -short skips.
test-long: build
	$(GO) test -count=1 -timeout 60m ./...

fuzz:
	./scripts/fuzz.sh

bench: build
	./scripts/bench.sh $(BIN)

# The manual page and the shell completions, written by the binary from
# its option table; the binary has its version from git describe and the
# manual its date from the commit (see scripts/dist.sh).
VERSION           ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
DOCS := bin/man/pgpstream.1 bin/completions/pgpstream bin/completions/_pgpstream bin/completions/pgpstream.fish
docs: $(DOCS)
bin/pgpstream-release: FORCE
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X main.version=$(VERSION) -X main.releaseDate=$$(date -u -d @$(SOURCE_DATE_EPOCH) +%F)" -o $@ ./cmd/pgpstream
bin/man/pgpstream.1: bin/pgpstream-release
	@mkdir -p $(@D)
	$< --print-manpage >$@
bin/completions/pgpstream: bin/pgpstream-release
	@mkdir -p $(@D)
	$< --print-completion bash >$@
bin/completions/_pgpstream: bin/pgpstream-release
	@mkdir -p $(@D)
	$< --print-completion zsh >$@
bin/completions/pgpstream.fish: bin/pgpstream-release
	@mkdir -p $(@D)
	$< --print-completion fish >$@
FORCE:

# make install [PREFIX=/usr/local] [DESTDIR=...]: the binary (version from
# git describe), the manual and the completions where bash-completion, zsh
# and fish look for them.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
install: bin/pgpstream-release docs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 bin/pgpstream-release $(DESTDIR)$(BINDIR)/pgpstream
	install -m 0644 bin/man/pgpstream.1 $(DESTDIR)$(MANDIR)/man1/pgpstream.1
	install -m 0644 bin/completions/pgpstream $(DESTDIR)$(BASHCOMPDIR)/pgpstream
	install -m 0644 bin/completions/_pgpstream $(DESTDIR)$(ZSHCOMPDIR)/_pgpstream
	install -m 0644 bin/completions/pgpstream.fish $(DESTDIR)$(FISHCOMPDIR)/pgpstream.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pgpstream $(DESTDIR)$(MANDIR)/man1/pgpstream.1 \
		$(DESTDIR)$(BASHCOMPDIR)/pgpstream $(DESTDIR)$(ZSHCOMPDIR)/_pgpstream $(DESTDIR)$(FISHCOMPDIR)/pgpstream.fish

# Release archives in dist/: static linux/amd64 and linux/arm64 binaries
# with the manual and completions, and SHA256SUMS. dist-check builds them
# twice (the second time from a copy of the tree, with an empty build
# cache: about 3 minutes on 2 cores) and fails unless the bytes agree.
dist:
	VERSION=$(VERSION) GO=$(GO) ./scripts/dist.sh dist
dist-check:
	VERSION=$(VERSION) GO=$(GO) ./scripts/dist.sh check

clean:
	rm -rf bin dist
