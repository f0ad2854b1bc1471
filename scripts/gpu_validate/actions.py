"""What phase 6 of scripts/gpu-validate.sh recorded: kraken's actions on a real GPU.

- The profiled experiment (actions/profile-run.*, written by profile_run.sh): the
  controller's profile-Job ncu argv run on kernel_mix, its log imported by `kraken analyze`:
  the kernels imported and each one's bound, or the importer's error line.
- `kraken mig apply --dry-run` (actions/mig/, written by mig_dry_run.sh): its exit code and
  output (with MIG mode off, its refusal).

ingest.py prints `render_text` and puts `markdown` into docs/validation.md.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

NOT_RUN = "not run"


def _read(path: str) -> Optional[str]:
    """The file's text, or None when the run did not write it."""
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def _first_line(text: Optional[str]) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def profile_run(root: str) -> Dict[str, Any]:
    """The profiled experiment: {"ran", "argv", "ncu_rc", "analyze_rc", "kernels" (launches
    imported), "bound" (the workload's), "per_kernel" [{name, count, bound, side, basis}],
    "error" (the importer's first line when the import failed)}."""
    base = os.path.join(root, "actions", "profile-run")
    status_text = _read(base + ".status.json")
    if status_text is None:
        return {"ran": False}
    status = json.loads(status_text)
    out: Dict[str, Any] = {"ran": True, "argv": (_read(base + ".argv.txt") or "").split("\n")[:-1],
                           "ncu_rc": status.get("ncu_rc"), "analyze_rc": status.get("analyze_rc"),
                           "kernels": None, "bound": None, "per_kernel": [], "error": None}
    if out["analyze_rc"] != 0:
        out["error"] = _first_line(_read(base + ".analyze-error.txt")) or f"kraken analyze exited {out['analyze_rc']}"
        return out
    doc = json.loads(_read(base + ".analysis.json") or "{}")
    kernels = doc.get("kernels") or {}
    out["kernels"] = kernels.get("count")
    out["bound"] = (doc.get("workload") or {}).get("bound")
    out["per_kernel"] = [{"name": k.get("name"), "count": k.get("count"), "bound": k.get("bound"),
                          "side": k.get("side"), "basis": k.get("basis")} for k in kernels.get("top") or []]
    return out


def mig_dry_run(root: str) -> Dict[str, Any]:
    """`kraken mig apply --dry-run`: {"ran", "rc", "refused" (exit 2: kraken said why),
    "output" (what it printed), "plan" (the mig-parted file it was given)}."""
    folder = os.path.join(root, "actions", "mig")
    rc_text = _read(os.path.join(folder, "apply.rc"))
    if rc_text is None:
        return {"ran": False}
    rc = int(rc_text.strip())
    return {"ran": True, "rc": rc, "refused": rc == 2, "output": (_read(os.path.join(folder, "apply.txt")) or "").strip(),
            "plan": (_read(os.path.join(folder, "plan.yaml")) or "").strip()}


def all_actions(root: str) -> Dict[str, Any]:
    """Both summaries, keyed "profile_run" and "mig_dry_run"."""
    return {"profile_run": profile_run(root), "mig_dry_run": mig_dry_run(root)}


def render_text(actions: Dict[str, Any]) -> str:
    """The lines for the closing note."""
    lines: List[str] = []
    pr = actions["profile_run"]
    if not pr["ran"]:
        lines.append(f"profiled experiment (controller's ncu argv on kernel_mix): {NOT_RUN}")
    elif pr["error"]:
        lines.append(f"profiled experiment: ncu exited {pr['ncu_rc']}; import failed: {pr['error']}")
    else:
        lines.append(f"profiled experiment: ncu exited {pr['ncu_rc']}; {pr['kernels']} kernels imported, "
                     f"workload bound {pr['bound']}")
        lines += [f"  {str(k['name'])[:60]:60s} x{k['count']}: {k['bound']} / {k['side']} ({k['basis']})"
                  for k in pr["per_kernel"]]
    mig = actions["mig_dry_run"]
    if not mig["ran"]:
        lines.append(f"kraken mig apply --dry-run: {NOT_RUN}")
    else:
        verdict = "refused" if mig["refused"] else ("ok" if mig["rc"] == 0 else "failed")
        lines.append(f"kraken mig apply --dry-run: exit {mig['rc']} ({verdict}): {_first_line(mig['output'])}")
    return "\n".join(lines)


def markdown(actions: Dict[str, Any]) -> List[str]:
    """The "kraken's actions on the driver" section of docs/validation.md."""
    out = ["", "## kraken's actions on the driver", "",
           "Profiled experiment (docs/kubernetes.md): the argv the controller's profile Job runs",
           "(`kraken annotate --print-ncu-command`, with `--clock-control none` added) on kernel_mix, its",
           "log imported by the ncu-csv importer (`kraken analyze`).", ""]
    pr = actions["profile_run"]
    if not pr["ran"]:
        out.append(NOT_RUN + ".")
    elif pr["error"]:
        out.append(f"ncu exited {pr['ncu_rc']}; the import failed: `{pr['error']}`")
    else:
        out += [f"ncu exited {pr['ncu_rc']}; {pr['kernels']} kernel launches imported, workload bound "
                f"{pr['bound']}.", "", "| kernel | launches | bound / side (basis) |", "|---|---|---|"]
        out += [f"| `{str(k['name'])[:70]}` | {k['count']} | {k['bound']} / {k['side']} ({k['basis']}) |"
                for k in pr["per_kernel"]]
    out += ["", "`kraken mig apply --plan PLAN --dry-run` (a `kraken mig-plan --emit mig-parted` plan; never",
            "without --dry-run):", ""]
    mig = actions["mig_dry_run"]
    if not mig["ran"]:
        out.append(NOT_RUN + ".")
    else:
        out += [f"Exit code {mig['rc']}" + (" (refused, saying why)" if mig["refused"] else "") + ":", "", "```",
                mig["output"], "```"]
    return out + [""]
