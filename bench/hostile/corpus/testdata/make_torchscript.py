# Writes torchscript.pt, the real TorchScript archive of issue 41's cause 9: torch.jit.save
# of a tiny module (a Linear layer of 3 inputs and 2 outputs, seeded), which holds
# archive/data.pkl beside archive/constants.pkl and archive/code/. The audit must say it is
# TorchScript (torch.jit.save), not that it "looks saved with torch.save(model)".
# Run from this folder (bench/hostile/corpus/testdata): /usr/bin/python3 make_torchscript.py  (Debian's python3-torch)
import torch

torch.manual_seed(41)


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)


torch.jit.save(torch.jit.script(Tiny()), "torchscript.pt")
