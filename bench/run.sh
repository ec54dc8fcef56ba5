#!/usr/bin/env bash
# make bench: stock Caddy and obgw side by side on this machine, with the
# same pre-signed requests, on synthetic routes (respond, proxy); obgw as
# shipped serving pages of 200 transactions from its in-process backend;
# then the product paths of the shipped Caddyfile side by side with stock
# Caddy answering the same paths with the same status, headers and bytes
# (a consented transactions read, an unconsented read answering 401, a
# payment creation; the read again on PostgreSQL); then a table of ratios.
# Raw numbers go to bench/results/<timestamp>.json and latest.json.
#
# DURATION (per run, default 5s), CONNS (16) and ROUNDS (3, stock and obgw
# taking turns) tune the synthetic runs; PRODUCT_DURATION (DURATION when
# set, else 3s), PRODUCT_CONNS (32) and PRODUCT_ROUNDS (5) the product
# runs; BENCH_POSTGRES_URL (default OBGW_TEST_POSTGRES_URL or the local
# test database) is where the PostgreSQL variant makes its own schema,
# obgw_bench, dropped and made afresh (skipped when PostgreSQL cannot be
# reached). Exits non-zero when the transactions or a product scenario
# cannot be set up or gets errors, after printing the table of what ran.
set -euo pipefail
cd "$(dirname "$0")/.."
PRODUCT_DURATION=${PRODUCT_DURATION:-${DURATION:-3s}}
PRODUCT_CONNS=${PRODUCT_CONNS:-32}
PRODUCT_ROUNDS=${PRODUCT_ROUNDS:-5}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-16}
ROUNDS=${ROUNDS:-3}
PG_URL=${BENCH_POSTGRES_URL:-${OBGW_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}}
PG_SCHEMA=obgw_bench
PORT=${BENCH_PORT:-9443}
UPSTREAM=${BENCH_UPSTREAM:-9090}
export BENCH_PORT=$PORT BENCH_UPSTREAM=$UPSTREAM
# The test PKI, which the shipped Caddyfile (production defaults under
# /etc/obgw) is given explicitly, in a sandbox.
TEST_PKI=(OBGW_TLS_CERT=testdata/pki/server.pem OBGW_TLS_KEY=testdata/pki/server-key.pem
	OBGW_QTSP_CAS=testdata/pki/qtsp-cas.pem OBGW_CRL=testdata/pki/qtsp-crl.pem OBGW_REGISTRY=testdata/pki/registry.json
	OBGW_BANK_SEAL_CERT=testdata/pki/bank-seal.pem OBGW_BANK_SEAL_KEY=testdata/pki/bank-seal-key.pem)
# The shipped Caddyfile's health listener, away from anything else running.
export OBGW_HEALTH_PORT=${OBGW_HEALTH_PORT:-$((PORT + 2))}
mkdir -p bench/results
out=bench/results/$(date -u +%Y%m%dT%H%M%SZ).json
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]:-}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

bin/obgw-load -upstream 127.0.0.1:$UPSTREAM 2>/dev/null &
pids+=($!)

