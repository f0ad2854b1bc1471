#!/usr/bin/env python3
"""Versions of what the validation run uses, as one JSON object on stdout.

Python, and (each only when importable, else null) torch with its CUDA, cuDNN and the
GPU's name, torchvision, transformers, numpy; the libcupti files the `nvidia` wheels of
this environment carry (where kraken's tracer looks for it, docs/kernel-capture.md).
`cuda_available` is what the script's steps test before using torch on the GPU.
"""
from __future__ import annotations

import glob
import json
import os
import platform
import site
import sys
from typing import Any, Dict, List


def module_version(name: str) -> Any:
    """`name.__version__`, or None when it does not import (the error is not fatal)."""
    try:
        module = __import__(name)
    except Exception:  # noqa: BLE001 - any import failure means "not usable here"
        return None
    return getattr(module, "__version__", "unknown")


def cupti_wheels() -> List[str]:
    """libcupti files under nvidia/*/lib of this interpreter's site-packages."""
    folders = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    found: List[str] = []
    for folder in folders:
        found += glob.glob(os.path.join(folder, "nvidia", "*", "lib", "libcupti.so*"))
    return sorted(found)


def main() -> int:
    info: Dict[str, Any] = {"python": platform.python_version(), "executable": sys.executable,
                            "numpy": module_version("numpy"), "torchvision": module_version("torchvision"),
                            "transformers": module_version("transformers"), "torch": None,
                            "cuda_available": False, "libcupti_in_wheels": cupti_wheels()}
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch_cuda"] = torch.version.cuda
        info["cudnn"] = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        info["cuda_available"] = bool(torch.cuda.is_available())
        if info["cuda_available"]:
            props = torch.cuda.get_device_properties(0)
            info["device"] = {"name": props.name, "capability": f"{props.major}.{props.minor}",
                              "sms": props.multi_processor_count, "memory_bytes": props.total_memory}
    except Exception as e:  # noqa: BLE001 - report, never fail: this is the environment listing
        info["torch_error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(info, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
