# obgw: `make run` starts the gateway on https://localhost:8443 with the
# test PKI; `make test` runs every test (Redis, PostgreSQL and Chromium are
# needed by later suites; .ci/run installs and starts them).

GO      ?= go
comma   := ,
BIN     := bin/obgw
PKG     := ./...

# staticcheck, pinned, from the Go module proxy: `make vet` installs it into
# GOPATH/bin when that version is not there, so `make test` works on a fresh
# machine. 2026.2 (v0.8) knows Go 1.26.
STATICCHECK_VERSION := 0.8.2
STATICCHECK := $(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin/staticcheck

# An RSA seal in a file signs through OpenSSL's libcrypto (package
# opensslrsa) when cgo and OpenSSL's headers (Debian: libssl-dev) are
# there: 2.6 times faster than crypto/rsa, the same bytes. Without them
# (or with CGO_ENABLED=0) obgw is pure Go and signs with crypto/rsa.
ifeq ($(shell $(GO) env CGO_ENABLED),1)
OPENSSL_HEADER ?= /usr/include/openssl/evp.h
ifeq ($(wildcard $(OPENSSL_HEADER)),)
# A -tags on a command line replaces GOFLAGS' tags: those commands add
# $(OBGW_TAGS) themselves.
OBGW_TAGS := obgw_purego
export GOFLAGS += -tags=obgw_purego
$(info libssl-dev is not installed: RSA seals sign with crypto/rsa; apt-get install libssl-dev to sign through OpenSSL)
endif
endif

.PHONY: build run run-idp test testdeps purego unit fuzz bench soak fmt vet staticcheck validate rules testpki clean

build:
	$(GO) build -o $(BIN) ./cmd/obgw

# The test PKI (testdata/pki), asked for explicitly: the shipped
# Caddyfile's defaults are a production deployment's files under
# /etc/obgw, and production refuses this PKI, whose private keys anyone can
# read. Each variable set in the environment wins.
TEST_PKI := testdata/pki
TEST_PKI_ENV = OBGW_TLS_CERT=$${OBGW_TLS_CERT:-$(TEST_PKI)/server.pem} \
	OBGW_TLS_KEY=$${OBGW_TLS_KEY:-$(TEST_PKI)/server-key.pem} \
	OBGW_QTSP_CAS=$${OBGW_QTSP_CAS:-$(TEST_PKI)/qtsp-cas.pem} \
	OBGW_CRL=$${OBGW_CRL-$(TEST_PKI)/qtsp-crl.pem} \
	OBGW_REGISTRY=$${OBGW_REGISTRY:-$(TEST_PKI)/registry.json} \
	OBGW_BANK_SEAL_CERT=$${OBGW_BANK_SEAL_CERT:-$(TEST_PKI)/bank-seal.pem} \
	OBGW_BANK_SEAL_KEY=$${OBGW_BANK_SEAL_KEY:-$(TEST_PKI)/bank-seal-key.pem} \
	OBGW_BACKEND_CA=$${OBGW_BACKEND_CA:-$(TEST_PKI)/tls-ca.pem} \
	OBGW_BACKEND_CLIENT_CERT=$${OBGW_BACKEND_CLIENT_CERT:-$(TEST_PKI)/gateway.pem} \
	OBGW_BACKEND_CLIENT_KEY=$${OBGW_BACKEND_CLIENT_KEY:-$(TEST_PKI)/gateway-key.pem} \
	OBGW_UPSTREAM_CA=$${OBGW_UPSTREAM_CA:-$(TEST_PKI)/tls-ca.pem} \
	OBGW_UPSTREAM_CLIENT_CERT=$${OBGW_UPSTREAM_CLIENT_CERT:-$(TEST_PKI)/gateway.pem} \
	OBGW_UPSTREAM_CLIENT_KEY=$${OBGW_UPSTREAM_CLIENT_KEY:-$(TEST_PKI)/gateway-key.pem}

# The shipped Caddyfile is a production deployment unless OBGW_ENV says
# otherwise; `make run` asks for the sandbox (mock SCA, sandbox data set)
# and the test PKI.
run: build
	OBGW_ENV=$${OBGW_ENV:-sandbox} $(TEST_PKI_ENV) $(BIN) run --config Caddyfile --adapter caddyfile

# `make run` with the SCA pages logging PSUs in at a local OpenID Connect
# provider (obgw test-idp), as production does at the bank's. Production
# refuses the test PKI and the test provider's published client secret:
# `OBGW_ENV=production make run-idp` says what to replace; given a PKI of
# the bank's own, it is production itself, whose store, which production
# never seeds, first gets the provider's PSUs as customers.
run-idp: build
	[ "$${OBGW_ENV:-sandbox}" = sandbox ] || $(BIN) test-idp --seed
	$(BIN) test-idp & trap 'kill $$!' EXIT; \
	OBGW_ENV=$${OBGW_ENV:-sandbox} $(TEST_PKI_ENV) OBGW_SCA_OIDC_ISSUER=http://127.0.0.1:9998 \
	OBGW_SCA_OIDC_CLIENT_ID=obgw OBGW_SCA_OIDC_CLIENT_SECRET=obgw-test-secret \
	OBGW_SCA_OIDC_CUSTOMER_CLAIM=nnin $(BIN) run --config Caddyfile --adapter caddyfile

# Every test: unit, Caddyfile checks, the Prometheus rules and the
# integration suite that runs the real binary over real TLS with signed
# requests.
test: build vet validate rules testdeps purego
	$(GO) test -count=1 -timeout 20m $(PKG)

# The pure-Go build (CGO_ENABLED=0, or no libssl-dev) of what differs in
# it: the seal signs with crypto/rsa, and says so.
purego:
	$(GO) vet -tags obgw_purego ./opensslrsa ./gateway/seal
	$(GO) test -count=1 -tags obgw_purego ./opensslrsa ./gateway/seal

# The Node upstream of the context-token test, from the npm registry at the
# versions its lock file pins.
NODE_UPSTREAM := integration/testdata/upstream-node
testdeps:
	@[ -d $(NODE_UPSTREAM)/node_modules/jose ] || npm ci --prefix $(NODE_UPSTREAM) --no-audit --no-fund

unit:
	$(GO) test -count=1 $(shell $(GO) list ./... | grep -v /integration)

# go vet, staticcheck, a tidy go.mod (go.sum included) and gofmt.
vet: staticcheck
	$(GO) vet $(PKG)
	$(STATICCHECK) $(PKG)
	$(GO) mod tidy -diff
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

staticcheck:
	@$(STATICCHECK) -version 2>/dev/null | grep -qF '($(STATICCHECK_VERSION))' || \
	  GOBIN=$(dir $(STATICCHECK)) $(GO) install honnef.co/go/tools/cmd/staticcheck@v$(STATICCHECK_VERSION)

# The shipped Caddyfile must validate with no Redis or network, and be
# formatted as `caddy fmt` wants.
# With the test PKI, in a sandbox; a bank's own upstream needs the context
# tokens' signing key: the test PKI's. Production (the default) with the
# test PKI must be refused, naming the settings to replace (production
# itself is validated by the integration tests, on a PKI of their own).
validate: build
	@set -e; for env in "OBGW_ENV=sandbox" "OBGW_ENV=sandbox OBGW_BACKEND=proxy" \
	  "OBGW_ENV=sandbox OBGW_BACKEND=upstream OBGW_CONTEXT_SIGNING_KEY_FILE=testdata/pki/context-signing-key.pem"; do \
	  out=$$(env $$env $(TEST_PKI_ENV) $(BIN) validate --config Caddyfile --adapter caddyfile 2>&1) || { echo "validate ($$env):"; echo "$$out"; exit 1; }; \
	  echo "validate ($$env): $$(echo "$$out" | tail -n 1)"; \
	done
	@out=$$(env OBGW_ENV=production OBGW_SCA_OIDC_ISSUER=https://idp.bank.example OBGW_SCA_OIDC_CLIENT_ID=obgw OBGW_SCA_OIDC_CLIENT_SECRET=x \
	  $(TEST_PKI_ENV) $(BIN) validate --config Caddyfile --adapter caddyfile 2>&1) && { echo "production with the test PKI was not refused:"; echo "$$out"; exit 1; }; \
	for setting in OBGW_QTSP_CAS OBGW_CRL OBGW_REGISTRY OBGW_BANK_SEAL_CERT OBGW_TLS_CERT; do \
	  echo "$$out" | grep -q "$$setting" || { echo "the refusal of the test PKI in production does not name $$setting:"; echo "$$out"; exit 1; }; \
	done; echo "validate (production with the test PKI): refused, naming every setting"
	@for f in Caddyfile policies/*.caddy integration/testdata/*.Caddyfile testdata/split/*.Caddyfile; do \
	  out=$$($(BIN) fmt --diff $$f 2>&1) || { echo "$$f is not caddy-formatted:"; echo "$$out"; exit 1; }; \
	done; echo "caddy fmt: clean"

# The Prometheus rules of deploy/prometheus: checked (with the example
# configuration that loads them) and unit-tested by promtool, from Debian's
# prometheus package, which .ci/run installs. Without promtool this fails
# rather than skip: the rules are part of what `make test` proves.
PROMTOOL ?= promtool
rules:
	@command -v $(PROMTOOL) >/dev/null 2>&1 || { \
	  echo "promtool not found: install Debian's prometheus package (apt-get install prometheus), as .ci/run does"; exit 1; }
	cd deploy/prometheus && $(PROMTOOL) check rules obgw.rules.yml && \
	  $(PROMTOOL) check config prometheus.yml >/dev/null && \
	  $(PROMTOOL) test rules obgw.rules.test.yml

# Fuzz every fuzz target for FUZZTIME each (default 30s). Targets are found
# by name, so a new parser's fuzzer is picked up without editing this file.
# Go 1.26's fuzz coordinator can fail a target with "context deadline
# exceeded" as -fuzztime ends, with no failing input (go.dev/issue/75804,
# fixed in Go 1.27): a target that fails without writing a failing input
# is run again, twice at most. A failing input always fails at once.
FUZZTIME ?= 30s
fuzz:
	@grep -l '^func Fuzz' $$(git ls-files '*_test.go') | while read f; do \
	  pkg=./$$(dirname $$f); \
	  for fn in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | cut -d' ' -f2); do \
	    log=$$(mktemp); tries=0; \
	    until $(GO) test -run='^$$' -fuzz="^$$fn$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=5s $$pkg >$$log 2>&1; do \
	      tries=$$((tries+1)); \
	      if grep -q 'Failing input written' $$log || ! grep -q 'context deadline exceeded' $$log || [ $$tries -gt 2 ]; then \
	        echo "FAIL $$pkg $$fn"; cat $$log; rm -f $$log; exit 1; \
	      fi; \
	      echo "     $$pkg $$fn: no failing input, context deadline exceeded (go.dev/issue/75804): again"; \
	    done; \
	    n=$$(grep -o 'execs: [0-9]*' $$log | tail -n 1 | cut -d' ' -f2); \
	    echo "ok   $$pkg $$fn: $${n:-(no count reported)} executions"; rm -f $$log; \
	  done; \
	done

# bench/run.sh: stock Caddy and obgw side by side, on synthetic routes and
# on the product paths of the shipped Caddyfile (transactions read, 401
# without consent, payment creation; the read on PostgreSQL too), medians
# of rounds taken in turns (ROUNDS, DURATION, CONNS; PRODUCT_ROUNDS,
# PRODUCT_DURATION, PRODUCT_CONNS). Then Go micro-benchmarks of the
# verification path, then a page of 200 of an account with a million
# transactions on SQLite and PostgreSQL (seeding takes a few minutes;
# OBGW_BENCH_TRANSACTIONS=100000 for a quick run).
bench: build
	$(GO) build -o bin/obgw-load ./cmd/obgw-load
	$(GO) build -tags obgw_purego -o bin/obgw-purego ./cmd/obgw
	bench/run.sh
	$(GO) test -run='^$$' -bench=. -benchmem ./gateway/... ./tppcontext/ | tee bench.out
	$(GO) test -run='^$$' -bench=TransactionsPage -benchtime=400x -timeout=60m ./backend/ | tee -a bench.out

# Soak: 10 minutes of mixed signed traffic; resident memory and goroutines
# must stay flat (OBGW_SOAK_DURATION shortens it).
soak:
	$(GO) test -tags soak$(if $(OBGW_TAGS),$(comma)$(OBGW_TAGS)) -run '^TestSoak$$' -count=1 -timeout 30m -v ./integration/ | grep -E 'soak_test|^(--- |PASS|FAIL|ok)'

# Regenerate the committed test PKI (testdata/pki).
testpki: build
	$(BIN) testpki --out testdata/pki

clean:
	rm -rf bin
