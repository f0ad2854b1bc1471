"""torchvision stand-in (tests of scripts/gpu_validate): models.resnet50 only."""
import types

import torch

__version__ = "0.0+stand-in"


class _Model:
    def __init__(self, name):
        self.name = name

    def to(self, device):
        torch._record((self.name, "to", device))
        return self

    def half(self):
        torch._record((self.name, "half"))
        return self

    def eval(self):
        torch._record((self.name, "eval"))
        return self

    def parameters(self):
        return []

    def __call__(self, *args, **kwargs):
        torch._record((self.name, "forward", sorted(kwargs)))
        return torch._Tensor()


models = types.SimpleNamespace(resnet50=lambda weights=None: _Model("resnet50"))