wait_port() {
	for _ in $(seq 1 100); do
		if (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "server on $PORT did not start" >&2; exit 1
}

load() { # label path conns duration [extra args]
	bin/obgw-load -url "https://localhost:$PORT/$2" -c "$3" -d "$4" -label "$1" "${@:5}" >>"$tmp/results.jsonl"
}

run_server() { # config label-prefix round
	local cfg=$1 name=$2 round=$3
	bin/obgw run --config "$cfg" --adapter caddyfile >"$tmp/$name.log" 2>&1 &
	local pid=$!
	wait_port
	load "$name respond #$round" respond "$CONNS" "$DURATION"
	load "$name proxy #$round" proxy "$CONNS" "$DURATION"
	load "$name respond 1conn #$round" respond 1 "$DURATION"
	kill "$pid"; wait "$pid" 2>/dev/null || true
}

# Stock and obgw take turns, ROUNDS times, the first to go alternating:
# on a shared virtual machine the speed of both drifts by 10% or more
# within a minute, and a ratio of two runs far apart measures the drift.
# The table reports the median of the rounds.
for round in $(seq 1 "$ROUNDS"); do
	if ((round % 2)); then
		run_server bench/stock.Caddyfile stock "$round"
		run_server bench/obgw.Caddyfile obgw "$round"
	else
		run_server bench/obgw.Caddyfile obgw "$round"
		run_server bench/stock.Caddyfile stock "$round"
	fi
done
# Replay enforced: every request of the pool is used once, so the pool is
# as large as one run can send at this concurrency.
run_server_enforced() {
	env BENCH_REPLAY_MODE=enforce bin/obgw run --config bench/obgw.Caddyfile --adapter caddyfile >"$tmp/enforce.log" 2>&1 &
	local pid=$!
	wait_port
	load "obgw respond replay-enforced" respond "$CONNS" 500ms -pool 10000
	kill "$pid"; wait "$pid" 2>/dev/null || true
}
run_server_enforced

# Scenario 3: the shipped Caddyfile and policies/*.caddy, unchanged (every
# check enforced, replay included; replay and the PSU-not-present limit in
# memory, no Redis), sandbox environment, the in-process backend on SQLite
# in a fresh data directory. setup-transactions creates a sandbox PSU with
# an account of 1000 booked transactions, a consent and its SCA on the mock
# SCA page; then GET /v1/accounts/{id}/transactions?bookingStatus=booked&
# limit=200 with PSU-ID, TPP-Session-ID and PSU-IP-Address (PSU present, so
# the 4-a-day limit does not apply). Replay being enforced, obgw-load -once
# sends each pre-signed request once, signing them all before the clock
# starts; its one-second warm-up sizes the pool.
run_transactions() {
	env "${TEST_PKI[@]}" OBGW_LISTEN=localhost:$PORT OBGW_ADMIN=off OBGW_ENV=sandbox OBGW_BACKEND=inprocess \
		OBGW_DATA_DIR="$tmp/data" OBGW_DATABASE_URL= OBGW_REDIS_URL= OBGW_OCSP=off \
		bin/obgw run --config Caddyfile --adapter caddyfile >"$tmp/transactions.log" 2>&1 &
	local pid=$! setup k v account='' psu='' session='' ok=0
	pids+=($pid)
	if (wait_port) && setup=$(bin/obgw-load setup-transactions -base "https://localhost:$PORT"); then
		while IFS='=' read -r k v; do
			case $k in
			ACCOUNT_ID) account=$v ;;
			PSU_ID) psu=$v ;;
			TPP_SESSION_ID) session=$v ;;
			esac
		done <<<"$setup"
		local path="v1/accounts/$account/transactions?bookingStatus=booked&limit=200"
		local args=(-once -pool 0 -H "PSU-ID: $psu" -H "TPP-Session-ID: $session" -H "PSU-IP-Address: 192.0.2.10")
		if [[ -n $account && -n $psu && -n $session ]] &&
			load "obgw transactions" "$path" "$CONNS" "$DURATION" "${args[@]}" &&
			load "obgw transactions 1conn" "$path" 1 "$DURATION" "${args[@]}"; then
			ok=1
		fi
	fi
	if ((!ok)); then
		echo "bench: the transactions scenario failed; last lines of the server log:" >&2
		tail -n 5 "$tmp/transactions.log" | cut -c1-400 >&2
	fi
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
	((ok))
}
status=0
run_transactions || status=1

