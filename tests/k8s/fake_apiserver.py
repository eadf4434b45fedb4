#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A fake Kubernetes API server for the controller tests (standard library only).

Serves the real v1 shapes for pods (with the spec.nodeName field selector),
services and discovery.k8s.io/v1 EndpointSlices: paginated lists (limit and
continue), chunked newline-delimited watches with BOOKMARK and ERROR events,
and 410 Gone both as an HTTP status and as an ERROR event.

The test drives it through POST /_control with one JSON command per request:

  {"cmd":"add"|"modify"|"delete", "kind":"pods", "object":{...}}  -> {"rv":"N"}
  {"cmd":"bookmark", "kind":K}     BOOKMARK at a new RV to K's watches -> {"rv"}
  {"cmd":"break", "kind":K}        cut K's watch connections mid-stream
  {"cmd":"close", "kind":K}        end K's watches cleanly (as timeoutSeconds)
  {"cmd":"stall", "kind":K}        K's open watches send nothing from now on
  {"cmd":"gone_event", "kind":K}   ERROR event with a 410 Status, then close
  {"cmd":"expire"}                 every RV and continue token so far is too old
  {"cmd":"gone_mode", "mode":"status"|"event"}  how a too-old watch RV is refused
  {"cmd":"fail", "kind":K, "verb":"list"|"watch", "code":500, "count":N}
  {"cmd":"clear_requests"}

