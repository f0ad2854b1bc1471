#!/usr/bin/env bash
# mig_dry_run.sh KRAKEN GPU_ID OUTDIR
# `kraken mig apply --dry-run` on this node's driver (docs/mig-planning.md): a plan from
# `kraken mig-plan --emit mig-parted` for two workloads on GPU_ID (h100-sxm, h200-sxm), then
# `mig apply --plan` with --dry-run, ALWAYS: it reads the GPUs and says what it would
# destroy and create, changing nothing. Writes OUTDIR/plan.yaml, OUTDIR/apply.txt (its
# output) and OUTDIR/apply.rc. With MIG mode off the apply refuses (exit 2, its message
# says why): a valid result, so exit codes 0 and 2 both count as a recorded run.
set -uo pipefail
kraken=$1 gpu=$2 dir=$3
mkdir -p "$dir"
"$kraken" mig-plan --gpu "$gpu" --workload infer:8:0.1 --workload train:30:0.4 --emit mig-parted \
  --gpus-per-node 1 > "$dir/plan.yaml" || { echo "mig_dry_run: kraken mig-plan failed"; exit 1; }
"$kraken" mig apply --plan "$dir/plan.yaml" --dry-run > "$dir/apply.txt" 2>&1
rc=$?
echo "$rc" > "$dir/apply.rc"
echo "mig_dry_run: kraken mig apply --dry-run exited $rc:"
cat "$dir/apply.txt"
[ $rc = 0 ] || [ $rc = 2 ]
