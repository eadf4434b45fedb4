#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A raw NATS client for the integration tests (Python 3 standard library only).

One connection, one request per write, each answer read before the next
request is sent, so the workload's own counts are exact:

  INFO (read)  CONNECT {"verbose":V,"pedantic":true,"headers":true,...}
  SUB <subject> 1 and, with --hpub-subject, SUB <hpub subject> 2
  --count x  PUB <subject> <n>\\r\\n<payload>\\r\\n
  --hpub-subject: one HPUB with a "traceparent" header (--traceparent)
  --bad-subject: one PUB to that (invalid: a wildcard) subject; in pedantic
             mode the server answers -ERR 'Invalid Publish Subject' then +OK
  PING, read until PONG (every delivery of our own publishes comes before it)
  UNSUB 1, UNSUB 2 (when subscribed), PING/PONG
  --unknown-op: a line the server does not know (it answers -ERR and closes)

With verbose true every PUB/HPUB/SUB/UNSUB gets a +OK (or -ERR); the client
waits for each.  With verbose false nothing is acknowledged: it only
synchronizes with PING/PONG.  --no-sub skips the subscriptions.

It prints one JSON line: local_port, oks, errs (the -ERR texts), msgs, hmsgs
(deliveries received), delivered_bytes (their sizes: headers + payload),
pubs, hpubs, subs, unsubs, wall_ns, closed_by_server.

Usage: nats_client.py PORT [--verbose] [--count N] [--subject S]
          [--hpub-subject S] [--traceparent TP] [--bad-subject S]
          [--payload P] [--no-sub] [--unknown-op WORD]
"""
import argparse
import json
import socket
import sys
import time


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.oks = 0
        self.errs = []
        self.msgs = 0
        self.hmsgs = 0
        self.delivered_bytes = 0
        self.pongs = 0
        self.infos = 0
        self.closed = False

    def send(self, b):
        self.s.sendall(b)

    def _fill(self):
        chunk = self.s.recv(65536)
        if not chunk:
            self.closed = True
            raise EOFError()
        self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line.decode("ascii", "replace")

    def _take(self, n):
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read_one(self):
        """Read one server message; returns its kind."""
        line = self._line()
        word = line.split(" ", 1)[0].upper()
        if word == "+OK":
            self.oks += 1
        elif word == "-ERR":
            self.errs.append(line[5:].strip())
        elif word == "MSG":
            self.msgs += 1
            self.delivered_bytes += len(self._take(int(line.split()[-1])))
        elif word == "HMSG":
            self.hmsgs += 1
            self.delivered_bytes += len(self._take(int(line.split()[-1])))
        elif word == "PING":
            # Answering would be one more request on the wire; the test's
            # exchanges are too short for the server's PING interval.
            self.send(b"PONG\r\n")
        elif word == "PONG":
            self.pongs += 1
        elif word == "INFO":
            self.infos += 1
        else:
            raise RuntimeError("unexpected line from server: %r" % line)
        return word

    def wait_acks(self, want_oks, want_errs=0):
        """Read until want_oks more +OK and want_errs more -ERR arrived."""
        o, e = self.oks + want_oks, len(self.errs) + want_errs
        while self.oks < o or len(self.errs) < e:
            self.read_one()

    def ping(self):
        self.send(b"PING\r\n")
        p = self.pongs + 1
        while self.pongs < p:
            self.read_one()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("port", type=int)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--subject", default="enav.orders")
    ap.add_argument("--hpub-subject", default="")
    ap.add_argument("--traceparent", default="")
    ap.add_argument("--bad-subject", default="")
    ap.add_argument("--payload", default="enav-secret-payload")
    ap.add_argument("--no-sub", action="store_true")
    ap.add_argument("--unknown-op", default="")
    a = ap.parse_args()

    t0 = time.monotonic_ns()
    c = Conn(a.port)
    acked = 1 if a.verbose else 0
    out = {"pubs": 0, "hpubs": 0, "subs": 0, "unsubs": 0}
    while c.infos == 0:
        c.read_one()
    connect = {"verbose": a.verbose, "pedantic": True, "tls_required": False,
               "lang": "python-raw", "version": "0.1", "protocol": 1,
               "headers": True, "no_responders": False, "echo": True}
    c.send(b"CONNECT " + json.dumps(connect, separators=(",", ":")).encode() + b"\r\n")
    c.wait_acks(acked)

    sids = []
    if not a.no_sub:
        sids.append((1, a.subject))
        if a.hpub_subject:
            sids.append((2, a.hpub_subject))
        for sid, subj in sids:
            c.send(b"SUB %s %d\r\n" % (subj.encode(), sid))
            out["subs"] += 1
            c.wait_acks(acked)

    payload = a.payload.encode()
    for i in range(a.count):
        p = payload + b"-%d" % i
        c.send(b"PUB %s %d\r\n%s\r\n" % (a.subject.encode(), len(p), p))
        out["pubs"] += 1
        c.wait_acks(acked)

    if a.hpub_subject:
        hdr = b"NATS/1.0\r\n"
        if a.traceparent:
            hdr += b"traceparent: " + a.traceparent.encode() + b"\r\n"
        hdr += b"\r\n"
        c.send(b"HPUB %s %d %d\r\n%s%s\r\n" %
               (a.hpub_subject.encode(), len(hdr), len(hdr) + len(payload), hdr, payload))
        out["hpubs"] += 1
        c.wait_acks(acked)

    if a.bad_subject:
        c.send(b"PUB %s %d\r\n%s\r\n" % (a.bad_subject.encode(), len(payload), payload))
        out["pubs"] += 1
        # pedantic: -ERR 'Invalid Publish Subject', then the +OK of verbose
        c.wait_acks(acked, 1)

    c.ping()  # our own deliveries are queued before the PONG
    for sid, _ in sids:
        c.send(b"UNSUB %d\r\n" % sid)
        out["unsubs"] += 1
        c.wait_acks(acked)
    if sids:
        c.ping()

    if a.unknown_op:
        c.send(a.unknown_op.encode() + b"\r\n")
        try:
            while True:
                c.read_one()
        except (EOFError, ConnectionResetError):
            pass
    out.update({
        "local_port": c.s.getsockname()[1],
        "oks": c.oks,
        "errs": c.errs,
        "msgs": c.msgs,
        "hmsgs": c.hmsgs,
        "delivered_bytes": c.delivered_bytes,
        "closed_by_server": c.closed,
    })
    c.s.close()
    out["wall_ns"] = time.monotonic_ns() - t0
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