# The product paths. obgw runs the shipped Caddyfile as run_transactions
# does (sandbox, in-process backend, replay enforced: obgw-load -once),
# restarted on the same data for every round. For each path one request
# first captures obgw's answer (status, headers, body); obgw-load
# stock-caddyfile writes a Caddyfile where stock Caddy (the same binary,
# standard modules only) answers that method and path with respond of
# exactly those bytes and that status, and a request to stock Caddy checks
# that it does, byte for byte, before the rounds start. Stock Caddy gets
# the same signed requests (a re-signed pool of 512, as it checks nothing).
#   transactions: GET /v1/accounts/{id}/transactions?bookingStatus=booked
#     &limit=N with the PSU present, N chosen for a body of about 4 KB;
#     PRODUCT_CONNS connections, and 1 connection for the added latency.
#   unconsented: GET /v1/accounts with a PSU-ID that has no consent,
#     PSU present: 401 CONSENT_INVALID with a scaRedirect link.
#   stranger: GET /v1/card-accounts unsigned, without a certificate: the
#     gateway's refusal, which is not sealed (a stranger costs no
#     signature). (Another path than unconsented's: stock Caddy answers
#     by method and path.)
#   payment: POST /v1/payments/domestic-norway-credit-transfers, debtor
#     the setup PSU's account, 201 (every request its own X-Request-ID,
#     the Digest of the body signed).
#   postgres transactions: the read again with OBGW_DATABASE_URL on the
#     schema obgw_bench of BENCH_POSTGRES_URL; postgres-p256 transactions:
#     the same with the P-256 seal (below), on the schema made afresh.
#   p256 transactions (32 connections and 1), unconsented, payment: the
#     SQLite paths again with the bank's seal on a P-256 key (the test
#     PKI's bank-seal-ec.pem, ecdsa-sha256) instead of the default RSA-2048
#     one.
#   gorsa transactions: the SQLite read with the default RSA-2048 seal
#     signed through crypto/rsa, by the pure-Go build (bin/obgw-purego,
#     tag obgw_purego), beside the default build's, which signs through
#     OpenSSL (package opensslrsa).
#   hsm-p256 transactions, hsm-rsa transactions: the SQLite read with the
#     seal's key (P-256, RSA-2048) generated in a SoftHSM2 token and used
#     through PKCS #11, beside the same keys in process (p256, the
#     default).
: >"$tmp/product.env"
note() { printf '%s=%s\n' "$1" "$2" >>"$tmp/product.env"; }
note conns "$PRODUCT_CONNS"
note duration "$PRODUCT_DURATION"
product_status=0
product_fail() {
	echo "bench: product: $*" >&2
	note failure "$*"
	product_status=1
}

server_pid=
start_obgw() { # variant (sqlite|p256|gorsa|postgres|postgres-p256|hsm-p256|hsm-rsa)
	local db= seal=()
	[[ $1 == postgres* ]] && db=$pg_obgw_url
	[[ $1 == *p256 ]] && seal=(OBGW_BANK_SEAL_CERT=testdata/pki/bank-seal-ec.pem OBGW_BANK_SEAL_KEY=testdata/pki/bank-seal-ec-key.pem)
	# The seal's key in a SoftHSM2 token (obgw-load softhsm-seal): its
	# configuration, the certificate and the PKCS #11 URI.
	[[ $1 == hsm-* ]] && mapfile -t seal <"$tmp/$1.env"
	local bin=bin/obgw
	[[ $1 == gorsa ]] && bin=bin/obgw-purego
	env "${TEST_PKI[@]}" OBGW_LISTEN=localhost:$PORT OBGW_ADMIN=off OBGW_ENV=sandbox OBGW_BACKEND=inprocess "${seal[@]}" \
		OBGW_DATA_DIR="$tmp/product-$1" OBGW_DATABASE_URL="$db" OBGW_REDIS_URL= OBGW_OCSP=off \
		"$bin" run --config Caddyfile --adapter caddyfile >>"$tmp/product-$1.log" 2>&1 &
	server_pid=$!
	pids+=($server_pid)
	(wait_port) || { tail -n 5 "$tmp/product-$1.log" | cut -c1-400 >&2; stop_server; return 1; }
}
start_stock() { # variant
	bin/obgw run --config "$tmp/stock-$1.Caddyfile" --adapter caddyfile >>"$tmp/stock-$1.log" 2>&1 &
	server_pid=$!
	pids+=($server_pid)
	(wait_port) || { tail -n 5 "$tmp/stock-$1.log" | cut -c1-400 >&2; stop_server; return 1; }
}
stop_server() {
	[[ -n $server_pid ]] || return 0
	kill "$server_pid" 2>/dev/null || true
	wait "$server_pid" 2>/dev/null || true
	server_pid=
}

# The requests of each scenario (variant:name): path, expected status and
# obgw-load arguments (quoted for eval), set by product_setup.
declare -A sc_path sc_status sc_args
kv() { sed -n "s/^$1=//p" <<<"$2"; }
scenarios_of() { # variant
	if [[ $1 == sqlite ]]; then
		echo "$1:transactions $1:unconsented $1:payment $1:stranger"
	elif [[ $1 == p256 ]]; then
		echo "$1:transactions $1:unconsented $1:payment"
	else
		echo "$1:transactions"
	fi
}
label_of() { # variant:name -> the name in the results ("postgres transactions")
	if [[ ${1%%:*} == sqlite ]]; then echo "${1#*:}"; else echo "${1%%:*} ${1#*:}"; fi
}

