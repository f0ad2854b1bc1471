# shellcheck shell=bash
# scripts/gpu-validate.sh, phase 4: co-location: profiles, predictions, then the measured
# windows (time-slicing, then MPS where the node has it).
# Sourced by scripts/gpu-validate.sh before the run starts (functions only: a missing or
# broken file stops the script at once, not half-way through the one GPU run); they use
# its variables and helpers (step, skip, run_if, need, say, phase_end, ...) when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

phase_4_colocation() {
  co="$res/colocation"
  traced_profile gemm 100 p4
  traced_profile elementwise 100 p4
  for w in resnet50-train bert-infer gemm elementwise; do
    [ -f "$ag/$w.cupti-profile.json" ] && cp "$ag/$w.cupti-profile.json" "$co/$w.profile.json"
  done
  run_if p4.predictions 60 kraken "$py" "$gv/predict.py" --kraken "$kraken" --db "$work/coloc.db" --profiles "$co" \
    --out "$co/predictions"
  standin=""
  [ "$mode" = gpu ] || standin="--stand-in"
  # The measured windows need only torch: without a working kraken they still run, without
  # the `kraken profile --pid` of each member.
  coloc_needs=torch; [ "$mode" = gpu ] || coloc_needs=kraken
  profile_members=()
  [ -z "$(need kraken)" ] && profile_members=(--kraken "$kraken")
  # Time-slicing gets the time left, less what MPS needs when it can run.
  now=$(date +%s)
  ts_end=$global_deadline
  if [ -n "$mps_control" ] && [ "$mode" = gpu ]; then ts_end=$((now + (global_deadline - now) * 55 / 100)); fi
  run_if p4.timeslice $((ts_end - now)) "$coloc_needs" "$py" "$gv/windows.py" colocation --pause "$pause_s" --mode timeslice $standin \
    "${profile_members[@]}" --out "$co/timeslice" --seconds "$coloc_s" --deadline $((ts_end - 10))
  if [ -n "$mps_control" ] && [ "$mode" = gpu ] && [ $have_torch = 1 ]; then
    mps_dir="$work/mps"
    mkdir -p "$mps_dir/pipe" "$mps_dir/log"
    export CUDA_MPS_PIPE_DIRECTORY="$mps_dir/pipe" CUDA_MPS_LOG_DIRECTORY="$mps_dir/log"
    if step p4.mps-start 15 "$mps_control" -d; then
      run_if p4.mps $(( $(left) - 15 )) "$coloc_needs" "$py" "$gv/windows.py" colocation --pause "$pause_s" --mode mps "${profile_members[@]}" \
        --out "$co/mps" --seconds "$coloc_s" --deadline $((global_deadline - 25))
      step p4.mps-servers 10 sh -c "echo get_server_list | \"$mps_control\""
    fi
    stop_mps
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  elif [ "$mode" != gpu ]; then
    skip p4.mps "no GPU (replay mode)"
  elif [ -z "$mps_control" ]; then
    skip p4.mps "nvidia-cuda-mps-control not found"
  else
    skip p4.mps "needs torch with CUDA"
  fi
}
