#!/usr/bin/env python3
"""report_browser.py BROWSER PAGE OUTDIR NAME - drive the report page in headless Chromium.

Chromium is started with a fresh profile and driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: no port, no extra module). On the page of page_store.py it checks,
with real mouse events:
  - the page loads with no console message, no exception and no failed load
  - hovering a point of app/wall_time shows that run's short commit and subject
  - hovering run 7, whose subject is an HTML injection attempt, shows it as text and runs none
  - clicking a point opens that run: its verdict table and critical path
  - clicking a run before the openat doubling, then one after, compares them: the first
    syscall row is openat, 100 -> 200; the metrics table lists wall_time's change
  - the flat series (processes) is folded into one line; zoom in shows fewer runs
Screenshots go to OUTDIR/NAME-*.png. Exit 1 with the reasons on failure.

report_browser.py BROWSER PAGE OUTDIR NAME regression COMMIT KEY ASSERTION - the page of a
history with a regression planted at COMMIT (report_browser.sh builds it from real checks):
  - the first FAIL mark of chart KEY stands at COMMIT's point (same x), and hovering it shows
    COMMIT, FAIL and ASSERTION
  - the chart's change point is at COMMIT, reads as an environment change, and offers
    `renacer bisect GOOD COMMIT --target T`
  - the what-changed list names ASSERTION and COMMIT (PASS -> FAIL) and the change point
  - the verdict table lists the FAIL row first, then the WARN row, its short message opening
    to the whole one; the WARN of every run is an amber mark on critical_path
"""
import base64, json, os, subprocess, sys, tempfile, time

