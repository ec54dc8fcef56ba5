#!/usr/bin/env bash
# make bench: stock Caddy and obgw side by side on this machine, with the
# same pre-signed requests, then a table of ratios. Raw numbers go to
# bench/results/<timestamp>.json. DURATION and CONNS tune the runs.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-16}
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

run_server() { # config label-prefix [env...]
	local cfg=$1 name=$2; shift 2
	env "$@" bin/obgw run --config "$cfg" --adapter caddyfile >"$tmp/$name.log" 2>&1 &
	local pid=$!
	wait_port
	load "$name respond" respond "$CONNS" "$DURATION"
	load "$name proxy" proxy "$CONNS" "$DURATION"
	load "$name respond 1conn" respond 1 "$DURATION"
	kill "$pid"; wait "$pid" 2>/dev/null || true
}

run_server bench/stock.Caddyfile stock
run_server bench/obgw.Caddyfile obgw
# Replay enforced: every request of the pool is used once, so the pool is
# as large as one run can send at this concurrency.
run_server_enforced() {
	env BENCH_REPLAY_MODE=enforce bin/obgw run --config bench/obgw.Caddyfile --adapter caddyfile >"$tmp/enforce.log" 2>&1 &
	local pid=$!
	wait_port
	load "obgw respond replay-enforced" respond "$CONNS" 700ms -pool 10000
	kill "$pid"; wait "$pid" 2>/dev/null || true
}
run_server_enforced

python3 - "$tmp/results.jsonl" "$out" <<'PY'
import json, sys, platform, os
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {r["label"]: r for r in rows}
def ratio(a, b): return by[a]["rps"] / by[b]["rps"] if by[b]["rps"] else 0
summary = {
  "machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
  "respond_ratio": ratio("obgw respond", "stock respond"),
  "proxy_ratio": ratio("obgw proxy", "stock proxy"),
  "added_p50_us_1conn": by["obgw respond 1conn"]["p50_us"] - by["stock respond 1conn"]["p50_us"],
  "added_p99_us_1conn": by["obgw respond 1conn"]["p99_us"] - by["stock respond 1conn"]["p99_us"],
  "runs": rows,
}
json.dump(summary, open(sys.argv[2], "w"), indent=2)
print(f"{'run':32} {'req/s':>9} {'p50 us':>8} {'p99 us':>8} {'p99.9 us':>9} {'errors':>7}")
for r in rows:
    print(f"{r['label']:32} {r['rps']:9.0f} {r['p50_us']:8.0f} {r['p99_us']:8.0f} {r['p999_us']:9.0f} {r['errors']:7d}")
print()
print(f"respond ratio obgw/stock: {summary['respond_ratio']:.2f} (target >= 0.60)")
print(f"proxy   ratio obgw/stock: {summary['proxy_ratio']:.2f} (target >= 0.85)")
print(f"1 connection: added p50 {summary['added_p50_us_1conn']:.0f} us (target <= 50), added p99 {summary['added_p99_us_1conn']:.0f} us (target <= 300)")
print(f"raw numbers: {sys.argv[2]}")
import shutil; shutil.copy(sys.argv[2], os.path.join(os.path.dirname(sys.argv[2]), "latest.json"))
PY
