"""The summary of bench/run.sh: the raw runs (one JSON object a line, from
obgw-load) into bench/results/<timestamp>.json and latest.json, and the
table of medians and ratios on stdout.

Usage: summary.py RESULTS.jsonl OUT.json PRODUCT.env

Exits 1 when a transactions or product run had errors (answers other than
the expected status), or a product scenario is missing.
"""
import json
import os
import platform
import re
import shutil
import statistics
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
out = sys.argv[2]
env = {}
for line in open(sys.argv[3]):
    k, _, v = line.rstrip("\n").partition("=")
    env.setdefault(k, []).append(v)


def base(label):
    return re.sub(r" #\d+$", "", label)


def rounds(label):
    return [r for r in rows if base(r["label"]) == label and r["label"] != label]


def per_round(label, field):
    return {r["label"].rsplit("#", 1)[1]: r[field] for r in rounds(label)}


def round_ratios(a, b):
    # Per round, obgw over the stock run next to it.
    sa, sb = per_round(a, "rps"), per_round(b, "rps")
    return [sa[k] / sb[k] for k in sorted(sa, key=int) if sb.get(k)]


def round_added(a, b, field):
    sa, sb = per_round(a, field), per_round(b, field)
    return [sa[k] - sb[k] for k in sorted(sa, key=int) if k in sb]


def median(xs):
    return statistics.median(xs) if xs else None


by = {r["label"]: r for r in rows}
summary = {
    "machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
    "rounds": len(rounds("stock respond")),
    "respond_ratio": median(round_ratios("obgw respond", "stock respond")),
    "respond_ratios": round_ratios("obgw respond", "stock respond"),
    "proxy_ratio": median(round_ratios("obgw proxy", "stock proxy")),
    "proxy_ratios": round_ratios("obgw proxy", "stock proxy"),
    "added_p50_us_1conn": median(round_added("obgw respond 1conn", "stock respond 1conn", "p50_us")),
    "added_p99_us_1conn": median(round_added("obgw respond 1conn", "stock respond 1conn", "p99_us")),
    "runs": rows,
}
for key, label in (("transactions", "obgw transactions"), ("transactions_1conn", "obgw transactions 1conn")):
    r = by.get(label)
    summary[key] = {"rps": r["rps"], "p99_us": r["p99_us"], "errors": r["errors"]} if r else None

# The product paths: obgw as shipped against stock Caddy answering the same
# bytes, per round and the median of the rounds.
PRODUCT = [
    # key, label, what, target ratio
    ("transactions", "transactions", "transactions read (PSU present)", 0.50),
    ("transactions_1conn", "transactions 1conn", "transactions read, 1 connection", None),
    ("unconsented", "unconsented", "GET /v1/accounts without consent (401 + scaRedirect)", 0.55),
    ("payment", "payment", "payment creation (201)", 0.35),
    ("stranger", "stranger", "GET /v1/card-accounts unsigned, no certificate (400, not sealed)", None),
    ("transactions_postgres", "postgres transactions", "transactions read on PostgreSQL", 0.40),
    ("p256_transactions", "p256 transactions", "with a P-256 seal: transactions read (PSU present)", 0.50),
    ("p256_transactions_1conn", "p256 transactions 1conn", "with a P-256 seal: transactions read, 1 connection", None),
    ("p256_unconsented", "p256 unconsented", "with a P-256 seal: GET /v1/accounts without consent", 0.55),
    ("p256_payment", "p256 payment", "with a P-256 seal: payment creation (201)", 0.35),
    ("p256_transactions_postgres", "postgres-p256 transactions", "with a P-256 seal: transactions read on PostgreSQL", 0.40),
    ("hsm_p256_transactions", "hsm-p256 transactions", "with the P-256 seal in SoftHSM2 (PKCS #11): transactions read", None),
    ("hsm_rsa_transactions", "hsm-rsa transactions", "with the RSA-2048 seal in SoftHSM2 (PKCS #11): transactions read", None),
    ("gorsa_transactions", "gorsa transactions", "pure-Go build (RSA-2048 seal through crypto/rsa): transactions read", None),
]
TARGET_P50_MS, TARGET_P99_MS = 0.15, 0.5
product = {
    "rounds": len(rounds("stock product transactions")) or len(rounds("obgw product transactions")),
    "page_limit": int(env["sqlite_page_limit"][-1]) if "sqlite_page_limit" in env else None,
    "page_limit_postgres": int(env["postgres_page_limit"][-1]) if "postgres_page_limit" in env else None,
    "failures": env.get("failure", []),
}
missing = []
for key, label, what, target in PRODUCT:
    o, s = "obgw product " + label, "stock product " + label
    if key.endswith("transactions_postgres") and "postgres_skipped" in env:
        product[key] = {"skipped": env["postgres_skipped"][-1]}
        continue
    ratios = round_ratios(o, s)
    if not ratios:
        product[key] = None
        missing.append(what)
        continue
    p = {
        "ratio": median(ratios), "ratios": ratios, "target": target,
        "obgw_rps": median([r["rps"] for r in rounds(o)]), "stock_rps": median([r["rps"] for r in rounds(s)]),
        "obgw_p50_us": median([r["p50_us"] for r in rounds(o)]), "obgw_p99_us": median([r["p99_us"] for r in rounds(o)]),
        "stock_p50_us": median([r["p50_us"] for r in rounds(s)]), "stock_p99_us": median([r["p99_us"] for r in rounds(s)]),
        "body_bytes": int(env["bytes_" + label.replace(" 1conn", "")][-1]) if "bytes_" + label.replace(" 1conn", "") in env else None,
        "errors": sum(r["errors"] for r in rounds(o) + rounds(s)),
    }
    if key.endswith("transactions_1conn"):
        added50 = [x / 1000 for x in round_added(o, s, "p50_us")]
        added99 = [x / 1000 for x in round_added(o, s, "p99_us")]
        p.update({"added_p50_ms": median(added50), "added_p50_ms_rounds": added50, "target_added_p50_ms": TARGET_P50_MS,
                  "added_p99_ms": median(added99), "added_p99_ms_rounds": added99, "target_added_p99_ms": TARGET_P99_MS})
    product[key] = p
