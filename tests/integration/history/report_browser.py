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
"""
import base64, json, os, subprocess, sys, tempfile, time

browser, page, outdir, name = sys.argv[1:5]
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
    check("processes: 3 count in every run shown" in flat, "flat series not folded: %r" % flat)
    before = b.eval("document.getElementById('view-info').textContent")
    b.eval("document.getElementById('z-in').click()")
    after = b.eval("document.getElementById('view-info').textContent")
    check(before.split()[0] == "40" and int(after.split()[0]) < 40, "zoom: %r -> %r" % (before, after))
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
print("%s: ok: hover, injection, click, compare (openat first), flat, zoom; no console message" % name)
