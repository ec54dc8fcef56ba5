# obgw: `make run` starts the gateway on https://localhost:8443 with the
# test PKI; `make test` runs every test (Redis, PostgreSQL and Chromium are
# needed by later suites; .ci/run installs and starts them).

GO      ?= go
BIN     := bin/obgw
PKG     := ./...

.PHONY: build run test unit fuzz bench fmt vet validate testpki clean

build:
	$(GO) build -o $(BIN) ./cmd/obgw

run: build
	$(BIN) run --config Caddyfile --adapter caddyfile

# Every test: unit, Caddyfile checks and the integration suite that runs the
# real binary over real TLS with signed requests.
test: build vet validate
	$(GO) test -count=1 -timeout 20m $(PKG)

unit:
	$(GO) test -count=1 $(shell $(GO) list ./... | grep -v /integration)

vet:
	$(GO) vet $(PKG)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

# The shipped Caddyfile must validate with no Redis or network, and be
# formatted as `caddy fmt` wants.
validate: build
	$(BIN) validate --config Caddyfile --adapter caddyfile
	$(BIN) fmt --diff Caddyfile
	@for f in policies/*.caddy; do $(BIN) fmt --diff $$f || exit 1; done

# Fuzz each parser for FUZZTIME (default 30s each).
FUZZTIME ?= 30s
fuzz:
	@for spec in \
	  ./gateway/signature:FuzzParse ./gateway/signature:FuzzDecodeRFC2047 ./gateway/signature:FuzzParseKeyID \
	  ./gateway/digest:FuzzParse ./gateway/eidas:FuzzParseCertificate ./gateway/eidas:FuzzParseQCStatements \
	  ./gateway/hygiene:FuzzCheckJSON ./gateway/hygiene:FuzzCheckHeaderValue; do \
	  pkg=$${spec%%:*}; fn=$${spec##*:}; \
	  echo "== $$pkg $$fn"; $(GO) test -run='^$$' -fuzz="^$$fn$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	done

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./gateway/... ./tppcontext/ | tee bench.out

# Regenerate the committed test PKI (testdata/pki).
testpki: build
	$(BIN) testpki -out testdata/pki

clean:
	rm -rf bin
