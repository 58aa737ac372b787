#!/usr/bin/env python3
"""changepoints.py RENACER [--seeds N] - change points end to end through a history store.

The issue's bar: 200 commits of a wall time around 100 ms with planted steps of +5% (commit 50),
+10% (commit 100) and -8% (commit 150), under 1.5% Gaussian jitter and a slow tail (3% of runs
5-20% slower), for N noise seeds (default 100). Each seed is one series (target "s<seed>") in a
SQLite store whose schema renacer creates; the rows are written with Python's sqlite3 in
renacer's layout, one run per commit. `renacer history changes --format json` then searches
every series, and this script prints, over all seeds:
  steps found        changes whose commit is within +/-2 of a planted step (and, apart, those
                     whose reported commit range holds it)
  false changes      changes near no step: total, and the most in one series
  effect sizes       the reported ratio of each step's medians against the planted one
  p-values           the largest p-value of a found step, the smallest of a false change
  time               wall clock of the `history changes` process (all series)
Exit 1 when the bar fails: every step within +/-2 commits and at most one false change per series.
With --postgres URL the store is moved into that (empty) PostgreSQL database with `history
export --format history` / `history import`, and searched there.
"""
import json, math, os, random, sqlite3, statistics, subprocess, sys, tempfile, time

renacer = sys.argv[1]
nseeds = int(sys.argv[sys.argv.index("--seeds") + 1]) if "--seeds" in sys.argv else 100
pg = sys.argv[sys.argv.index("--postgres") + 1] if "--postgres" in sys.argv else None
planted = {50: 1.05, 100: 1.10, 150: 0.92}


def series(seed):
    rnd = random.Random(seed)
    x = []
    for i in range(200):
        level = 100e6
        for at, f in planted.items():
            if i >= at:
                level *= f
        v = level * (1 + 0.015 * rnd.gauss(0, 1))
        if rnd.random() < 0.03:
            v += level * (0.05 + 0.15 * rnd.random())
        x.append(v)
    return x


with tempfile.TemporaryDirectory(prefix="renacer-cpbench.") as tmp:
    db = os.path.join(tmp, "history.db")
    src = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    first = os.path.join(src, "tests", "unit", "assertions", "golden", "json_v1.json")
    subprocess.run([renacer, "history", "--db", db, "import", first],
                   check=True, stdout=subprocess.DEVNULL)
    con = sqlite3.connect(db)
    con.execute("DELETE FROM results")
    con.execute("DELETE FROM runs")
    data = {s: series(s) for s in range(1, nseeds + 1)}
    with con:
        for i in range(200):
            cur = con.execute(
                "INSERT INTO runs (created_ns, commit_sha, branch, machine, machine_desc, "
                "source, config, renacer_version, exit_code, uid) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (1_700_000_000 * 10**9 + i * 60 * 10**9, "c%03d" % i, "main", "m1", "bench",
                 "check", "renacer.toml", "bench", 0, "bench-%03d" % i))
            run = cur.lastrowid
            con.executemany(
                "INSERT INTO results (run_id, target, metric, unit, nsamples, median, "
                "min_value, max_value, samples) VALUES (?,?,?,?,?,?,?,?,?)",
                [(run, "s%d" % s, "wall_time", "ns", 1, x[i], x[i], x[i], "[%.17g]" % x[i])
                 for s, x in data.items()])
    con.close()
    if pg:
        doc = os.path.join(tmp, "store.json")
        subprocess.run([renacer, "history", "--db", db, "export", "--format", "history", "-o",
                        doc], check=True)
        subprocess.run([renacer, "history", "--db", pg, "import", doc], check=True,
                       stdout=subprocess.DEVNULL)
        db = pg
    t0 = time.perf_counter()
    out = subprocess.run([renacer, "history", "--db", db, "changes", "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    elapsed = time.perf_counter() - t0
    changes = json.loads(out)

within2 = in_range = 0
missed = []
false_total = 0
false_max = 0
ratios = {at: [] for at in planted}
worst_p_found = 0.0
best_p_false = 1.0
by_seed = {}
for c in changes:
    by_seed.setdefault(int(c["target"][1:]), []).append(c)
for s in range(1, nseeds + 1):
    cs = by_seed.get(s, [])
    idx = lambda c: int(c["commit"][1:])
    lo = lambda c: int(c["first_commit"][1:])
    hi = lambda c: int(c["last_commit"][1:])
    used = set()
    for at, f in planted.items():
        near = [c for c in cs if abs(idx(c) - at) <= 2]
        covering = [c for c in cs if lo(c) <= at <= hi(c) or abs(idx(c) - at) <= 5]
        if near:
            within2 += 1
            c = near[0]
        elif covering:
            in_range += 1
            c = covering[0]
            missed.append((s, at, idx(c), lo(c), hi(c)))
        else:
            missed.append((s, at, None, None, None))
            continue
        used.add(id(c))
        ratios[at].append(c["ratio"] / f)
        worst_p_found = max(worst_p_found, c["p_value"])
    false = [c for c in cs if id(c) not in used]
    false_total += len(false)
    false_max = max(false_max, len(false))
    for c in false:
        best_p_false = min(best_p_false, c["p_value"])
        print("seed %d: false change at commit %d (%+.1f%%, p %.2g)" %
              (s, idx(c), c["rel_change"] * 100, c["p_value"]))
for m in missed:
    print("seed %d: step at %d reported at %s (range %s..%s)" % m)
nsteps = nseeds * len(planted)
print("series: %d x 200 commits; steps +5%%/+10%%/-8%% at 50/100/150" % nseeds)
print("steps within +/-2 commits: %d of %d; outside but in the reported range or within 5: %d"
      % (within2, nsteps, in_range))
print("false changes: %d in all, at most %d in one series" % (false_total, false_max))
for at, f in planted.items():
    r = ratios[at]
    if r:
        print("effect size at %d (planted ratio %.2f): reported/planted median %.4f, "
              "range %.4f..%.4f" % (at, f, statistics.median(r), min(r), max(r)))
print("largest p-value of a found step: %.3g; smallest of a false change: %s" %
      (worst_p_found, "%.3g" % best_p_false if false_total else "-"))
print("history changes over %d series (%s): %.2f s wall" %
      (nseeds, "PostgreSQL" if pg else "SQLite", elapsed))
ok = within2 == nsteps and false_max <= 1
print("bar (every step within +/-2, <= 1 false per series): %s" % ("met" if ok else "NOT met"))
sys.exit(0 if ok else 1)
