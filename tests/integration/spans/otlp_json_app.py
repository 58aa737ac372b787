#!/usr/bin/env python3
# otlp_json_app.py - a program that reports its own request spans as OTLP/JSON over HTTP
# with nothing but the standard library (urllib), to wherever OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
# points (renacer's "app" collector sets it). Each of N requests works WORK_MS (sleep),
# writes its response to /dev/null and is exported at once, synchronously, as a "request"
# span with the process id (resource process.pid) and thread id (thread.id) of its thread;
# the span's end is FACTOR times the time it really took (1 honest, 0.5 under-reports).
#
#     otlp_json_app.py N WORK_MS FACTOR
import json
import os
import sys
import threading
import time
import urllib.request

n = int(sys.argv[1]) if len(sys.argv) > 1 else 3
work_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 50
factor = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
endpoint = os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
out = os.open("/dev/null", os.O_WRONLY)


def export(name, t0, t1, i):
    span = {
        "traceId": "%032x" % (i + 1),
        "spanId": "%016x" % (i + 1),
        "name": name,
        "kind": 2,
        "startTimeUnixNano": str(t0),
        "endTimeUnixNano": str(t1),
        "attributes": [{"key": "thread.id",
                        "value": {"intValue": str(threading.get_native_id())}}],
    }
    body = {"resourceSpans": [{
        "resource": {"attributes": [
            {"key": "service.name", "value": {"stringValue": "otlp_json_app"}},
            {"key": "process.pid", "value": {"intValue": str(os.getpid())}}]},
        "scopeSpans": [{"scope": {"name": "otlp_json_app"}, "spans": [span]}]}]}
    req = urllib.request.Request(endpoint, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        r.read()


for i in range(n):
    t0 = time.time_ns()
    time.sleep(work_ms / 1000.0)
    os.write(out, b"200 OK\n")
    t1 = time.time_ns()
    export("request", t0, t0 + int((t1 - t0) * factor), i)
