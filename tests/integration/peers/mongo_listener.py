#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A minimal MongoDB server stand-in for the integration tests (Debian has no
MongoDB server).

It speaks enough of the MongoDB wire protocol for pymongo (Debian's
python3-pymongo 3.11) and libmongoc to connect, insert, find and be told a
command does not exist:

  OP_QUERY (2004) on <db>.$cmd, answered with OP_REPLY (1): the legacy
      handshake (isMaster / ismaster / hello), and any command below
  OP_MSG (2013), answered with OP_MSG:
      hello / isMaster / ismaster  a standalone server, maxWireVersion 17
      ping, buildInfo, getLastError, endSessions, killCursors   {ok: 1}
      insert   {n: <documents received>, ok: 1}
      find / aggregate   {cursor: {id: 0, ns, firstBatch: []}, ok: 1}
      update / delete    {n: 0, ok: 1}
      anything else      {ok: 0, errmsg, code: 59, codeName: "CommandNotFound"}
  A request with the moreToCome flag (an unacknowledged write) gets no reply.

Nothing is stored.  Every answer is logged as one line on stdout, e.g.
"OP_MSG insert enav.items n=1 ok=1" or "OP_MSG enavNoSuchCommand ok=0 code=59".

Usage: mongo_listener.py PORT     (0 picks a free port; the first line printed
is "listening 127.0.0.1:PORT").  Python 3 standard library only, with its own
minimal BSON encoder and decoder.
"""
import argparse
import datetime
import itertools
import socket
import socketserver
import struct
import sys
import threading

OP_REPLY, OP_QUERY, OP_MSG, OP_COMPRESSED = 1, 2004, 2013, 2012
CHECKSUM_PRESENT, MORE_TO_COME = 1 << 0, 1 << 1
MAX_MESSAGE = 48000000
LOCK = threading.Lock()
REQUEST_IDS = itertools.count(1000)
CONNECTION_IDS = itertools.count(1)


def log(msg):
    with LOCK:
        sys.stdout.write(msg + "\n")
        sys.stdout.flush()


# ---- BSON ------------------------------------------------------------------


class Int64(int):
    """An integer encoded as BSON int64 whatever its value."""


class Binary(bytes):
    def __new__(cls, data, subtype=0):
        b = bytes.__new__(cls, data)
        b.subtype = subtype
        return b


class Opaque:
    """A value of a type this decoder does not interpret (kept as raw bytes)."""

    def __init__(self, btype, raw):
        self.btype, self.raw = btype, raw

    def __repr__(self):
        return "Opaque(0x%02x)" % self.btype


class BSONError(Exception):
    pass


def _cstring(s):
    b = s.encode()
    if b"\0" in b:
        raise BSONError("NUL in key")
    return b + b"\0"


def _element(key, v):
    k = _cstring(key)
    if isinstance(v, bool):
        return b"\x08" + k + (b"\x01" if v else b"\x00")
    if isinstance(v, Int64):
        return b"\x12" + k + struct.pack("<q", v)
    if isinstance(v, int):
        if -(2**31) <= v < 2**31:
            return b"\x10" + k + struct.pack("<i", v)
        return b"\x12" + k + struct.pack("<q", v)
    if isinstance(v, float):
        return b"\x01" + k + struct.pack("<d", v)
    if isinstance(v, str):
        b = v.encode() + b"\0"
        return b"\x02" + k + struct.pack("<i", len(b)) + b
    if isinstance(v, dict):
        return b"\x03" + k + encode(v)
    if isinstance(v, (list, tuple)):
        return b"\x04" + k + encode({str(i): x for i, x in enumerate(v)})
    if isinstance(v, Binary):
        return b"\x05" + k + struct.pack("<iB", len(v), v.subtype) + bytes(v)
    if isinstance(v, bytes):
        return b"\x05" + k + struct.pack("<iB", len(v), 0) + v
    if v is None:
        return b"\x0a" + k
    if isinstance(v, datetime.datetime):
        ms = int(v.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
        return b"\x09" + k + struct.pack("<q", ms)
    if isinstance(v, Opaque):
        return bytes([v.btype]) + k + v.raw
    raise BSONError("cannot encode %r" % type(v))


def encode(doc):
    body = b"".join(_element(k, v) for k, v in doc.items())
    return struct.pack("<i", len(body) + 5) + body + b"\0"


_FIXED = {0x07: 12, 0x11: 8, 0x13: 16, 0x06: 0, 0xFF: 0, 0x7F: 0}


def decode(b, pos=0):
    """Decode the document at b[pos:]; returns (dict, end position)."""
    if pos + 5 > len(b):
        raise BSONError("short document")
    (n,) = struct.unpack_from("<i", b, pos)
    end = pos + n
    if n < 5 or end > len(b) or b[end - 1] != 0:
        raise BSONError("bad document length")
    p, doc = pos + 4, {}
    while p < end - 1:
        t = b[p]
        z = b.index(b"\0", p + 1, end)
        key = b[p + 1:z].decode("utf-8", "replace")
        p = z + 1
        if t == 0x01:
            v = struct.unpack_from("<d", b, p)[0]
            p += 8
        elif t in (0x02, 0x0D, 0x0E):
            (sl,) = struct.unpack_from("<i", b, p)
            if sl < 1 or p + 4 + sl > end:
                raise BSONError("bad string")
            v = b[p + 4:p + 3 + sl].decode("utf-8", "replace")
            p += 4 + sl
        elif t in (0x03, 0x04):
            v, p = decode(b, p)
            if t == 0x04:
                v = list(v.values())
        elif t == 0x05:
            (bl,) = struct.unpack_from("<i", b, p)
            if bl < 0 or p + 5 + bl > end:
                raise BSONError("bad binary")
            v = Binary(b[p + 5:p + 5 + bl], b[p + 4])
            p += 5 + bl
        elif t == 0x08:
            v = b[p] != 0
            p += 1
        elif t == 0x09:
            v = Opaque(t, b[p:p + 8])
            p += 8
        elif t == 0x0A:
            v = None
        elif t == 0x10:
            v = struct.unpack_from("<i", b, p)[0]
            p += 4
        elif t == 0x12:
            v = Int64(struct.unpack_from("<q", b, p)[0])
            p += 8
        elif t in _FIXED:
            v = Opaque(t, b[p:p + _FIXED[t]])
            p += _FIXED[t]
        elif t == 0x0B:
            z1 = b.index(b"\0", p, end)
            z2 = b.index(b"\0", z1 + 1, end)
            v = Opaque(t, b[p:z2 + 1])
            p = z2 + 1
        elif t in (0x0C, 0x0F):
            (sl,) = struct.unpack_from("<i", b, p)
            size = 4 + sl + 12 if t == 0x0C else sl
            v = Opaque(t, b[p:p + size])
            p += size
        else:
            raise BSONError("unknown type 0x%02x" % t)
        if p > end - 1:
            raise BSONError("element past the document")
        doc[key] = v
    return doc, end


# ---- server --------------------------------------------------------------------


def hello_reply(cmd, conn_id):
    r = {}
    if cmd == "hello":
        r["isWritablePrimary"] = True
    else:
        r["ismaster"] = True
    r.update({
        "maxBsonObjectSize": 16 * 1024 * 1024,
        "maxMessageSizeBytes": MAX_MESSAGE,
        "maxWriteBatchSize": 100000,
        "localTime": datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None),
        "logicalSessionTimeoutMinutes": 30,
        "connectionId": conn_id,
        "minWireVersion": 0,
        "maxWireVersion": 17,
        "readOnly": False,
        "ok": 1.0,
    })
    return r


def run_command(body, seqs, conn_id):
    """The reply document to a command, and a log summary."""
    if not body:
        return {"ok": 0.0, "errmsg": "empty command", "code": 59,
                "codeName": "CommandNotFound"}, "(empty) ok=0 code=59"
    cmd = next(iter(body))
    arg = body[cmd]
    db = body.get("$db", "admin")
    ns = "%s.%s" % (db, arg) if isinstance(arg, str) else db
    low = cmd.lower()
    if low in ("hello", "ismaster"):
        r = hello_reply(cmd, conn_id)
        if body.get("helloOk"):
            r["helloOk"] = True
        return r, "%s ok=1" % cmd
    if low in ("ping", "buildinfo", "getlasterror", "endsessions", "killcursors"):
        r = {"ok": 1.0}
        if low == "buildinfo":
            r = {"version": "6.0.0", "versionArray": [6, 0, 0, 0], "maxBsonObjectSize":
                 16 * 1024 * 1024, "ok": 1.0}
        return r, "%s ok=1" % cmd
    if low == "insert":
        n = len(seqs.get("documents", body.get("documents", [])))
        return {"n": n, "ok": 1.0}, "insert %s n=%d ok=1" % (ns, n)
    if low in ("update", "delete"):
        return {"n": 0, "ok": 1.0}, "%s %s n=0 ok=1" % (cmd, ns)
    if low in ("find", "aggregate"):
        return ({"cursor": {"firstBatch": [], "id": Int64(0), "ns": ns}, "ok": 1.0},
                "%s %s ok=1" % (cmd, ns))
    return ({"ok": 0.0, "errmsg": "no such command: '%s'" % cmd, "code": 59,
             "codeName": "CommandNotFound"}, "%s ok=0 code=59" % cmd)


class Mongo(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.conn_id = next(CONNECTION_IDS)
        buf = b""
        while True:
            while len(buf) < 4 or len(buf) < struct.unpack_from("<i", buf)[0]:
                try:
                    chunk = s.recv(65536)
                except OSError:
                    return
                if not chunk:
                    return
                buf += chunk
                if len(buf) >= 4 and not 16 <= struct.unpack_from("<i", buf)[0] <= MAX_MESSAGE:
                    log("bad message length: closing")
                    return
            (n,) = struct.unpack_from("<i", buf)
            msg, buf = buf[:n], buf[n:]
            try:
                reply = self.answer(msg)
            except (BSONError, ValueError, struct.error) as e:
                log("malformed message (%s): closing" % e)
                return
            if reply is False:
                return
            if reply:
                s.sendall(reply)

    def answer(self, msg):
        _, req_id, _, opcode = struct.unpack_from("<iiii", msg)
        if opcode == OP_MSG:
            return self.op_msg(msg, req_id)
        if opcode == OP_QUERY:
            return self.op_query(msg, req_id)
        log("opcode %d not supported: closing" % opcode)
        return False

    def op_msg(self, msg, req_id):
        (flags,) = struct.unpack_from("<I", msg, 16)
        end = len(msg) - (4 if flags & CHECKSUM_PRESENT else 0)
        p, body, seqs = 20, None, {}
        while p < end:
            kind = msg[p]
            p += 1
            if kind == 0:
                body, p = decode(msg, p)
            elif kind == 1:
                (size,) = struct.unpack_from("<i", msg, p)
                z = msg.index(b"\0", p + 4, p + size)
                ident = msg[p + 4:z].decode()
                docs, q = [], z + 1
                while q < p + size:
                    d, q = decode(msg, q)
                    docs.append(d)
                seqs[ident] = docs
                p += size
            else:
                raise BSONError("section kind %d" % kind)
        reply, summary = run_command(body, seqs, self.conn_id)
        if flags & MORE_TO_COME:
            log("OP_MSG %s (moreToCome: no reply)" % summary)
            return b""
        log("OP_MSG %s" % summary)
        data = struct.pack("<I", 0) + b"\0" + encode(reply)
        return struct.pack("<iiii", 16 + len(data), next(REQUEST_IDS), req_id, OP_MSG) + data

    def op_query(self, msg, req_id):
        z = msg.index(b"\0", 20)
        ns = msg[20:z].decode("utf-8", "replace")
        query, _ = decode(msg, z + 9)
        if "$query" in query and isinstance(query["$query"], dict):
            query = query["$query"]
        flags = 0
        if ns.endswith(".$cmd"):
            query.setdefault("$db", ns[:-5])
            reply, summary = run_command(query, {}, self.conn_id)
        else:
            flags = 2  # QueryFailure
            reply, summary = {"$err": "legacy queries are not supported", "code": 352,
                              "ok": 0.0}, "query %s ok=0" % ns
        log("OP_QUERY %s" % summary)
        data = struct.pack("<iqii", flags, 0, 0, 1) + encode(reply)
        return struct.pack("<iiii", 16 + len(data), next(REQUEST_IDS), req_id, OP_REPLY) + data


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("port", type=int)
    a = ap.parse_args()
    srv = Server(("127.0.0.1", a.port), Mongo)
    log("listening 127.0.0.1:%d" % srv.server_address[1])
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
