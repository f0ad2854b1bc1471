"""ncu_roofline.sh with a stand-in `ncu` (no Nsight Compute here): the arguments it passes,
and its fallbacks when ncu refuses metric names."""
from __future__ import annotations

import os
import subprocess

from conftest import HELPERS

FAKE_NCU = r"""#!/bin/sh
# Records its arguments; refuses metric lists naming $REJECT; -o writes a report;
# --import prints a CSV (raw page: header, units, one kernel).
echo "$*" >> "$NCU_LOG"
case " $* " in
  *" --import "*)
    case " $* " in *" raw "*) printf '"ID","Kernel Name"\n"",""\n"0","saxpy"\n' ;;
                   *) printf '"ID","Kernel Name","Metric Name"\n"0","saxpy","gpu__time_duration.sum"\n' ;; esac
    exit 0 ;;
esac
if [ -n "$REJECT" ] && echo "$*" | grep -q -e "$REJECT"; then echo "==ERROR== Failed to find metric $REJECT"; exit 1; fi
while [ $# -gt 0 ]; do [ "$1" = -o ] && { echo rep > "$2.ncu-rep"; }; shift; done
"""


def run(tmp_path, reject: str, *extra: str):
    ncu = tmp_path / "ncu"
    ncu.write_text(FAKE_NCU)
    ncu.chmod(0o755)
    log = tmp_path / "ncu.log"
    env = dict(os.environ, NCU_LOG=str(log), REJECT=reject)
    base = tmp_path / "out" / "ncu-x"
    base.parent.mkdir()
    result = subprocess.run([os.path.join(HELPERS, "ncu_roofline.sh"), str(ncu), str(base), *extra, "--", "prog", "2"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    return result, log.read_text().splitlines(), base


def test_full_metric_list_first(tmp_path) -> None:
    result, calls, base = run(tmp_path, "")
    assert result.returncode == 0, result.stdout
    profile = calls[0].split()
    assert profile[:5] == ["--target-processes", "all", "--clock-control", "none", "-c"] and profile[5] == "5"
    metrics = profile[profile.index("--metrics") + 1].split(",")
    for name in ("gpu__time_duration.sum", "dram__bytes.sum", "dram__bytes.sum.peak_sustained",
                 "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                 "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
                 "sm__ops_path_tensor_src_fp16_dst_fp32.sum", "device__attribute_display_name",
                 "sm__cycles_elapsed.avg.per_second"):
        assert name in metrics, name
    assert profile[-2:] == ["prog", "2"] and "--nvtx" not in profile
    assert calls[1].endswith("--csv --page details --print-units base") and "--page raw" in calls[2]
    assert (base.parent / "ncu-x.csv").read_text().startswith('"ID"')
    assert "1 kernel rows" in result.stdout


def test_falls_back_when_metric_names_are_refused(tmp_path) -> None:
    result, calls, _ = run(tmp_path, "sm__ops_path", "--nvtx-step")
    assert result.returncode == 0, result.stdout
    assert "'full' failed" in result.stdout and "'no-tensor' recorded" in result.stdout
    assert "sm__ops_path" not in calls[1] and "device__attribute_display_name" in calls[1]
    assert "--nvtx --nvtx-include ProfilerStep#0/" in calls[1]
    again = tmp_path / "again"
    again.mkdir()
    result, calls, _ = run(again, "device__attribute")
    assert "'sections' recorded" in result.stdout and calls[3].count("--section") == 2 and "--metrics" not in calls[3]


def test_no_report_is_a_failure(tmp_path) -> None:
    result, calls, base = run(tmp_path, "--section")  # every attempt refused
    assert result.returncode == 1 and "no attempt recorded a report" in result.stdout
    assert len(calls) == 4 and not (base.parent / "ncu-x.csv").exists()