GET /_control/requests lists every API request seen (kind, verb, query,
authorization); GET /_control/watchers counts open, non-stalled watches.
Usage: fake_apiserver.py [--port N]  (0 picks one; the port is printed).
"""
import argparse
import base64
import copy
import json
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

KINDS = {
    "/api/v1/pods": ("pods", "Pod", "v1"),
    "/api/v1/services": ("services", "Service", "v1"),
    "/apis/discovery.k8s.io/v1/endpointslices": ("endpointslices", "EndpointSlice",
                                                  "discovery.k8s.io/v1"),
}
API = {name: (kind, api) for name, kind, api in KINDS.values()}


class Watcher:
    def __init__(self, kind, node, rv):
        self.kind, self.node, self.cursor = kind, node, rv
        self.extra = []  # lines queued by control commands
        self.brk = self.close = self.stall = False


class State:
    def __init__(self):
        self.cv = threading.Condition()
        self.rv = 100
        self.objects = {k: {} for k in API}
        self.log = []  # (rv, kind, type, object)
        self.oldest = 0  # watch RVs below this are gone
        self.gone_mode = "status"
        self.requests = []
        self.watchers = []
        self.snapshots = {}  # id -> (rv, items)
        self.snap_seq = 0
        self.fail = []


S = State()


def key(obj):
    m = obj.get("metadata", {})
    return "%s/%s" % (m.get("namespace", ""), m.get("name", ""))


def visible(kind, node, obj):
    return kind != "pods" or not node or obj.get("spec", {}).get("nodeName") == node


def status(code, reason, message):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}


def line(obj):
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        if VERBOSE:
            sys.stderr.write("fake-apiserver: " + fmt % args + "\n")

    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def client_gone(self):
        r, _, _ = select.select([self.connection], [], [], 0)
        if not r:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    # ---- API ----------------------------------------------------------------
    def do_GET(self):
        u = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(u.query, keep_blank_values=True).items()}
        if u.path == "/_control/requests":
            with S.cv:
                return self.reply(200, S.requests)
        if u.path == "/_control/watchers":
            with S.cv:
                n = {k: sum(1 for w in S.watchers if w.kind == k and not w.stall) for k in API}
            return self.reply(200, n)
        if u.path not in KINDS:
            return self.reply(404, status(404, "NotFound", "no such path"))
        kind = KINDS[u.path][0]
        verb = "watch" if q.get("watch") in ("1", "true") else "list"
        node = ""
        fs = q.get("fieldSelector", "")
        if fs.startswith("spec.nodeName="):
            node = fs[len("spec.nodeName="):]
        with S.cv:
            S.requests.append({"kind": kind, "verb": verb, "query": q, "t": time.time(),
                               "authorization": self.headers.get("Authorization", "")})
            for f in S.fail:
                if f["kind"] == kind and f["verb"] == verb and f["count"] > 0:
                    f["count"] -= 1
                    return self.reply(f["code"], status(f["code"], "InternalError", "injected"))
        if verb == "list":
            return self.list(kind, node, q)
        return self.watch(kind, node, q)

    def list(self, kind, node, q):
        limit = int(q.get("limit") or 0)
        cont = q.get("continue", "")
        with S.cv:
            if cont:
                try:
                    sid, off = base64.b64decode(cont).decode().split(":")
                    rv, items = S.snapshots[int(sid)]
                    off = int(off)
                except (ValueError, KeyError):
                    return self.reply(410, status(410, "Expired", "continue token expired"))
            else:
                rv, off = S.rv, 0
                items = [copy.deepcopy(o) for k, o in sorted(S.objects[kind].items())
                         if visible(kind, node, o)]
                S.snap_seq += 1
                sid = S.snap_seq
                S.snapshots[sid] = (rv, items)
        page = items[off:off + limit] if limit else items[off:]
        meta = {"resourceVersion": str(rv)}
        if off + len(page) < len(items):
            meta["continue"] = base64.b64encode(("%s:%d" % (sid, off + len(page))).encode()).decode()
            meta["remainingItemCount"] = len(items) - off - len(page)
        k, api = API[kind]
        self.reply(200, {"kind": k + "List", "apiVersion": api, "metadata": meta, "items": page})

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def watch(self, kind, node, q):
        rv = int(q.get("resourceVersion") or 0)
        timeout = int(q.get("timeoutSeconds") or 300)
        with S.cv:
            too_old = rv and rv < S.oldest
            mode = S.gone_mode
        gone = status(410, "Expired", "too old resource version: %d (%d)" % (rv, S.oldest))
        if too_old and mode == "status":
            return self.reply(410, gone)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if too_old:
            self.chunk(line({"type": "ERROR", "object": gone}))
            self.chunk(b"")
            return
        w = Watcher(kind, node, rv)
        deadline = time.time() + timeout
        with S.cv:
            S.watchers.append(w)
        try:
            self.stream(w, deadline)
        except OSError:
            self.close_connection = True
        finally:
            with S.cv:
                S.watchers.remove(w)

    def stream(self, w, deadline):
        while True:
            with S.cv:
                out = []
                if not w.stall:
                    for rv, kind, typ, obj in S.log:
                        if kind == w.kind and rv > w.cursor and visible(kind, w.node, obj):
                            out.append(line({"type": typ, "object": obj}))
                    if S.log and S.log[-1][0] > w.cursor:
                        w.cursor = S.log[-1][0]
                    out += w.extra
                    w.extra = []
                brk, close, stall = w.brk, w.close, w.stall
                if not out and not brk and not close:
                    S.cv.wait(0.05)
            for data in out:
                self.chunk(data)
            if brk:
                # Cut mid-stream: no terminating chunk, like a dropped connection.
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if close or (not stall and time.time() >= deadline):
                self.chunk(b"")
                return
            if self.client_gone():
                self.close_connection = True
                return

    # ---- control --------------------------------------------------------------
    def do_POST(self):
        if self.path != "/_control":
            return self.reply(404, status(404, "NotFound", "no such path"))
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        try:
            self.reply(200, control(body))
        except (KeyError, ValueError) as e:
            self.reply(400, {"error": repr(e)})


def watchers_of(kind):
    return [w for w in S.watchers if kind in (None, w.kind)]


def control(c):
    cmd, kind = c["cmd"], c.get("kind")
    with S.cv:
        try:
            if cmd in ("add", "modify", "delete"):
                obj = copy.deepcopy(c["object"])
                k = key(obj)
                if cmd == "delete":
                    obj = S.objects[kind].pop(k)
                S.rv += 1
                obj.setdefault("metadata", {})["resourceVersion"] = str(S.rv)
                if cmd != "delete":
                    S.objects[kind][k] = obj
                typ = {"add": "ADDED", "modify": "MODIFIED", "delete": "DELETED"}[cmd]
                S.log.append((S.rv, kind, typ, copy.deepcopy(obj)))
                return {"rv": str(S.rv)}
            if cmd == "bookmark":
                S.rv += 1
                k, api = API[kind]
                ev = {"type": "BOOKMARK", "object": {"kind": k, "apiVersion": api,
                                                     "metadata": {"resourceVersion": str(S.rv)}}}
                for w in watchers_of(kind):
                    w.extra.append(line(ev))
                return {"rv": str(S.rv)}
            if cmd in ("break", "close", "stall"):
                ws = watchers_of(kind)
                for w in ws:
                    setattr(w, {"break": "brk"}.get(cmd, cmd), True)
                return {"watchers": len(ws)}
            if cmd == "gone_event":
                ev = {"type": "ERROR", "object": status(410, "Expired", "too old resource version")}
                ws = watchers_of(kind)
                for w in ws:
                    w.extra.append(line(ev))
                    w.close = True
                return {"watchers": len(ws)}
            if cmd == "expire":
                S.rv += 1
                S.oldest = S.rv
                S.snapshots.clear()
                return {"rv": str(S.rv)}
            if cmd == "gone_mode":
                S.gone_mode = c["mode"]
                return {}
            if cmd == "fail":
                S.fail.append({"kind": kind, "verb": c["verb"], "code": int(c["code"]),
                               "count": int(c.get("count", 1))})
                return {}
            if cmd == "clear_requests":
                S.requests = []
                return {}
            raise ValueError("unknown command " + cmd)
        finally:
            S.cv.notify_all()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global VERBOSE
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    VERBOSE = a.v
    srv = Server(("127.0.0.1", a.port), Handler)
    print(srv.server_address[1], flush=True)
    srv.serve_forever(poll_interval=0.05)


VERBOSE = False
if __name__ == "__main__":
    main()
