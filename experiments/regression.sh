#!/bin/bash
# Usage: cargo build --release -p prunesim && PRUNESIM=$PWD/target/release/prunesim experiments/regression.sh > docs/regression.csv
# Regression table: mean robustness over 30 trials, default PET, 19k and 34k.
cd "$(mktemp -d)"
echo "heuristic,rate,robustness_mean,ci95_low,ci95_high"
for h in PAM PAMF PAMF-R PUM PAMND MOC MOCA MM MSD MMU MM-D MSD-D MMU-D MM-P MSD-P MMU-P EDF SJF FCFS MET MCT KPB MR; do
 for r in 19000 34000; do
  q=6; case $h in FCFS|MET|MCT|KPB|MR) q='"unbounded"';; esac
  cat > reg.toml <<EOT
[workload]
rate = $r
seed = 2019
[system]
queue_size = $q
[mapper]
name = "$h"
EOT
  "$PRUNESIM" run reg.toml --json --no-bound --jobs 2 | python3 -c "import json,sys; d=json.load(sys.stdin); e=d['metrics']['robustness']; print(f\"$h,$r,{e['mean']:.4f},{e['ci95_low']:.4f},{e['ci95_high']:.4f}\")"
 done
done