summary["product"] = product
json.dump(summary, open(out, "w"), indent=2)


def table(title, labels):
    print(f"{title:44} {'req/s':>9} {'p50 us':>8} {'p99 us':>8} {'p99.9 us':>9} {'errors':>7}")
    for label in labels:
        rs = rounds(label) or [by[label]]
        med = lambda f: statistics.median(r[f] for r in rs)
        print(f"{label:44} {med('rps'):9.0f} {med('p50_us'):8.0f} {med('p99_us'):8.0f} {med('p999_us'):9.0f} {sum(r['errors'] for r in rs):7d}")


labels = list(dict.fromkeys(base(r["label"]) for r in rows))
table(f"run (median of {summary['rounds']} rounds)", [lb for lb in labels if " product " not in lb])
print()
fmt = lambda xs: ", ".join(f"{x:.2f}" for x in xs)
if summary["respond_ratio"] is not None:
    print(f"respond ratio obgw/stock: {summary['respond_ratio']:.2f} (target >= 0.60; rounds {fmt(summary['respond_ratios'])})")
    print(f"proxy   ratio obgw/stock: {summary['proxy_ratio']:.2f} (target >= 0.85; rounds {fmt(summary['proxy_ratios'])})")
    print(f"1 connection: added p50 {summary['added_p50_us_1conn']:.0f} us (target <= 50), added p99 {summary['added_p99_us_1conn']:.0f} us (target <= 300)")
tx, tx1 = summary["transactions"], summary["transactions_1conn"]
if tx and tx1:
    print(f"transactions, page of 200 (shipped Caddyfile, SQLite): {tx['rps']:.0f} req/s p99 {tx['p99_us']/1000:.1f} ms; 1 connection {tx1['rps']:.0f} req/s p99 {tx1['p99_us']/1000:.1f} ms")
else:
    print("transactions, page of 200: FAILED (see above)")

product_labels = [lb for lb in labels if " product " in lb]
if product_labels:
    print()
    table(f"product path (median of {product['rounds']} rounds)", product_labels)
print()
print(f"product path, obgw (shipped Caddyfile, sandbox, replay enforced) / stock Caddy answering the same bytes,"
      f" {env.get('conns', ['?'])[-1]} connections, {env.get('duration', ['?'])[-1]} a run:")


def verdict(ok):
    return "" if ok else "  << below target"


for key, label, what, target in PRODUCT:
    p = product.get(key)
    if key == "transactions":
        what += f", page of {product['page_limit']} ({p['body_bytes'] if p else '?'} bytes)"
    if key == "transactions_postgres" and product["page_limit_postgres"]:
        what += f", page of {product['page_limit_postgres']}"
    if p is None:
        print(f"  {what}: FAILED (see above)")
    elif "skipped" in p:
        print(f"  {what}: skipped ({p['skipped']})")
    elif key.endswith("transactions_1conn"):
        print(f"  {what}: ratio {p['ratio']:.2f} (rounds {fmt(p['ratios'])}); "
              f"added p50 {p['added_p50_ms']:.3f} ms (target <= {TARGET_P50_MS}; rounds {', '.join(f'{x:.3f}' for x in p['added_p50_ms_rounds'])}), "
              f"added p99 {p['added_p99_ms']:.3f} ms (target <= {TARGET_P99_MS}; rounds {', '.join(f'{x:.3f}' for x in p['added_p99_ms_rounds'])})"
              f"{verdict(p['added_p50_ms'] <= TARGET_P50_MS and p['added_p99_ms'] <= TARGET_P99_MS)}")
    elif target is None:
        print(f"  {what}: {p['ratio']:.2f} (rounds {fmt(p['ratios'])})")
    else:
        print(f"  {what}: {p['ratio']:.2f} (target >= {target:.2f}; rounds {fmt(p['ratios'])}){verdict(p['ratio'] >= target)}")
for f in product["failures"]:
    print(f"  FAILED: {f}")
print(f"raw numbers: {out}")
shutil.copy(out, os.path.join(os.path.dirname(out), "latest.json"))
bad = [r for r in rows if (r["label"].startswith("obgw transactions") or " product " in r["label"]) and r["errors"]]
for r in bad:
    print(f"ERROR: {r['label']}: {r['errors']} of {r['requests']} requests failed, first: {r.get('first_error')}", file=sys.stderr)
for what in missing:
    print(f"ERROR: product scenario without results: {what}", file=sys.stderr)
sys.exit(1 if bad or missing or product["failures"] else 0)
