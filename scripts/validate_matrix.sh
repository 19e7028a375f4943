#!/usr/bin/env bash
# Regenerates every report under docs/validation/ (docs/validation/README.md says what each holds): the
# scenario matrix v01–v36 against ns-3 at the default replication cap, then the scenarios whose verdict is
# noise-limited at that cap again with a higher one. About three hours on 2 cores (JOBS, default 2, ns-3
# runs at once); each line may run alone. Needs the ns3 package (pip install "ns3==3.44.post0"). Exits
# non-zero if any verdict is not a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
S=validation/scenarios
V=docs/validation
status=0
# Every report stores its ns-3 runs in one place, so the extra-seeds runs read back the seeds already run.
run() { bufferlab validate --jobs "${JOBS:-2}" --runs "$V/runs" "$@" || status=1; }

run $S/v0*.toml $S/v1[0-6]*.toml --out $V
run $S/v1[7-9]*.toml $S/v2[0-5]*.toml --out $V/modern
run $S/v2[678]*.toml $S/v3[2-5]*.toml --out $V/sizing
run $S/v31*.toml $S/v29*.toml $S/v30*.toml --out $V/sizing-flows
run $S/v36*.toml --out $V/phase
# More seeds where the per-seed spread of Jain's index (about 0.1) is as wide as the ±0.03 band.
run $S/v04*.toml $S/v21*.toml --max-replications 300 --out $V/more-seeds
run $S/v14*.toml --max-replications 120 --out $V/more-seeds/v14
run $S/v18*.toml --max-replications 30 --out $V/more-seeds/v18
run $S/v29*.toml --max-replications 60 --out $V/more-seeds/v29
exit $status
