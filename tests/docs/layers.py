#!/usr/bin/env python3
"""layers.py SOURCE_DIR - the include rule of runner/INTERNALS.md ("Layers"), checked.

Each source folder is a layer; a file may include headers of its own layer and of the layers
below it, never of a layer above:

    util < collectors < assertions < input < report < history < orchestration

(util = runner/util, input = runner/input, report = runner/report, history = runner/history,
orchestration = runner/ itself). Two more rules of the architecture:
  - collectors/run.c (the event loop) includes no header of a specific collector: it reaches
    drivers and collectors through their ops tables;
  - the trace model (collectors/trace.c, trace.h) includes no header of a specific collector.
Headers are matched by file name (the build's include paths are flat per folder). The Vulkan
layer and the CUDA injection library run inside the target and are left out. Exit 0 when
every rule holds, else 1 with one line per breach.
"""
import os
import re
import sys

ORDER = ["util", "collectors", "assertions", "input", "report", "history", "orchestration"]
SPECIFIC = ("collectors/ptrace", "collectors/ebpf", "collectors/vulkan", "collectors/cuda",
            "collectors/cachegrind")


def layer(folder):
    for name in ("util", "input", "report", "history"):
        if folder == "runner/" + name or folder.startswith("runner/" + name + "/"):
            return name
    if folder == "runner":
        return "orchestration"
    if folder.startswith("collectors/vulkan/layer") or folder.startswith("collectors/cuda/inject"):
        return None
    if folder.startswith("collectors"):
        return "collectors"
    if folder.startswith("assertions"):
        return "assertions"
    return None


def main():
    root = sys.argv[1]
    files = []
    for top in ("runner", "collectors", "assertions"):
        for dp, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".c", ".h")):
                    files.append(os.path.relpath(os.path.join(dp, n), root))
    where = {}
    for f in files:
        if f.endswith(".h"):
            where.setdefault(os.path.basename(f), os.path.dirname(f))
    breaches = []
    checked = 0
    for f in sorted(files):
        src = layer(os.path.dirname(f))
        if src is None:
            continue
        with open(os.path.join(root, f), errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                h = os.path.basename(m.group(1))
                folder = where.get(h)
                if folder is None:
                    continue
                checked += 1
                dst = layer(folder)
                if dst is not None and ORDER.index(dst) > ORDER.index(src):
                    breaches.append(f"{f}:{lineno}: {src} includes {folder}/{h} ({dst}, a layer above)")
                if f in ("collectors/run.c", "collectors/trace.c", "collectors/trace.h") and \
                        folder.startswith(SPECIFIC):
                    breaches.append(f"{f}:{lineno}: includes {folder}/{h}, a specific collector's header")
    for b in breaches:
        print(b)
    print(f"layers: {checked} includes checked, {len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
