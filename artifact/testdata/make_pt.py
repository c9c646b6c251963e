#!/usr/bin/python3
"""Writes the PyTorch fixtures of artifact's tests with PyTorch itself (Debian's
python3-torch), and pt_golden.json beside them: for each file, the tensors the Go reader
must return (the values widened to float64 by PyTorch's own conversion, so exactly) and the
entries it must skip, or that it must refuse the file.

Run from the repository root: /usr/bin/python3 artifact/testdata/make_pt.py [OUTDIR]
(OUTDIR defaults to artifact/testdata; the golden test runs it into a temporary folder when
PyTorch is installed and compares its golden file with the committed one's cases.)
"""
import collections
import json
import os
import sys

# TorchScript writes a module's constants in the order of a set of names, which follows
# Python's randomised string hashes: fixed here, so that every run writes the same bytes
if os.environ.get("PYTHONHASHSEED") != "0":
    os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, PYTHONHASHSEED="0"))

import torch  # noqa: E402 (after the re-exec)

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
os.makedirs(out, exist_ok=True)
torch.manual_seed(20261124)


class Net(torch.nn.Module):  # a user's own class: torch.save(model) pickles it by name
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)


def expect(sd, skipped=()):
    tensors = {}
    for name, t in sd.items():
        if name in skipped:
            continue
        t = t.detach()
        tensors[name] = {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."),
                         "values": t.double().contiguous().view(-1).tolist()}
    return {"tensors": tensors, "skipped": sorted(skipped)}


golden = {}

# a Linear layer, float32: what torch.save(model.state_dict(), path) writes
lin = torch.nn.Linear(4, 3)
torch.save(lin.state_dict(), os.path.join(out, "linear_f32.pt"))
golden["linear_f32.pt"] = expect(lin.state_dict())

# a float64 model saved as .pth, with pickle protocol 4 (MEMOIZE, SHORT_BINUNICODE, FRAME)
mlp = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
torch.save(mlp.state_dict(), os.path.join(out, "mlp_f64_proto4.pth"), pickle_protocol=4)
golden["mlp_f64_proto4.pth"] = expect(mlp.state_dict())

# BatchNorm: running statistics are float buffers (read); num_batches_tracked is int64
# (skipped: it counts batches, it is not a weight)
bn = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
bn.train()
bn(torch.randn(8, 3))
torch.save(bn.state_dict(), os.path.join(out, "batchnorm.pt"))
golden["batchnorm.pt"] = expect(bn.state_dict(), skipped=["1.num_batches_tracked"])

# half precision, bfloat16, a scalar, views (transposed, offset into a shared storage)
# and tied weights (two names, one tensor)
base = torch.randn(3, 4)
tied = torch.randn(2, 2)
views = collections.OrderedDict([
    ("half", torch.randn(2, 3).half()),
    ("bf16", torch.randn(5).bfloat16()),
    ("scalar", torch.tensor(2.5)),
    ("transposed", base.t()),
    ("rows", base[1:]),
    ("column", base[:, 2]),
    ("tied.a", tied),
    ("tied.b", tied),
    ("empty", torch.zeros(0, 3)),
])
torch.save(views, os.path.join(out, "views.pt"))
golden["views.pt"] = expect(views)

# nn.Parameter objects (torch.save(dict(model.named_parameters()))): _rebuild_parameter
params = dict(Net().named_parameters())
torch.save(params, os.path.join(out, "parameters.pt"))
golden["parameters.pt"] = expect(params)

# refused, each with a message saying what to save instead
torch.save(Net(), os.path.join(out, "whole_model.pt"))  # the module, pickled by class
torch.save({"epoch": 3, "model_state_dict": Net().state_dict()}, os.path.join(out, "checkpoint.pt"))
torch.save(lin.state_dict(), os.path.join(out, "legacy.pt"), _use_new_zipfile_serialization=False)
torch.save({"e": torch.ones(2, 1).expand(2, 3)}, os.path.join(out, "expanded.pt"))  # stride 0
# a TorchScript module (torch.jit.save): one data.pkl, as torch.save writes, beside
# constants.pkl and code/ (the module's compiled Python); its pickle names the module's
# class, so only those entries tell it from torch.save(model). Made last, so that the
# random draws of the files above are those they always were.
torch.jit.save(torch.jit.script(torch.nn.Linear(2, 1)), os.path.join(out, "torchscript.pt"))
for name in ["whole_model.pt", "checkpoint.pt", "legacy.pt", "expanded.pt", "torchscript.pt"]:
    golden[name] = {"refused": True}

with open(os.path.join(out, "pt_golden.json"), "w") as f:
    json.dump({"torch": torch.__version__, "cases": golden}, f, indent=1, sort_keys=True)
    f.write("\n")