browser, page, outdir, name = sys.argv[1:5]
mode = sys.argv[5] if len(sys.argv) > 5 else "synthetic"
problems = []


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="renacer-chromium.")
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()
        # Our ends stay out of the browser (close_fds is off so that 3 and 4 survive).
        os.set_inheritable(w1, False)
        os.set_inheritable(r2, False)

        def fds():
            # Move both ends above 4 first: one of them may already be 3 or 4.
            a, b = os.dup(r1), os.dup(w2)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)
        self.proc = subprocess.Popen(
            [browser, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--no-first-run", "--disable-extensions", "--remote-debugging-pipe",
             "--user-data-dir=" + self.profile, "about:blank"],
            close_fds=False, preexec_fn=fds, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=dict(os.environ, HOME=self.profile))
        os.close(r1)
        os.close(w2)
        self.w, self.r = os.fdopen(w1, "wb", buffering=0), os.fdopen(r2, "rb", buffering=0)
        self.buf, self.next, self.events, self.session = b"", 0, [], None

    def send(self, method, params=None, session=True, timeout=30):
        self.next += 1
        msg = {"id": self.next, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.w.write(json.dumps(msg).encode() + b"\0")
        end = time.time() + timeout
        while time.time() < end:
            m = self.read()
            if m.get("id") == self.next:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)
        raise RuntimeError("%s: no answer" % method)

    def read(self):
        while b"\0" not in self.buf:
            chunk = self.r.read(1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate %s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def mouse(self, kind, x, y):
        p = {"type": kind, "x": x, "y": y, "button": "left" if kind != "mouseMoved" else "none"}
        if kind != "mouseMoved":
            p["clickCount"] = 1
        self.send("Input.dispatchMouseEvent", p)

    def shot(self, label):
        png = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        path = os.path.join(outdir, "%s-%s.png" % (name, label))
        with open(path, "wb") as f:
            f.write(base64.b64decode(png["data"]))
        return path

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        subprocess.run(["rm", "-rf", self.profile])


def check(cond, what):
    if not cond:
        problems.append(what)
    return cond


def synthetic(b, point):
    # Hover: the tooltip names the commit and its subject.
    p = point("app/wall_time", 20)
    if check(p is not None, "no point of run 20 on app/wall_time"):
        b.mouse("mouseMoved", p["x"], p["y"])
        time.sleep(0.2)
        tip = b.eval("document.getElementById('tooltip').hidden ? '' : document.getElementById('tooltip').textContent")
        check("20%08x" % 0 != "" and tip.startswith("20") and "speed up the parser (20)" in tip,
              "hover tooltip %r lacks run 20's commit and subject" % tip)
        b.shot("hover")
    # Hover over the injection attempt: shown as text, never run.
    p = point("app/wall_time", 7)
    if check(p is not None, "no point of run 7"):
        b.mouse("mouseMoved", p["x"], p["y"])
        time.sleep(0.2)
        tip = b.eval("document.getElementById('tooltip').textContent")
        check('<img src=x onerror="window.__pwned=1">' in tip, "run 7's subject not shown as text: %r" % tip)
        check(b.eval("window.__pwned === undefined"), "the injected subject ran")
        check(b.eval("document.querySelectorAll('img').length") == 0, "an injected element exists")
    # Click: the run opens.
    p = point("app/wall_time", 28)
    if check(p is not None, "no point of run 28"):
        b.mouse("mousePressed", p["x"], p["y"])
        b.mouse("mouseReleased", p["x"], p["y"])
        time.sleep(0.2)
        check(b.eval("document.getElementById('run-detail').getAttribute('data-run')") == "28",
              "click did not open run 28")
        rows = b.eval("Array.from(document.querySelectorAll('#run-verdicts tbody tr')).map(r => r.textContent)")
        check(rows and len(rows) == 2 and "fast" in rows[0], "run 28's verdicts: %r" % rows)
        check(b.eval("document.querySelectorAll('#run-detail svg rect.bar').length") == 2,
              "run 28's critical path not drawn")
        b.shot("run")
    # Compare: a run before the openat doubling (28), then one after (33).
    p = point("app/wall_time", 33)
    if check(p is not None, "no point of run 33"):
        b.mouse("mousePressed", p["x"], p["y"])
        b.mouse("mouseReleased", p["x"], p["y"])
        time.sleep(0.2)
        check(b.eval("document.getElementById('compare').getAttribute('data-compared')") == "28,33",
              "compare is not 28 -> 33: %r" % b.eval("document.getElementById('compare').getAttribute('data-compared')"))
        srows = b.eval("Array.from(document.querySelectorAll('#cmp-syscalls tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent))")
        check(srows and srows[0][:4] == ["app", "openat", "100", "200"],
              "first syscall that moved: %r" % (srows[:2] if srows else srows))
        mrows = b.eval("Array.from(document.querySelectorAll('#cmp-metrics tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent))")
        check(mrows and any(r[1] == "wall_time" for r in mrows), "metrics compare: %r" % mrows)
        b.eval("document.getElementById('compare').scrollIntoView()")
        b.shot("compare")
    flat = b.eval("document.getElementById('flat').textContent")
    check("processes: 3 in every run shown" in flat, "flat series not folded: %r" % flat)
    before = b.eval("document.getElementById('view-info').textContent")
    b.eval("document.getElementById('z-in').click()")
    after = b.eval("document.getElementById('view-info').textContent")
    check(before.split()[0] == "40" and int(after.split()[0]) < 40, "zoom: %r -> %r" % (before, after))

def regression(b, point, commit, key, assertion):
    """The planted regression at `commit`: its mark, change point and what-changed lines."""
    data = json.loads(b.eval("document.getElementById('renacer-data').textContent"))
    run = [r for r in data["runs"] if r["commit"] == commit]
    if not check(len(run) == 1, "no run of commit %s" % commit):
        return
    run = run[0]["id"]
    marks = b.eval("renacerPage.marks(%s)" % json.dumps(key)) or []
    fails = [m for m in marks if m["verdict"] == "FAIL"]
    check(fails and fails[0]["commit"] == commit,
          "first FAIL mark of %s is at %r, not %s" % (key, fails[0]["commit"] if fails else None, commit))
    b.eval("(function(){var m=renacerPage.marks(%s);if(m.length)window.scrollBy(0,m[0].y-300);})()" % json.dumps(key))
    marks = b.eval("renacerPage.marks(%s)" % json.dumps(key)) or []
    fails = [m for m in marks if m["verdict"] == "FAIL"]
    p = b.eval("renacerPage.pointPosition(%s,%d)" % (json.dumps(key), run))
    if check(fails and p is not None, "no mark or point of run %d on %s" % (run, key)):
        check(abs(fails[0]["x"] - p["x"]) <= 1.5,
              "the FAIL mark (x %.1f) is not at commit %s's point (x %.1f)" % (fails[0]["x"], commit, p["x"]))
        b.mouse("mouseMoved", fails[0]["x"], fails[0]["y"])
        time.sleep(0.2)
        tip = b.eval("document.getElementById('tooltip').hidden ? '' : document.getElementById('tooltip').textContent")
        check(commit[:8] in tip and "FAIL" in tip and assertion in tip,
              "hovering the mark shows %r (want %s, FAIL, %s)" % (tip, commit[:8], assertion))
        b.shot("regression-mark")
    chart = [c for c in data["charts"] if c["target"] + "/" + c["metric"] == key][0]
    cps = [c for c in chart["changes"] if c["run"] == run]
    if check(cps, "no change point of %s at run %d: %r" % (key, run, chart["changes"])):
        check(cps[0].get("bisect", "").startswith("renacer bisect ") and
              cps[0]["bisect"].endswith(" %s --target %s" % (commit, chart["target"])),
              "change point's bisect command: %r" % cps[0].get("bisect"))
        check("image" in (cps[0].get("env_change") or ""), "change point not read as an image update: %r" % cps[0])
    cap = b.eval("Array.from(document.querySelectorAll('figure.chart figcaption')).map(f => f.parentNode.textContent)"
                 ".filter(t => t.indexOf(%s) >= 0).join('|')" % json.dumps(chart["target"] + " \u00b7 " + chart["metric"] + " ("))
    check("change point at an environment change" in cap and "renacer bisect" in cap,
          "chart caption lacks the environment change or the bisect command: %r" % cap)
    items = b.eval("Array.from(document.querySelectorAll('#changed li')).map(l => [l.getAttribute('data-run'), l.textContent])")
    check(items and any(assertion in t and commit[:8] in t and "PASS -> FAIL" in t for _, t in items),
          "what changed does not name %s at %s: %r" % (assertion, commit, items))
    check(items and any(chart["metric"] + ": change point at " + commit[:8] in t and "renacer bisect" in t for _, t in items),
          "what changed lacks the change point of %s: %r" % (key, items))
    runs_listed = [int(r) for r, _ in items if r]
    check(runs_listed == sorted(runs_listed, reverse=True), "what changed is not newest first: %r" % runs_listed)
    rows = b.eval("Array.from(document.querySelectorAll('#verdicts tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent))")
    check(rows and rows[0][1] == assertion and rows[0][2] == "FAIL", "verdict table's first row: %r" % (rows[:1],))
    check(len(rows) > 2 and rows[1][2] == "WARN" and rows[2][2] != "WARN" and
          all(r[2] not in ("FAIL", "WARN") for r in rows[2:]), "verdict table's order: %r" % [r[2] for r in rows])
    warns = b.eval("renacerPage.marks(%s)" % json.dumps(chart["target"] + "/critical_path")) or []
    check(len(warns) == len(data["runs"]) and all(m["verdict"] == "WARN" for m in warns),
          "critical_path's WARN marks: %r" % [(m["commit"], m["verdict"]) for m in warns])
    summary = b.eval("(function(){var d=document.querySelector('#verdicts tbody tr details');if(!d)return null;"
                     "var s=d.querySelector('summary').textContent;d.open=true;return [s,d.textContent];})()")
    if check(summary is not None, "the FAIL row's message has no details"):
        check(len(summary[0]) <= 100 and len(summary[1]) > len(summary[0]), "short message %r of %r" % tuple(summary))
    b.eval("document.getElementById('changed').scrollIntoView()")
    b.shot("regression-changed")


b = Browser()
try:
    target = b.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
    b.session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                       session=False)["sessionId"]
    for domain in ("Runtime", "Log", "Page"):
        b.send(domain + ".enable")
    b.send("Emulation.setDeviceMetricsOverride",
           {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)})
    end = time.time() + 30
    while time.time() < end and b.eval("document.body && document.body.getAttribute('data-ready')") != "1":
        if b.eval("document.documentElement.getAttribute('data-script-error')"):
            break
        time.sleep(0.1)
    err = b.eval("document.documentElement.getAttribute('data-script-error')")
    check(not err, "script error: %s" % err)
    check(b.eval("document.body.getAttribute('data-ready')") == "1", "the page script did not finish")
    renderer = b.eval("document.body.getAttribute('data-renderer')")
    print("%s: renderer %s, %s charts, %s syscall charts, %s folded" % (
        name, renderer, b.eval("document.body.getAttribute('data-charts-drawn')"),
        b.eval("document.body.getAttribute('data-syscall-charts')"),
        b.eval("document.body.getAttribute('data-charts-folded')")))
    b.shot("page")

    def point(key, run):
        return b.eval("(function(){var p=renacerPage.pointPosition(%s,%d);if(!p)return null;"
                      "window.scrollBy(0,p.y-400);return renacerPage.pointPosition(%s,%d);})()"
                      % (json.dumps(key), run, json.dumps(key), run))

    if mode == "regression":
        regression(b, point, *sys.argv[6:9])
    else:
        synthetic(b, point)
    # Console messages, exceptions, failed loads.
    for e in b.events:
        m = e.get("method")
        if m == "Runtime.consoleAPICalled":
            problems.append("console %s: %s" % (e["params"]["type"],
                            " ".join(str(a.get("value", a.get("description"))) for a in e["params"]["args"])))
        elif m == "Runtime.exceptionThrown":
            problems.append("exception: %s" % e["params"]["exceptionDetails"].get("text"))
        elif m == "Log.entryAdded":
            problems.append("log %s: %s" % (e["params"]["entry"]["level"], e["params"]["entry"]["text"]))
finally:
    b.close()
if problems:
    print("\n".join("%s: %s" % (name, p) for p in problems))
    sys.exit(1)
print("%s: ok: %s; no console message" % (name, "regression mark, change point, what changed, verdict order" if mode == "regression" else "hover, injection, click, compare (openat first), flat, zoom"))
