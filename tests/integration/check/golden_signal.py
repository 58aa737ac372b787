#!/usr/bin/env python3
"""golden_signal.py RENACER - an interrupted `renacer golden update` leaves what it found.

SIGINT or SIGTERM while the update runs its targets: the previous golden traces stay byte for
byte, no temporary file is left beside them, and a golden directory that this update created
(and left empty) is removed. Exit 77 when ptrace is not permitted here.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL " + what)
    return cond


def config(tmp, seconds):
    with open(os.path.join(tmp, "renacer.toml"), "w") as f:
        f.write('[[target]]\nname = "nap"\ncommand = ["/bin/sleep", "%s"]\nruns = 3\n\n'
                '[[target]]\nname = "nap2"\ncommand = ["/bin/sleep", "%s"]\nruns = 3\n\n'
                '[golden]\ndir = "%s"\nruns = 3\n' % (seconds, seconds,
                                                      os.path.join(tmp, "golden")))


def update(renacer, tmp, sig=None):
    """Run golden update; with `sig`, send it once the first run is under way."""
    p = subprocess.Popen([renacer, "golden", "update", "--config",
                          os.path.join(tmp, "renacer.toml")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if sig is not None:
        time.sleep(1.0)  # the runs of 'nap' take 3 s or more
        check(p.poll() is None, "golden update ended before the signal")
        p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        check(False, "golden update did not end after the signal")
    return p.returncode, err


def snapshot(d):
    if not os.path.isdir(d):
        return None
    out = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
            out[name] = f.read()
    return out


def main():
    renacer = sys.argv[1]
    if subprocess.call([renacer, "trace", "-c", "-o", "/dev/null", "--", "/bin/true"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
        print("SKIP: cannot trace here")
        return 77
    with tempfile.TemporaryDirectory(prefix="rn-golden-signal-") as tmp:
        golden = os.path.join(tmp, "golden")
        for sig in (signal.SIGINT, signal.SIGTERM):
            # no golden directory yet: the one this update makes goes with it
            config(tmp, "0.5")
            rc, err = update(renacer, tmp, sig)
            check(rc == 128 + sig, "%s: exit %d, expected %d\n%s" % (sig.name, rc, 128 + sig, err))
            check(not os.path.exists(golden),
                  "%s: golden directory left: %s" % (sig.name, os.listdir(golden)
                                                     if os.path.isdir(golden) else "a file"))
        # a complete update, then one interrupted while it re-records
        config(tmp, "0.01")
        rc, err = update(renacer, tmp)
        check(rc == 0, "complete update: exit %d\n%s" % (rc, err))
        before = snapshot(golden)
        check(before and "nap.json" in before and "nap2.json" in before,
              "complete update wrote %s" % (sorted(before) if before else None))
        for sig in (signal.SIGINT, signal.SIGTERM):
            config(tmp, "0.5")
            rc, err = update(renacer, tmp, sig)
            check(rc == 128 + sig, "%s over golden traces: exit %d\n%s" % (sig.name, rc, err))
            after = snapshot(golden)
            check(after == before, "%s: golden directory changed: %s -> %s" %
                  (sig.name, sorted(before or {}), sorted(after or {})))
    if FAILS:
        return 1
    print("ok: interrupted golden updates left the golden traces as they were")
    return 0


if __name__ == "__main__":
    sys.exit(main())
