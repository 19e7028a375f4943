#!/usr/bin/env bash
# Alternate the htsim twin and bufferlab-bench on the twin scenario, ROUNDS times, in one run.
#   usage: benchmarks/htsim/compare.sh HTSIM_TWIN_BINARY [ROUNDS=10] [SCENARIO=twin.json] [OUT=results.txt]
# Run from the repository root after `cargo build --release -p bufferlab-engine --bins`.
# HTSIM_ARGS (e.g. "-quiet") is passed to the htsim twin; BENCH overrides the bufferlab-bench path.
# Writes the raw JSON lines (one per run) and a summary to OUT.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
htsim="${1:?usage: compare.sh HTSIM_TWIN_BINARY [ROUNDS] [SCENARIO] [OUT]}"
rounds="${2:-10}"
scenario="${3:-$here/twin.json}"
out="${4:-results.txt}"
bench="${BENCH:-$here/../../target/release/bufferlab-bench}"
log="$(mktemp)"   # htsim prints one line per retransmission timeout to stdout
{
  echo "# $(date -u +%FT%TZ) $(uname -n) nproc=$(nproc)"
  echo "# htsim=$htsim ${HTSIM_ARGS:-} bench=$bench scenario=$scenario rounds=$rounds"
  echo "# uptime before: $(uptime)"
  for r in $(seq 1 "$rounds"); do
    # shellcheck disable=SC2086
    "$htsim" ${HTSIM_ARGS:-} > "$log"
    echo "htsim round=$r rto_lines=$(grep -c ' RTO ' "$log" || true) $(tail -n 1 "$log")"
    echo "bufferlab round=$r $("$bench" "$scenario")"
  done
  echo "# uptime after: $(uptime)"
} > "$out"
rm -f "$log"
python3 - "$out" <<'PY' | tee -a "$out"
import json, re, statistics, sys
rows = {"htsim": [], "bufferlab": []}
for line in open(sys.argv[1]):
    m = re.match(r"(htsim|bufferlab) round=\d+ .*?(\{.*\})$", line.strip())
    if m:
        rows[m.group(1)].append(json.loads(m.group(2)))
s = {}
print("# summary")
for prog, rs in rows.items():
    wall = [r["wall_s"] for r in rs]
    cost = [r["s_per_million_packets"] for r in rs]
    pk = sorted({r["bottleneck_packets"] for r in rs})
    s[prog] = (statistics.median(cost), min(cost))
    print(f"{prog:9s} runs={len(rs)} wall_s median={statistics.median(wall):.4f} min={min(wall):.4f} "
          f"bottleneck_packets={pk} s_per_Mpkt median={statistics.median(cost):.4f} min={min(cost):.4f}")
print(f"ratio htsim/bufferlab of s_per_Mpkt: medians {s['htsim'][0]/s['bufferlab'][0]:.3f}, "
      f"minima {s['htsim'][1]/s['bufferlab'][1]:.3f}")
PY
