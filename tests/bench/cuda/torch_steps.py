"""torch_steps.py - ResNet-18 training steps, each inside torch.cuda.nvtx.range("step"), for the
CUDA collector's cost and region benchmarks (tests/bench/cuda/collector_cost.sh).

    python3 torch_steps.py time STEPS     warm-up, then STEPS timed steps: step_ms=<median>
    python3 torch_steps.py time-profiler STEPS
                                          the same, the steps under torch.profiler (CUDA
                                          activity only): CUPTI's own cost, for reference
    python3 torch_steps.py profile STEPS  warm-up, then STEPS steps under torch.profiler:
                                          profiler_ops=<GPU kernels, copies and sets>,
                                          profiler_kernels=<kernels alone>

Backward kernels are launched from autograd's own thread: a region that keeps only its own
thread's work misses them.
"""
import statistics
import sys
import time

import torch
import torchvision


def main():
    mode, steps = sys.argv[1], int(sys.argv[2])
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    model = torchvision.models.resnet18(num_classes=10).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(32, 3, 64, 64, device="cuda")
    y = torch.randint(0, 10, (32,), device="cuda")
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        with torch.cuda.nvtx.range("step"):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            torch.cuda.synchronize()

    for _ in range(5):
        with torch.cuda.nvtx.range("warm-up"):
            opt.zero_grad(set_to_none=True)
            loss_fn(model(x), y).backward()
            opt.step()
    torch.cuda.synchronize()
    if mode == "profile":
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                step()
        ops = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        kernels = [e for e in ops if not e.name.startswith(("Memcpy", "Memset"))]
        print(f"profiler_ops={len(ops)}")
        print(f"profiler_kernels={len(kernels)}")
        return
    times = []

    def timed():
        for _ in range(steps):
            t0 = time.perf_counter()
            step()
            times.append((time.perf_counter() - t0) * 1e3)

    if mode == "time-profiler":
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]):
            timed()
    else:
        timed()
    print(f"step_ms={statistics.median(times):.4f}")


if __name__ == "__main__":
    main()