# product_setup variant: a sandbox PSU, account, consent and SCA on obgw,
# the page size, obgw's answers, the stock Caddyfile, stock's answers.
product_setup() {
	local v=$1 setup account iban psu session n l1 l11 s sc args answers=()
	start_obgw "$v" || return 1
	if ! setup=$(bin/obgw-load setup-transactions -base "https://localhost:$PORT"); then
		stop_server
		return 1
	fi
	account=$(kv ACCOUNT_ID "$setup") iban=$(kv ACCOUNT_IBAN "$setup") psu=$(kv PSU_ID "$setup") session=$(kv TPP_SESSION_ID "$setup")
	local present=(-H "PSU-ID: $psu" -H "TPP-Session-ID: $session" -H "PSU-IP-Address: 192.0.2.10")
	local tx="v1/accounts/$account/transactions?bookingStatus=booked&limit="
	# Each booked entry adds the same few hundred bytes: N from pages of 1
	# and 11, for a body nearest 4096 bytes.
	if ! l1=$(bin/obgw-load -url "https://localhost:$PORT/${tx}1" "${present[@]}" -capture "$tmp/$v-limit1.json") ||
		! l11=$(bin/obgw-load -url "https://localhost:$PORT/${tx}11" "${present[@]}" -capture "$tmp/$v-limit11.json"); then
		stop_server
		return 1
	fi
	l1=$(kv LENGTH "$l1") l11=$(kv LENGTH "$l11")
	n=$(((4096 - l1) * 20 / (l11 - l1))) # twice the entries beyond the first
	n=$((n < 0 ? 1 : 1 + (n + 1) / 2))
	note "${v}_page_limit" "$n"
	sc_path[$v:transactions]="$tx$n" sc_status[$v:transactions]=200
	sc_args[$v:transactions]=$(printf '%q ' "${present[@]}")
	if [[ $v == sqlite || $v == p256 ]]; then
		sc_path[$v:unconsented]=v1/accounts sc_status[$v:unconsented]=401
		sc_args[$v:unconsented]=$(printf '%q ' -H "PSU-ID: $(cat /proc/sys/kernel/random/uuid)" \
			-H "TPP-Session-ID: $(cat /proc/sys/kernel/random/uuid)" -H "PSU-IP-Address: 192.0.2.10")
		printf '{"instructedAmount":{"currency":"NOK","amount":"250.00"},"debtorAccount":{"iban":"%s"},"creditorAccount":{"iban":"NO1212031020016"},"creditorName":"Ola Nordmann","remittanceInformationUnstructured":"Husleie"}' \
			"$iban" >"$tmp/payment-$v.json"
		sc_path[$v:payment]=v1/payments/domestic-norway-credit-transfers sc_status[$v:payment]=201
		sc_args[$v:payment]=$(printf '%q ' -X POST -body "$tmp/payment-$v.json" -H "TPP-Session-ID: $session" -H "PSU-IP-Address: 192.0.2.10")
		sc_path[$v:stranger]=v1/card-accounts sc_status[$v:stranger]=400
		sc_args[$v:stranger]=$(printf '%q ' -unsigned -H "TPP-Redirect-URI: https://tpp.example.no/cb")
	fi
	for sc in $(scenarios_of "$v"); do
		eval "args=(${sc_args[$sc]})"
		if ! s=$(bin/obgw-load -url "https://localhost:$PORT/${sc_path[$sc]}" -status "${sc_status[$sc]}" "${args[@]}" -capture "$tmp/obgw-${sc/:/-}.json"); then
			stop_server
			return 1
		fi
		note "bytes_$(label_of "$sc")" "$(kv LENGTH "$s")"
		answers+=("$tmp/obgw-${sc/:/-}.json")
	done
	stop_server
	bin/obgw-load stock-caddyfile -o "$tmp/stock-$v.Caddyfile" "${answers[@]}" || return 1
	start_stock "$v" || return 1
	for sc in $(scenarios_of "$v"); do
		eval "args=(${sc_args[$sc]})"
		if ! bin/obgw-load -url "https://localhost:$PORT/${sc_path[$sc]}" -status "${sc_status[$sc]}" "${args[@]}" -capture "$tmp/stock-${sc/:/-}.json" >/dev/null ||
			! bin/obgw-load same-answer "$tmp/obgw-${sc/:/-}.json" "$tmp/stock-${sc/:/-}.json"; then
			stop_server
			return 1
		fi
	done
	stop_server
}

