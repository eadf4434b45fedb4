#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A minimal Kafka broker stand-in for the integration tests (Debian has no Kafka).

It speaks just enough of the Kafka wire protocol for librdkafka (kcat) to
produce to it and to read an empty partition:

  ApiVersions v0-v3   the versions below (v0 error reply for a newer request)
  Metadata    v0-v12  one broker (itself), every requested topic with one
                      partition (0) led by itself, auto-created
  Produce     v0-v9   per-partition error code 0, or --error-code for the
                      topic named by --error-topic; acks=0 gets no reply
  ListOffsets v0-v7   offset 0: records are not stored, every log is empty
  Fetch       v0-v12  no records, high watermark = the fetch offset (the
                      consumer reaches the end of the partition at once)

Anything else closes the connection.  Every answer is logged as one line on
stdout, e.g. "Produce v7 corr=3 topic=t partition=0 records=5 error=0".

Usage: kafka_listener.py PORT [--advertised-port P] [--error-topic NAME]
                              [--error-code N]
PORT 0 picks a free port; the first line printed is "listening 127.0.0.1:PORT".
Python 3 standard library only.
"""
import argparse
import socket
import socketserver
import struct
import sys
import threading
import time
import uuid

# api_key -> (min, max, first flexible version)
APIS = {
    0: (0, 9, 9),  # Produce
    1: (0, 12, 12),  # Fetch
    2: (0, 7, 6),  # ListOffsets
    3: (0, 12, 9),  # Metadata
    18: (0, 3, 3),  # ApiVersions
}
NAMES = {0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 18: "ApiVersions"}
NODE_ID = 0
CLUSTER_ID = "enav-test-cluster"
UNSUPPORTED_VERSION = 35
LOCK = threading.RLock()
TOPICS = {}  # name -> (topic id bytes, records produced to partition 0)


def log(msg):
    with LOCK:
        sys.stdout.write(msg + "\n")
        sys.stdout.flush()


class Short(Exception):
    pass


class Reader:
    def __init__(self, b, flex=False):
        self.b, self.p, self.flex = b, 0, flex

    def take(self, n):
        if n < 0 or self.p + n > len(self.b):
            raise Short()
        v = self.b[self.p:self.p + n]
        self.p += n
        return v

    def i8(self):
        return struct.unpack(">b", self.take(1))[0]

    def i16(self):
        return struct.unpack(">h", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def i64(self):
        return struct.unpack(">q", self.take(8))[0]

    def uvarint(self):
        v, shift = 0, 0
        while True:
            c = self.take(1)[0]
            v |= (c & 0x7F) << shift
            if not c & 0x80:
                return v
            shift += 7
            if shift > 35:
                raise Short()

    def string(self):  # nullable; compact when flexible
        n = self.uvarint() - 1 if self.flex else self.i16()
        return None if n < 0 else self.take(n).decode("utf-8", "replace")

    def bytes_(self):
        n = self.uvarint() - 1 if self.flex else self.i32()
        return None if n < 0 else self.take(n)

    def array(self):  # element count, -1 for null
        return self.uvarint() - 1 if self.flex else self.i32()

    def tags(self):
        if self.flex:
            for _ in range(self.uvarint()):
                self.uvarint()
                self.take(self.uvarint())


class Writer:
    def __init__(self, flex=False):
        self.parts, self.flex = [], flex

    def raw(self, b):
        self.parts.append(b)

    def i8(self, v):
        self.raw(struct.pack(">b", v))

    def i16(self, v):
        self.raw(struct.pack(">h", v))

    def i32(self, v):
        self.raw(struct.pack(">i", v))

    def i64(self, v):
        self.raw(struct.pack(">q", v))

    def uvarint(self, v):
        out = bytearray()
        while True:
            if v < 0x80:
                out.append(v)
                break
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        self.raw(bytes(out))

    def string(self, s):
        if s is None:
            if self.flex:
                self.uvarint(0)
            else:
                self.i16(-1)
            return
        b = s.encode()
        if self.flex:
            self.uvarint(len(b) + 1)
        else:
            self.i16(len(b))
        self.raw(b)

    def array(self, n):
        if self.flex:
            self.uvarint(n + 1 if n >= 0 else 0)
        else:
            self.i32(n)

    def tags(self):
        if self.flex:
            self.uvarint(0)

    def data(self):
        return b"".join(self.parts)


def topic(name):
    with LOCK:
        if name not in TOPICS:
            TOPICS[name] = [uuid.uuid4().bytes, 0]
        return TOPICS[name]


def count_records(records):
    """Records in a v2 RecordBatch sequence (or legacy message sets: 1 per entry)."""
    n, p = 0, 0
    while records is not None and p + 12 <= len(records):
        (blen,) = struct.unpack(">i", records[p + 8:p + 12])
        if blen <= 0:
            break
        magic = records[p + 16] if p + 16 < len(records) else 0
        if magic == 2 and p + 61 <= len(records):
            n += struct.unpack(">i", records[p + 57:p + 61])[0]
        else:
            n += 1
        p += 12 + blen
    return n


class Broker(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = b""
        while True:
            while len(buf) < 4 or len(buf) < 4 + struct.unpack(">i", buf[:4])[0]:
                try:
                    chunk = s.recv(65536)
                except OSError:
                    return
                if not chunk:
                    return
                buf += chunk
            (size,) = struct.unpack(">i", buf[:4])
            msg, buf = buf[4:4 + size], buf[4 + size:]
            try:
                reply = self.answer(msg)
            except Short:
                log("malformed request: closing")
                return
            if reply is None:
                continue
            if reply is False:
                return
            s.sendall(struct.pack(">i", len(reply)) + reply)

    def answer(self, msg):
        r = Reader(msg)
        key, ver, corr = r.i16(), r.i16(), r.i32()
        r.string()  # client_id, never compact
        if key not in APIS:
            log("unsupported api_key=%d v%d corr=%d: closing" % (key, ver, corr))
            return False
        lo, hi, flexv = APIS[key]
        if key == 18:
            return self.api_versions(r, ver, corr)
        if ver < lo or ver > hi:
            log("%s v%d unsupported: closing" % (NAMES[key], ver))
            return False
        flex = ver >= flexv
        if flex:
            r.tags()
        r.flex = flex
        w = Writer(flex)
        w.i32(corr)
        w.tags()  # response header v1 when flexible
        fn = {0: self.produce, 1: self.fetch, 2: self.list_offsets, 3: self.metadata}[key]
        if fn(r, w, ver, corr) is None:
            return None
        return w.data()

    def api_versions(self, r, ver, corr):
        w = Writer()
        w.i32(corr)  # ApiVersions responses always use response header v0
        err = 0
        if ver > APIS[18][1]:
            err, ver = UNSUPPORTED_VERSION, 0
        w.i16(err)
        w.flex = ver >= 3
        w.array(len(APIS))
        for k in sorted(APIS):
            w.i16(k)
            w.i16(APIS[k][0])
            w.i16(APIS[k][1])
            w.tags()
        if ver >= 1:
            w.i32(0)  # throttle_time_ms
        w.tags()
        log("ApiVersions v%d corr=%d error=%d" % (ver, corr, err))
        return w.data()

    def metadata(self, r, w, ver, corr):
        n = r.array()
        names = None
        if n >= 0:
            names = []
            for _ in range(n):
                if ver >= 10:
                    r.take(16)  # topic_id
                names.append(r.string())
                r.tags()
        if ver == 0 and n == 0:
            names = None  # v0: an empty list means all topics
        if names is None:
            with LOCK:
                names = sorted(TOPICS)
        names = [t for t in names if t]
        if ver >= 3:
            w.i32(0)  # throttle_time_ms
        w.array(1)  # brokers
        w.i32(NODE_ID)
        w.string("127.0.0.1")
        w.i32(self.server.advertised_port)
        if ver >= 1:
            w.string(None)  # rack
        w.tags()
        if ver >= 2:
            w.string(CLUSTER_ID)
        if ver >= 1:
            w.i32(NODE_ID)  # controller
        w.array(len(names))
        for name in names:
            tid = topic(name)[0]
            w.i16(0)
            w.string(name)
            if ver >= 10:
                w.raw(tid)
            if ver >= 1:
                w.i8(0)  # is_internal
            w.array(1)  # partitions
            w.i16(0)
            w.i32(0)  # partition_index
            w.i32(NODE_ID)  # leader
            if ver >= 7:
                w.i32(0)  # leader_epoch
            for _ in range(2):  # replicas, isr
                w.array(1)
                w.i32(NODE_ID)
            if ver >= 5:
                w.array(0)  # offline replicas
            w.tags()
            if ver >= 8:
                w.i32(-2147483648)  # topic_authorized_operations
            w.tags()
        if 8 <= ver <= 10:
            w.i32(-2147483648)  # cluster_authorized_operations
        w.tags()
        log("Metadata v%d corr=%d topics=%s" % (ver, corr, ",".join(names) or "-"))
        return True

    def produce(self, r, w, ver, corr):
        if ver >= 3:
            r.string()  # transactional_id
        acks = r.i16()
        r.i32()  # timeout_ms
        answers = []
        for _ in range(max(r.array(), 0)):
            name = r.string()
            parts = []
            for _ in range(max(r.array(), 0)):
                idx = r.i32()
                nrec = count_records(r.bytes_())
                r.tags()
                err = self.server.error_code if name == self.server.error_topic else 0
                if err == 0:
                    with LOCK:
                        t = topic(name)
                        base = t[1]
                        t[1] += nrec
                else:
                    base = -1
                parts.append((idx, err, base))
                log("Produce v%d corr=%d acks=%d topic=%s partition=%d records=%d error=%d" %
                    (ver, corr, acks, name, idx, nrec, err))
            r.tags()
            answers.append((name, parts))
        if acks == 0:
            return None  # acks=0: the broker sends no response
        w.array(len(answers))
        for name, parts in answers:
            w.string(name)
            w.array(len(parts))
            for idx, err, base in parts:
                w.i32(idx)
                w.i16(err)
                w.i64(base)
                if ver >= 2:
                    w.i64(-1)  # log_append_time_ms
                if ver >= 5:
                    w.i64(0)  # log_start_offset
                if ver >= 8:
                    w.array(0)  # record_errors
                    w.string(None)  # error_message
                w.tags()
            w.tags()
        if ver >= 1:
            w.i32(0)  # throttle_time_ms
        w.tags()
        return True

    def list_offsets(self, r, w, ver, corr):
        r.i32()  # replica_id
        if ver >= 2:
            r.i8()  # isolation_level
        answers = []
        for _ in range(max(r.array(), 0)):
            name = r.string()
            parts = []
            for _ in range(max(r.array(), 0)):
                idx = r.i32()
                if ver >= 4:
                    r.i32()  # current_leader_epoch
                r.i64()  # timestamp: -2 earliest, -1 latest; both are 0 here
                if ver == 0:
                    r.i32()  # max_num_offsets
                r.tags()
                parts.append((idx, 0))
            r.tags()
            answers.append((name, parts))
        if ver >= 2:
            w.i32(0)
        w.array(len(answers))
        for name, parts in answers:
            w.string(name)
            w.array(len(parts))
            for idx, off in parts:
                w.i32(idx)
                w.i16(0)
                if ver == 0:
                    w.array(1)
                    w.i64(off)
                else:
                    w.i64(-1)  # timestamp
                    w.i64(off)
                    if ver >= 4:
                        w.i32(0)  # leader_epoch
                w.tags()
                log("ListOffsets v%d corr=%d topic=%s partition=%d offset=%d" %
                    (ver, corr, name, idx, off))
            w.tags()
        w.tags()
        return True

    def fetch(self, r, w, ver, corr):
        r.i32()  # replica_id
        max_wait = r.i32()
        r.i32()  # min_bytes
        if ver >= 3:
            r.i32()  # max_bytes
        if ver >= 4:
            r.i8()  # isolation_level
        if ver >= 7:
            r.i32()  # session_id
            r.i32()  # session_epoch
        answers = []
        for _ in range(max(r.array(), 0)):
            name = r.string()
            parts = []
            for _ in range(max(r.array(), 0)):
                idx = r.i32()
                if ver >= 9:
                    r.i32()  # current_leader_epoch
                off = r.i64()
                if ver >= 12:
                    r.i32()  # last_fetched_epoch
                if ver >= 5:
                    r.i64()  # log_start_offset
                r.i32()  # partition_max_bytes
                r.tags()
                parts.append((idx, off))
            r.tags()
            answers.append((name, parts))
        # No data ever arrives: hold the reply for max_wait_ms (at most 0.5 s)
        # as a broker does, so that a consumer left running does not spin.
        time.sleep(min(max(max_wait, 0), 500) / 1000.0)
        if ver >= 1:
            w.i32(0)  # throttle_time_ms
        if ver >= 7:
            w.i16(0)
            w.i32(0)  # session_id
        w.array(len(answers))
        for name, parts in answers:
            w.string(name)
            w.array(len(parts))
            for idx, off in parts:
                hwm = max(off, 0)
                w.i32(idx)
                w.i16(0)
                w.i64(hwm)
                if ver >= 4:
                    w.i64(hwm)  # last_stable_offset
                if ver >= 5:
                    w.i64(0)  # log_start_offset
                if ver >= 4:
                    w.array(0)  # aborted_transactions
                if ver >= 11:
                    w.i32(-1)  # preferred_read_replica
                if w.flex:
                    w.uvarint(1)  # empty records
                else:
                    w.i32(0)
                w.tags()
                log("Fetch v%d corr=%d topic=%s partition=%d offset=%d high_watermark=%d" %
                    (ver, corr, name, idx, off, hwm))
            w.tags()
        w.tags()
        return True


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("port", type=int)
    ap.add_argument("--advertised-port", type=int, default=0,
                    help="port to advertise in Metadata (default: the listening port)")
    ap.add_argument("--error-topic", default="enav-error-topic")
    ap.add_argument("--error-code", type=int, default=87,
                    help="Produce error code for --error-topic (default 87 INVALID_RECORD)")
    a = ap.parse_args()
    srv = Server(("127.0.0.1", a.port), Broker)
    port = srv.server_address[1]
    srv.advertised_port = a.advertised_port or port
    srv.error_topic = a.error_topic
    srv.error_code = a.error_code
    log("listening 127.0.0.1:%d" % port)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
