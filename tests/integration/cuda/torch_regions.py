"""torch_regions.py - a PyTorch workload under torch.cuda.nvtx.range, for the CUDA collector's
region test (tests/integration/cuda/torch_regions.sh).

    python3 torch_regions.py            the workload: "warm-up" then "main" NVTX ranges
    python3 torch_regions.py profile    the same, with torch.profiler around the "main" range:
                                        prints profiler_kernels=N, the GPU kernels it saw

The workload is deterministic in its kernels (fixed shapes, no cuDNN autotuning, no host
reads inside "main"), so a run under renacer and a run under the profiler launch the same
kernels in "main".
"""
import sys

import torch

STEPS = 10


def main():
    profile = len(sys.argv) > 1 and sys.argv[1] == "profile"
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    dev = "cuda"
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
        torch.nn.LayerNorm(256)).to(dev)
    x = torch.randn(64, 256, device=dev)

    def step():
        with torch.no_grad():
            y = model(x)
            z = torch.softmax(y, dim=-1)
            return (z * 2.0).sum()

    with torch.cuda.nvtx.range("warm-up"):
        for _ in range(3):
            step()
    torch.cuda.synchronize()
    if not profile:
        with torch.cuda.nvtx.range("main"):
            for _ in range(STEPS):
                step()
        torch.cuda.synchronize()
        return 0
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        with torch.cuda.nvtx.range("main"):
            for _ in range(STEPS):
                step()
        torch.cuda.synchronize()
    kernels = 0
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        if e.name.startswith("Memcpy") or e.name.startswith("Memset"):
            continue
        kernels += 1
    print("profiler_kernels=%d" % kernels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
