# shellcheck shell=bash
# scripts/gpu-validate.sh, phase 6: kraken's actions in the time left (MIG dry run, a
# profiled experiment).
# Sourced by scripts/gpu-validate.sh before the run starts (functions only: a missing or
# broken file stops the script at once, not half-way through the one GPU run); they use
# its variables and helpers (step, skip, run_if, need, say, phase_end, ...) when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

phase_6_actions() {
  act="$res/actions"
  mkdir -p "$act"
  # `kraken mig apply` on the real driver, --dry-run only (mig_dry_run.sh hard-codes it).
  mig_gpu=h100-sxm
  grep -qi 'H200' "$res/env/gpu-query.txt" 2>/dev/null && mig_gpu=h200-sxm
  run_if p6.mig-apply-dry-run 20 kraken "$gv/mig_dry_run.sh" "$kraken" "$mig_gpu" "$act/mig"
  # A profiled experiment: the controller's ncu argv on kernel_mix, its log imported.
  if [ -x "$kernel_mix" ]; then
    run_if p6.profile-run 60 "gpu ncu kraken" "$gv/profile_run.sh" "$kraken" "$ncu" 10 "$act/profile-run" \
      -- "$kernel_mix" 2
  else
    skip p6.profile-run "kernel_mix was not built"
  fi
}
