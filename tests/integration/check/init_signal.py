#!/usr/bin/env python3
"""init_signal.py RENACER - `renacer init` either completes or leaves the directory as it was.

A SIGTERM (or SIGINT) that lands outside a run once killed init and left its measuring config
(.renacer-init-PID.toml) and a golden trace without the config that uses it. Here the signal
is sent while renacer is blocked writing a progress line between two runs: the target's first
run fills renacer's stderr pipe (which this test does not read yet), so the next line blocks
in the kernel's pipe_write, outside any run, where only renacer's own handler can catch it.
Init must end with the signal's exit code and leave the directory empty. Then the same init
run to the end writes its config and golden trace (the case that must still work), and an
init over an existing golden trace is refused without touching anything, and so is a command
argument that is not UTF-8 (a renacer.toml string cannot hold it).
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


def blocked_in_write(pid):
    """Whether process `pid` sleeps in write(2) on a pipe."""
    try:
        wchan = open("/proc/%d/wchan" % pid).read().strip()
        sysc = open("/proc/%d/syscall" % pid).read().split()
    except OSError:
        return False
    return wchan == "pipe_write" or (sysc[:1] == ["1"] and wchan not in ("do_wait",))


# The target: its first run (the warm-up) fills the inherited stderr pipe to the last byte
# (non-blocking writes of shrinking size), then puts the blocking mode back; later runs do
# nothing.
FILL = """
import fcntl, os, sys
if os.path.exists(sys.argv[1]):
    sys.exit(0)
open(sys.argv[1], "w").close()
fl = fcntl.fcntl(2, fcntl.F_GETFL)
fcntl.fcntl(2, fcntl.F_SETFL, fl | os.O_NONBLOCK)
for size in (4096, 512, 64, 8, 1):
    try:
        while True:
            os.write(2, b"x" * size)
    except BlockingIOError:
        pass
fcntl.fcntl(2, fcntl.F_SETFL, fl)
"""


def listing(d):
    out = []
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            out.append(os.path.relpath(os.path.join(root, n), d))
    return sorted(out)


def interrupted_init(R, sig, expect):
    with tempfile.TemporaryDirectory() as base:
        work = os.path.join(base, "proj")
        os.mkdir(work)
        flag = os.path.join(base, "filled")
        p = subprocess.Popen([R, "init", "--name", "filler", "--", sys.executable, "-c",
                              FILL, flag], cwd=work,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not blocked_in_write(p.pid):
            if p.poll() is not None:
                break
            time.sleep(0.01)
        if not check(p.poll() is None and blocked_in_write(p.pid),
                     "%s: renacer never blocked writing its stderr" % sig.name):
            p.kill()
            p.communicate()
            return
        p.send_signal(sig)
        err = p.communicate(timeout=120)[1]
        check(p.returncode == expect,
              "%s: init exited %d, expected %d (%r)" % (sig.name, p.returncode, expect,
                                                       err[-400:]))
        left = listing(work)
        check(left == [], "%s: init left %s behind" % (sig.name, left))


def main():
    R = os.path.abspath(sys.argv[1])
    interrupted_init(R, signal.SIGTERM, 143)
    interrupted_init(R, signal.SIGINT, 130)
    with tempfile.TemporaryDirectory() as work:
        r = subprocess.run([R, "init", "--", "/bin/true"], cwd=work, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=120)
        check(r.returncode == 0 and listing(work) == ["golden_traces", "golden_traces/true.json",
                                                      "renacer.toml"],
              "complete init: exit %d, wrote %s" % (r.returncode, listing(work)))
        os.unlink(os.path.join(work, "renacer.toml"))
        before = open(os.path.join(work, "golden_traces/true.json"), "rb").read()
        r = subprocess.run([R, "init", "--", "/bin/true"], cwd=work, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=120)
        check(r.returncode == 2 and b"never overwrites a golden trace" in r.stderr and
              listing(work) == ["golden_traces", "golden_traces/true.json"] and
              open(os.path.join(work, "golden_traces/true.json"), "rb").read() == before,
              "init over a golden trace: exit %d, %s" % (r.returncode, listing(work)))
    with tempfile.TemporaryDirectory() as work:
        # an argument a TOML string cannot hold (not UTF-8): a usage error before any run
        r = subprocess.run([R, "init", "--", "/bin/echo", b"a\xffb"], cwd=work,
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        check(r.returncode == 2 and b"argument 2 is not valid UTF-8" in r.stderr and
              listing(work) == [],
              "init with a non-UTF-8 argument: exit %d, wrote %s" % (r.returncode,
                                                                     listing(work)))
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
