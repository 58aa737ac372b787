#!/usr/bin/env python3
"""A target that sends hostile spans to the app collector's OTLP/HTTP receiver (OTLP/JSON).

    otlp_post.py times      spans at and past 2^63 ns, at 0, ending before they start, and one
                            honest span ("ok")
    otlp_post.py orphans N  N spans whose parents were never sent
    otlp_post.py parents N  N spans under one root that was sent first

The endpoint is OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, set by renacer.
"""
import json
import os
import sys
import time
import urllib.request

TRACE = "0102030405060708090a0b0c0d0e0f10"


def span(name, sid, start, end, parent=None):
    s = {"traceId": TRACE, "spanId": "%016x" % sid, "name": name,
         "startTimeUnixNano": str(start), "endTimeUnixNano": str(end)}
    if parent is not None:
        s["parentSpanId"] = "%016x" % parent
    return s


def post(spans):
    body = {"resourceSpans": [{
        "resource": {"attributes": [
            {"key": "process.pid", "value": {"intValue": str(os.getpid())}}]},
        "scopeSpans": [{"spans": spans}]}]}
    send(json.dumps(body).encode())


def send(data):
    req = urllib.request.Request(os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], data=data,
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req).read()


def main():
    mode = sys.argv[1]
    now = time.time_ns()
    if mode == "times":
        post([span("huge_start", 1, 1 << 63, (1 << 64) - 1),
              span("max_start", 2, (1 << 64) - 1, (1 << 64) - 1),
              span("epoch", 3, 0, now),
              span("long_ago", 4, now - 86400 * 10**9, now - 86400 * 10**9 + 1000),
              span("backwards", 5, now, now - 1000),
              span("ok", 6, now - 1000, now)])
    elif mode in ("orphans", "parents"):
        n = int(sys.argv[2])
        if mode == "parents":
            post([span("root", 1, now - 2000, now)])
        # the same leaf for both modes but its parent id: formatted as text, so the sender's
        # own time stays small beside renacer's
        leaf = ('{"traceId":"%s","spanId":"%%016x","parentSpanId":"%%016x","name":"leaf",'
                '"startTimeUnixNano":"%d","endTimeUnixNano":"%d"}' % (TRACE, now - 1000, now))
        for first in range(0, n, 20000):
            ids = range(first, min(n, first + 20000))
            spans = ",".join(leaf % (2 + i, 1 if mode == "parents" else (1 << 40) + i)
                             for i in ids)
            body = ('{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":['
                    + spans + ']}]}]}')
            send(body.encode())
    else:
        return 2
    return 0


sys.exit(main())
