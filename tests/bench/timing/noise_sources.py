#!/usr/bin/env python3
"""Run-to-run spread per noise source: address-space layout randomization and hash seeds.

Not a ctest: it measures the machine it runs on. For each workload it times N runs under each
condition, interleaved (one run of each condition per round, the order rotating), and prints
the robust spread (1.4826 MAD / median, percent) of the wall and CPU time of each condition:

  default      as a shell would run it
  no-aslr      personality(ADDR_NO_RANDOMIZE) (setarch -R): the same layout in every run
  seed         PYTHONHASHSEED=0, PERL_HASH_SEED=0 and PERL_PERTURB_KEYS=0: the same hash order
  both         no-aslr and seed

Workloads: a Python dict/set workload, a Perl hash workload, and a C-compiled tool (gzip) whose
only source here is the layout.

Usage: tests/bench/timing/noise_sources.py [--runs 30] [--pin CPU]
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

PY = """
import sys
d = {}
for i in range(300000):
    d["k%d" % (i * 7919 % 1000003)] = i
s = set(str(i) for i in range(200000))
t = 0
for k in sorted(d)[:100000]:
    t += d[k]
print(t + len(s))
"""

PL = """
my %h;
for my $i (0 .. 300000) { $h{"k" . ($i * 7919 % 1000003)} = $i; }
my $t = 0;
for my $k (keys %h) { $t += $h{$k} if length($k) > 4; }
print "$t\\n";
"""

CONDITIONS = ("default", "no-aslr", "seed", "both")


def argv_env(cond, argv):
    env = dict(os.environ)
    for k in ("PYTHONHASHSEED", "PERL_HASH_SEED", "PERL_PERTURB_KEYS"):
        env.pop(k, None)
    if cond in ("seed", "both"):
        env.update(PYTHONHASHSEED="0", PERL_HASH_SEED="0", PERL_PERTURB_KEYS="0")
    if cond in ("no-aslr", "both"):
        argv = ["setarch", os.uname().machine, "-R"] + argv
    return argv, env


def one(argv, env):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu


def spread(x):
    m = statistics.median(x)
    mad = statistics.median(abs(v - m) for v in x)
    return 1.4826 * mad / m * 100.0 if m else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--pin", type=int, default=-1, help="run everything on this CPU")
    a = ap.parse_args()
    if a.pin >= 0:
        os.sched_setaffinity(0, {a.pin})
    tmp = tempfile.mkdtemp()
    with open(os.path.join(tmp, "w.py"), "w") as f:
        f.write(PY)
    with open(os.path.join(tmp, "w.pl"), "w") as f:
        f.write(PL)
    with open(os.path.join(tmp, "data"), "wb") as f:
        f.write(os.urandom(1 << 20) * 4)
    workloads = {
        "python3": ["python3", os.path.join(tmp, "w.py")],
        "perl": ["perl", os.path.join(tmp, "w.pl")],
        "gzip": ["sh", "-c", "exec gzip -6 -c %s > /dev/null" % os.path.join(tmp, "data")],
    }
    print("| workload | condition | wall median (ms) | wall spread | cpu spread |")
    print("|---|---|---|---|---|")
    for name, argv in workloads.items():
        times = {c: ([], []) for c in CONDITIONS}
        for c in CONDITIONS:  # warm-up
            one(*argv_env(c, argv))
        for k in range(a.runs):
            order = CONDITIONS[k % 4:] + CONDITIONS[:k % 4]
            for c in order:
                w, u = one(*argv_env(c, argv))
                times[c][0].append(w)
                times[c][1].append(u)
        for c in CONDITIONS:
            w, u = times[c]
            print("| %s | %s | %.1f | %.2f%% | %.2f%% |" % (
                name, c, statistics.median(w) * 1e3, spread(w), spread(u)))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
