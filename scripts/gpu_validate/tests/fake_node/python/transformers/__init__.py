"""transformers stand-in (tests of scripts/gpu_validate): BertConfig and BertModel only."""
import types

from torchvision import _Model

__version__ = "0.0+stand-in"


def BertConfig():  # noqa: N802 - transformers' name
    return types.SimpleNamespace(vocab_size=30522)


def BertModel(config):  # noqa: N802
    return _Model("bert")
