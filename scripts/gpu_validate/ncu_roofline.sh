#!/usr/bin/env bash
# ncu_roofline.sh NCU OUTBASE [--nvtx-step] -- CMD ARGS...
# Nsight Compute on the first 5 kernels CMD launches (with --nvtx-step: the first 5 inside
# the NVTX range ProfilerStep#0), collecting the metrics kraken's ncu importer reads for
# the roofline (src/importers/ncu/ncu_metric_map.cc: time, cycles and clocks, DRAM bytes
# and peak, FP64/FP32/FP16 instruction counts and FMA peaks, tensor-path op counts,
# speed-of-light percentages). Writes OUTBASE.ncu-rep and its exports OUTBASE.csv
# (details page) and OUTBASE-raw.csv (raw page), both in base units.
#
# Metric names differ between architectures and an unknown one fails the run, so it tries
# the full list, then the list without the tensor-path names, then the SpeedOfLight and
# roofline sections with the device attributes, then those sections alone (which every ncu
# has). `--clock-control none`: ncu leaves the
# GPU's clocks alone (kraken rescales the datasheet peaks by the measured SM clock).
set -uo pipefail
ncu=$1 base=$2
shift 2
nvtx=()
if [ "${1:-}" = --nvtx-step ]; then
  nvtx=(--nvtx --nvtx-include 'ProfilerStep#0/')
  shift
fi
[ "${1:-}" = -- ] && shift

core=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second
core+=,dram__cycles_elapsed.avg.per_second,dram__bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum
core+=,dram__bytes.sum.peak_sustained,lts__t_bytes.sum,l1tex__t_bytes.sum
for p in d f h; do
  for op in add mul fma; do core+=,smsp__sass_thread_inst_executed_op_${p}${op}_pred_on.sum; done
  core+=,sm__sass_thread_inst_executed_op_${p}fma_pred_on.sum.peak_sustained
done
core+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
core+=,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
core+=,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
core+=,launch__registers_per_thread,launch__grid_size,launch__block_size,smsp__inst_executed_pipe_tensor.sum
# The device, so that kraken finds it in its catalog (tensor and FP16 peaks come from there).
device=device__attribute_display_name,device__attribute_multiprocessor_count,device__attribute_total_memory
device+=,device__attribute_compute_capability_major,device__attribute_compute_capability_minor
device+=,device__attribute_max_gpu_frequency_khz,device__attribute_max_mem_frequency_khz
tensor=sm__ops_path_tensor_src_fp16_dst_fp32.sum,sm__ops_path_tensor_src_fp16_dst_fp16.sum
tensor+=,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_tf32_dst_fp32.sum

rm -f "$base.ncu-rep"
for attempt in full no-tensor sections+device sections; do
  case $attempt in
    full) what=(--section SpeedOfLight --metrics "$core,$device,$tensor") ;;
    no-tensor) what=(--section SpeedOfLight --metrics "$core,$device") ;;
    sections+device) what=(--section SpeedOfLight --section SpeedOfLight_RooflineChart --metrics "$device") ;;
    sections) what=(--section SpeedOfLight --section SpeedOfLight_RooflineChart) ;;
  esac
  echo "ncu_roofline: attempt '$attempt'"
  "$ncu" --target-processes all --clock-control none -c 5 "${nvtx[@]}" "${what[@]}" -f -o "$base" "$@"
  rc=$?
  if [ $rc -eq 0 ] && [ -s "$base.ncu-rep" ]; then
    echo "ncu_roofline: '$attempt' recorded $base.ncu-rep"
    break
  fi
  echo "ncu_roofline: '$attempt' failed (rc=$rc)"
  rm -f "$base.ncu-rep"
done
[ -s "$base.ncu-rep" ] || { echo "ncu_roofline: no attempt recorded a report"; exit 1; }
"$ncu" --import "$base.ncu-rep" --csv --page details --print-units base > "$base.csv" || exit 1
"$ncu" --import "$base.ncu-rep" --csv --page raw --print-units base > "$base-raw.csv" || true
kernels=$(tail -n +2 "$base-raw.csv" 2>/dev/null | grep -c '^"[0-9]' || true)
echo "ncu_roofline: $(wc -l < "$base.csv") lines in $base.csv; raw page: $kernels kernel rows (first line: units)"
[ -s "$base.csv" ]
