#!/usr/bin/env bash
# Regenerates every report under docs/validation/ (docs/validation/README.md says what each holds): the
# scenario matrix v01–v44 against ns-3, each scenario in one report, with more seeds (a higher cap) for
# those whose per-seed spread is as wide as their band, then the validation status in README.md and
# docs/validation/README.md from the reports. About two hours on 2 cores (JOBS, default 2, ns-3 runs at
# once); each line may run alone. Needs the ns3 package (pip install "ns3==3.44.post0"). Exits non-zero if
# any verdict is not a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
S=validation/scenarios
V=docs/validation
status=0
# Every report stores its ns-3 runs in one place, so a report run again reads back the seeds already run.
run() { bufferlab validate --jobs "${JOBS:-2}" --runs "$V/runs" "$@" || status=1; }

# Jain's index of ten flows (v04) and of a parking lot's cross traffic (v14) varies by about 0.1 from seed
# to seed, as wide as its ±0.03 band: they may need up to 300 and 120 seeds. Timeouts per flow per second
# spread as widely as their band in v05, v07, v09, v15 and v24 (and in v35, below).
run $S/v0*.toml $S/v1[0-6]*.toml --max-replications v04=300 --max-replications v14=120 \
  --max-replications v05=200 --max-replications v07=60 --max-replications v09=200 \
  --max-replications v13=30 --max-replications v15=300 --out $V
run $S/v1[7-9]*.toml $S/v2[0-5]*.toml --max-replications v18=30 --max-replications v21=300 \
  --max-replications v24=60 --out $V/modern
run $S/v2[678]*.toml $S/v3[2-5]*.toml --max-replications v33=100 --max-replications v34=150 \
  --max-replications v35=200 --out $V/sizing
run $S/v31*.toml $S/v29*.toml $S/v30*.toml --max-replications v29=60 --out $V/sizing-flows
run $S/v36*.toml --out $V/phase
# Jain's index of 40 flows through 6 or 10 packets varies by about 0.1 from seed to seed.
run $S/v3[7-9]*.toml $S/v4[0-4]*.toml --max-replications v37=150 --max-replications v38=150 \
  --max-replications v39=150 --max-replications v43=100 --out $V/tiny
# DCTCP through step marking (ns-3: TcpDctcp, RedQueueDisc with MinTh = MaxTh, QW = 1).
run $S/v4[5-8]*.toml --out $V/datacenter
# BBR (ns-3: TcpBbr) alone and against CUBIC, one socket type per group; BBR's share in v55 and v56 (v52 off
# its knife edge) varies by about 0.1 from seed to seed, as wide as its ±0.03 band.
run $S/v49*.toml $S/v5[0-2]*.toml $S/v5[56]*.toml --max-replications v55=120 --max-replications v56=120 --out $V/bbr
# BBR at one BDP: alone, and against CUBIC between v51's half BDP and v52's four.
run $S/v5[3-4]*.toml --max-replications v53=60 --out $V/bbr-1bdp
python3 scripts/validation_status.py
exit $status
