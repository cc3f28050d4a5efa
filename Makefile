# pgpstream: `make demo` runs the main job, `make test` runs the tests.
GO      ?= go
BIN     := bin/pgpstream
export GOFLAGS ?= -trimpath

.PHONY: all build demo test test-short vet fuzz bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/pgpstream

# Build, make a throwaway key in a temporary homedir, stream 1 GiB of zeros
# through --encrypt and back through --decrypt, and print the throughput.
demo: build
	./scripts/demo.sh $(BIN)

# Everything CI runs: vet, the unit and CLI tests, the interoperability
# tests against gpg, rnp and sq (installed by .ci/run).
test: build
	$(GO) vet ./...
	$(GO) test -short -count=1 -timeout 15m ./...

# The long runs (1 GiB streams, RSS checks) that -short skips.
test-long: build
	$(GO) test -count=1 -timeout 60m ./...

fuzz:
	./scripts/fuzz.sh

bench: build
	./scripts/bench.sh $(BIN)

clean:
	rm -rf bin
