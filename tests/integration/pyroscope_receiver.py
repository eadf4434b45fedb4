#!/usr/bin/env python3
"""A small Pyroscope /ingest receiver for the profiling tests.

Each accepted push is saved as NNNN.pprof (the multipart "profile" part)
with NNNN.json beside it (the query parameters).  --fail-first N answers 503
to the first N requests, so the test can see the agent retry.

usage: pyroscope_receiver.py PORT DIR [--fail-first N]
"""
import http.server
import json
import os
import sys
import threading
import urllib.parse
from email.parser import BytesParser
from email.policy import HTTP

port, out_dir = int(sys.argv[1]), sys.argv[2]
fail_first = int(sys.argv[sys.argv.index("--fail-first") + 1]) if "--fail-first" in sys.argv else 0
lock = threading.Lock()
state = {"requests": 0, "saved": 0}


def profile_part(content_type, body):
    """The bytes of the multipart field named "profile", or None."""
    msg = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    if not msg.is_multipart():
        return None
    for part in msg.iter_parts():
        if part.get_param("name", header="content-disposition") == "profile":
            return part.get_payload(decode=True)
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code, text):
        data = text.encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        with lock:
            state["requests"] += 1
            n = state["requests"]
        if n <= fail_first:
            self.reply(503, "try again\n")
            return
        url = urllib.parse.urlparse(self.path)
        if url.path != "/ingest":
            self.reply(404, "not found\n")
            return
        query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
        profile = profile_part(self.headers.get("Content-Type", ""), body)
        if query.get("format") != "pprof" or not profile or "name" not in query:
            self.reply(400, "want format=pprof, a name and a multipart profile field\n")
            return
        with lock:
            state["saved"] += 1
            i = state["saved"]
        base = os.path.join(out_dir, "%04d" % i)
        with open(base + ".pprof", "wb") as f:
            f.write(profile)
        with open(base + ".json", "w") as f:
            json.dump({"query": query, "content_type": self.headers.get("Content-Type", ""),
                       "request": n}, f)
        self.reply(200, "ok\n")


os.makedirs(out_dir, exist_ok=True)
http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
