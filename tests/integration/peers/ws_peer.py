#!/usr/bin/env python3
"""A WebSocket (RFC 6455) echo server and client on the standard library only,
for tests/integration/test_l7_http.sh.

  ws_peer.py server PORT            echo every data frame back; answer close
  ws_peer.py client PORT N SIZE     upgrade, send N text frames of SIZE bytes
                                    and one binary frame, read each echo,
                                    ping, then close; prints "ok N"
"""
import base64
import hashlib
import os
import socket
import struct
import sys

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def read_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def read_frame(s):
    b0, b1 = read_exact(s, 2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack("!H", read_exact(s, 2))[0]
    elif n == 127:
        n = struct.unpack("!Q", read_exact(s, 8))[0]
    mask = read_exact(s, 4) if b1 & 0x80 else None
    data = read_exact(s, n)
    if mask:
        data = bytes(c ^ mask[i % 4] for i, c in enumerate(data))
    return b0 & 0x0F, data


def frame(opcode, data, masked):
    head = bytes([0x80 | opcode])
    n = len(data)
    bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 65536:
        head += bytes([bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", n)
    if masked:
        key = os.urandom(4)
        return head + key + bytes(c ^ key[i % 4] for i, c in enumerate(data))
    return head + data


def read_headers(s):
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(4096)
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def serve(port):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(8)
    print("listening", flush=True)
    while True:
        c, _ = ls.accept()
        try:
            req = read_headers(c).decode("latin-1")
            key = ""
            for line in req.split("\r\n"):
                if line.lower().startswith("sec-websocket-key:"):
                    key = line.split(":", 1)[1].strip()
            acc = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
            c.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n" % acc).encode())
            while True:
                op, data = read_frame(c)
                if op == 8:
                    c.sendall(frame(8, data[:2], False))
                    break
                if op == 9:
                    c.sendall(frame(10, data, False))
                elif op in (1, 2):
                    c.sendall(frame(op, data, False))
        except EOFError:
            pass
        finally:
            c.close()


def client(port, n, size):
    s = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET /ws/room/42 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n" % key).encode())
    head = read_headers(s)
    assert head.startswith(b"HTTP/1.1 101"), head
    for i in range(n):
        s.sendall(frame(1, b"m" * size, True))
        op, data = read_frame(s)
        assert op == 1 and len(data) == size
    s.sendall(frame(2, b"\x00" * 300, True))
    op, data = read_frame(s)
    assert op == 2 and len(data) == 300
    s.sendall(frame(9, b"", True))
    op, _ = read_frame(s)
    assert op == 10
    s.sendall(frame(8, struct.pack("!H", 1000), True))
    op, data = read_frame(s)
    assert op == 8
    s.close()
    print("ok", n, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "server":
        serve(int(sys.argv[2]))
    else:
        client(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
