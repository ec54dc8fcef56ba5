#!/usr/bin/env bash
# make bench: stock Caddy and obgw side by side on this machine, with the
# same pre-signed requests, then obgw as shipped serving pages of 200
# transactions from its in-process backend, then a table of ratios. Raw
# numbers go to bench/results/<timestamp>.json. DURATION (per run), CONNS
# and ROUNDS (stock and obgw taking turns) tune the runs. Exits non-zero when the transactions scenario cannot be set up or
# gets errors, after printing the table of what did run.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-5s}
CONNS=${CONNS:-16}
ROUNDS=${ROUNDS:-3}
PORT=${BENCH_PORT:-9443}
UPSTREAM=${BENCH_UPSTREAM:-9090}
export BENCH_PORT=$PORT BENCH_UPSTREAM=$UPSTREAM
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
	env OBGW_LISTEN=localhost:$PORT OBGW_ADMIN=off OBGW_ENV=sandbox OBGW_BACKEND=inprocess \
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

python3 - "$tmp/results.jsonl" "$out" <<'PY'
import json, sys, platform, os
rows = [json.loads(l) for l in open(sys.argv[1])]
import re, statistics
def base(label): return re.sub(r" #\d+$", "", label)
def rounds(label): return [r for r in rows if base(r["label"]) == label and r["label"] != label]
def median(label, field): return statistics.median(r[field] for r in rounds(label))
def round_ratios(a, b):
    # Per round, obgw over the stock run next to it.
    sa = {r["label"].rsplit("#", 1)[1]: r["rps"] for r in rounds(a)}
    sb = {r["label"].rsplit("#", 1)[1]: r["rps"] for r in rounds(b)}
    return [sa[k] / sb[k] for k in sorted(sa) if sb.get(k)]
def round_added(field):
    sa = {r["label"].rsplit("#", 1)[1]: r[field] for r in rounds("obgw respond 1conn")}
    sb = {r["label"].rsplit("#", 1)[1]: r[field] for r in rounds("stock respond 1conn")}
    return [sa[k] - sb[k] for k in sorted(sa) if k in sb]
by = {r["label"]: r for r in rows}
summary = {
  "machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
  "rounds": len(rounds("stock respond")),
  "respond_ratio": statistics.median(round_ratios("obgw respond", "stock respond")),
  "respond_ratios": round_ratios("obgw respond", "stock respond"),
  "proxy_ratio": statistics.median(round_ratios("obgw proxy", "stock proxy")),
  "proxy_ratios": round_ratios("obgw proxy", "stock proxy"),
  "added_p50_us_1conn": statistics.median(round_added("p50_us")),
  "added_p99_us_1conn": statistics.median(round_added("p99_us")),
  "runs": rows,
}
for key, label in (("transactions", "obgw transactions"), ("transactions_1conn", "obgw transactions 1conn")):
    r = by.get(label)
    summary[key] = {"rps": r["rps"], "p99_us": r["p99_us"], "errors": r["errors"]} if r else None
json.dump(summary, open(sys.argv[2], "w"), indent=2)
print(f"{'run (median of ' + str(summary['rounds']) + ' rounds)':32} {'req/s':>9} {'p50 us':>8} {'p99 us':>8} {'p99.9 us':>9} {'errors':>7}")
for label in dict.fromkeys(base(r["label"]) for r in rows):
    rs = rounds(label) or [by[label]]
    med = lambda f: statistics.median(r[f] for r in rs)
    print(f"{label:32} {med('rps'):9.0f} {med('p50_us'):8.0f} {med('p99_us'):8.0f} {med('p999_us'):9.0f} {sum(r['errors'] for r in rs):7d}")
print()
fmt = lambda xs: ", ".join(f"{x:.2f}" for x in xs)
print(f"respond ratio obgw/stock: {summary['respond_ratio']:.2f} (target >= 0.60; rounds {fmt(summary['respond_ratios'])})")
print(f"proxy   ratio obgw/stock: {summary['proxy_ratio']:.2f} (target >= 0.85; rounds {fmt(summary['proxy_ratios'])})")
print(f"1 connection: added p50 {summary['added_p50_us_1conn']:.0f} us (target <= 50), added p99 {summary['added_p99_us_1conn']:.0f} us (target <= 300)")
tx, tx1 = summary["transactions"], summary["transactions_1conn"]
if tx and tx1:
    print(f"transactions, page of 200 (shipped Caddyfile, SQLite): {tx['rps']:.0f} req/s p99 {tx['p99_us']/1000:.1f} ms; 1 connection {tx1['rps']:.0f} req/s p99 {tx1['p99_us']/1000:.1f} ms")
else:
    print("transactions, page of 200: FAILED (see above)")
print(f"raw numbers: {sys.argv[2]}")
import shutil; shutil.copy(sys.argv[2], os.path.join(os.path.dirname(sys.argv[2]), "latest.json"))
bad = [r for r in rows if r["label"].startswith("obgw transactions") and r["errors"]]
for r in bad:
    print(f"ERROR: {r['label']}: {r['errors']} of {r['requests']} requests failed, first: {r.get('first_error')}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
exit $status