# product_round side variant round: one server, every scenario of the
# variant. obgw enforces replay: -once, each pre-signed request sent once.
product_round() {
	local side=$1 v=$2 round=$3 sc args label
	if [[ $side == obgw ]]; then start_obgw "$v"; else start_stock "$v"; fi || {
		product_fail "$side ($v) did not start in round $round"
		return
	}
	local once=()
	[[ $side == obgw ]] && once=(-once -pool 0)
	for sc in $(scenarios_of "$v"); do
		eval "args=(${sc_args[$sc]})"
		label="$side product $(label_of "$sc")"
		load "$label #$round" "${sc_path[$sc]}" "$PRODUCT_CONNS" "$PRODUCT_DURATION" -status "${sc_status[$sc]}" "${once[@]}" "${args[@]}" ||
			product_fail "$label #$round: obgw-load failed"
		if [[ $sc == sqlite:transactions || $sc == p256:transactions ]]; then
			load "$label 1conn #$round" "${sc_path[$sc]}" 1 "$PRODUCT_DURATION" -status "${sc_status[$sc]}" "${once[@]}" "${args[@]}" ||
				product_fail "$label 1conn #$round: obgw-load failed"
		fi
	done
	stop_server
}

product_rounds() { # variant
	local round
	for round in $(seq 1 "$PRODUCT_ROUNDS"); do
		if ((round % 2)); then
			product_round stock "$1" "$round"
			product_round obgw "$1" "$round"
		else
			product_round obgw "$1" "$round"
			product_round stock "$1" "$round"
		fi
	done
}

if product_setup sqlite; then
	product_rounds sqlite
else
	product_fail "the SQLite product scenarios could not be set up"
fi
if product_setup p256; then
	product_rounds p256
else
	product_fail "the SQLite product scenarios with the P-256 seal could not be set up"
fi
if product_setup gorsa; then
	product_rounds gorsa
else
	product_fail "the SQLite read of the pure-Go build could not be set up"
fi
for v in hsm-p256 hsm-rsa; do
	bits=0
	[[ $v == hsm-rsa ]] && bits=2048
	if bin/obgw-load softhsm-seal -dir "$tmp/$v" -bits "$bits" >"$tmp/$v.env" && product_setup "$v"; then
		product_rounds "$v"
	else
		product_fail "the SQLite read with the seal in SoftHSM2 ($v) could not be set up"
	fi
done

# PostgreSQL: a schema of its own, never one the tests use.
pg_obgw_url=$PG_URL
[[ $PG_URL == *\?* ]] && pg_obgw_url+="&" || pg_obgw_url+="?"
pg_obgw_url+="search_path=$PG_SCHEMA"
pg() { PGCONNECT_TIMEOUT=5 psql "$PG_URL" -v ON_ERROR_STOP=1 -qAtc "$1" >/dev/null 2>"$tmp/psql.err"; }
pg_where=${PG_URL#*://}
pg_where=${pg_where#*@}
pg_where=${pg_where%%\?*} # host, port and database, without user, password or parameters
if ! command -v psql >/dev/null; then
	echo "bench: psql not found: the PostgreSQL variant is skipped" >&2
	note postgres_skipped "psql not found"
elif ! pg "DROP SCHEMA IF EXISTS $PG_SCHEMA CASCADE; CREATE SCHEMA $PG_SCHEMA"; then
	echo "bench: PostgreSQL at $pg_where unavailable ($(head -n 1 "$tmp/psql.err" | cut -c1-200)): the PostgreSQL variant is skipped" >&2
	note postgres_skipped "PostgreSQL at $pg_where unavailable: $(head -n 1 "$tmp/psql.err" | cut -c1-200)"
else
	if product_setup postgres; then
		product_rounds postgres
	else
		product_fail "the PostgreSQL product scenario could not be set up"
	fi
	if pg "DROP SCHEMA IF EXISTS $PG_SCHEMA CASCADE; CREATE SCHEMA $PG_SCHEMA" && product_setup postgres-p256; then
		product_rounds postgres-p256
	else
		product_fail "the PostgreSQL product scenario with the P-256 seal could not be set up ($(head -n 1 "$tmp/psql.err" | cut -c1-200))"
	fi
	pg "DROP SCHEMA IF EXISTS $PG_SCHEMA CASCADE" || true
fi
((product_status)) && status=1

python3 bench/summary.py "$tmp/results.jsonl" "$out" "$tmp/product.env" || status=1
exit $status
