#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Loopback HTTP(S) server for tests/http/run.sh. Never listens beyond 127.0.0.1.

usage: server.py WORKDIR PACKDIR [CERT KEY]

Writes WORKDIR/port (and WORKDIR/tls-port with CERT and KEY) once listening,
and appends one JSON line per request to WORKDIR/requests.log: method, path,
the conditional and Authorization headers, the user agent and the body.
Behaviour is chosen by the path:

  GET  /packs/FILE            FILE from PACKDIR, with Content-Length
  GET  /404                   404
  GET  /500                   500
  GET  /slow                  answers after 5 s
  GET  /truncated             Content-Length 1000, 100 bytes, then closes
  GET  /huge                  5 MiB with Content-Length
  GET  /huge-chunked          5 MiB chunked, no Content-Length
  GET  /redirect/N/FILE       302 chain of N hops ending at /packs/FILE
  GET  /redirect-loop         302 to itself
  GET  /to-http/FILE          302 to http://127.0.0.1:PORT/packs/FILE (for the TLS side)
  GET  /etag/KEY              PACKDIR/etag-vN.yaml, N = state KEY (default 1), with
                              ETag "vN" and Last-Modified; 304 when If-None-Match
                              matches; state 'fail' answers 500, 'invalid' serves
                              invalid.yaml
  GET  /control/KEY/VALUE     set state KEY to VALUE
  POST /hook/ok               200
  POST /hook/flaky/KEY/N      500 for the first N posts of KEY, then 200
  POST /hook/down             always 503
  POST /hook/slow             answers after 5 s
  POST /hook/404              404
  POST /hook/redirect         307 to /hook/ok
  GET  /evil-headers/FILE     FILE from PACKDIR, with terminal escapes (OSC 52, CSI 2J,
                              a raw 0x9b) in its ETag and Last-Modified headers

Every POST also leaves its body, byte for byte, in WORKDIR/last-body.bin.
WORKDIR/stall-port names a TCP port that accepts connections and never
sends a byte (a TLS handshake that stalls).
"""
import json
import os
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORK, PACKS = sys.argv[1], sys.argv[2]
STATE = {}
LOCK = threading.Lock()
PORTS = {}
LAST_MODIFIED = {"1": "Mon, 06 Jan 2025 10:00:00 GMT", "2": "Tue, 07 Jan 2025 10:00:00 GMT"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # keep test output clean
        pass

    def record(self, body=b""):
        entry = {
            "method": self.command,
            "path": self.path,
            "if_none_match": self.headers.get("If-None-Match"),
            "if_modified_since": self.headers.get("If-Modified-Since"),
            "authorization": self.headers.get("Authorization"),
            "user_agent": self.headers.get("User-Agent"),
            "content_type": self.headers.get("Content-Type"),
            "body": body.decode("utf-8", "replace"),
        }
        with LOCK, open(os.path.join(WORK, "requests.log"), "a") as f:
            f.write(json.dumps(entry) + "\n")

    def send(self, code, body=b"", headers=None):
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def redirect(self, code, location):
        self.send(code, b"", {"Location": location})

    def pack(self, name, headers=None):
        path = os.path.join(PACKS, os.path.basename(name))
        if not os.path.isfile(path):
            return self.send(404, b"no such pack\n")
        with open(path, "rb") as f:
            self.send(200, f.read(), headers)

    def do_GET(self):
        self.record()
        parts = self.path.split("?")[0].strip("/").split("/")
        head = parts[0]
        if head == "packs" and len(parts) == 2:
            return self.pack(parts[1])
        if head == "404":
            return self.send(404, b"not found\n")
        if head == "500":
            return self.send(500, b"boom\n")
        if head == "slow":
            time.sleep(5)
            return self.send(200, b"schema_version: 1\n")
        if head == "truncated":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"schema_version: 1\n" + b"#" * 81 + b"\n")
            self.wfile.flush()
            self.close_connection = True
            return
        if head == "huge":
            return self.send(200, b"# filler line of a huge pack\n" * (5 * 1024 * 1024 // 29 + 1))
        if head == "huge-chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"# filler line of a huge pack\n" * 2048
            try:
                for _ in range(5 * 1024 * 1024 // len(chunk) + 1):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        if head == "redirect" and len(parts) == 3:
            n = int(parts[1])
            if n <= 0:
                return self.redirect(302, "/packs/" + parts[2])
            return self.redirect(302, "/redirect/%d/%s" % (n - 1, parts[2]))
        if head == "redirect-loop":
            return self.redirect(302, "/redirect-loop")
        if head == "to-http" and len(parts) == 2:
            return self.redirect(302, "http://127.0.0.1:%d/packs/%s" % (PORTS["http"], parts[1]))
        if head == "etag" and len(parts) == 2:
            with LOCK:
                v = STATE.get(parts[1], "1")
            if v == "fail":
                return self.send(500, b"boom\n")
            if v == "invalid":
                return self.pack("invalid.yaml", {"ETag": '"bad"'})
            etag = '"v%s"' % v
            hdrs = {"ETag": etag, "Last-Modified": LAST_MODIFIED.get(v, LAST_MODIFIED["1"])}
            if self.headers.get("If-None-Match") == etag:
                return self.send(304, b"", hdrs)
            return self.pack("etag-v%s.yaml" % v, hdrs)
        if head == "evil-headers" and len(parts) == 2:
            # send_header encodes as latin-1: these go out as raw bytes
            return self.pack(parts[1], {
                "ETag": '"v1\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m"',
                "Last-Modified": "Mon, 06 Jan 2025 \x1b]0;pwned\x07 10:00:00 GMT",
            })
        if head == "control" and len(parts) == 3:
            with LOCK:
                STATE[parts[1]] = parts[2]
            return self.send(200, b"ok\n")
        return self.send(404, b"unknown test path\n")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        self.record(body)
        with LOCK, open(os.path.join(WORK, "last-body.tmp"), "wb") as f:
            f.write(body)
        os.rename(os.path.join(WORK, "last-body.tmp"), os.path.join(WORK, "last-body.bin"))
        parts = self.path.strip("/").split("/")
        if parts[:2] == ["hook", "ok"]:
            return self.send(200, b'{"ok": true}\n', {"Content-Type": "application/json"})
        if parts[:2] == ["hook", "flaky"] and len(parts) == 4:
            key, fails = parts[2], int(parts[3])
            with LOCK:
                STATE[key] = STATE.get(key, 0) + 1
                hit = STATE[key]
            if hit <= fails:
                return self.send(500, b"try again\n")
            return self.send(200, b'{"ok": true}\n')
        if parts[:2] == ["hook", "down"]:
            return self.send(503, b"down\n")
        if parts[:2] == ["hook", "slow"]:
            time.sleep(5)
            return self.send(200, b'{"ok": true}\n')
        if parts[:2] == ["hook", "404"]:
            return self.send(404, b"no hook\n")
        if parts[:2] == ["hook", "redirect"]:
            return self.redirect(307, "/hook/ok")
        return self.send(404, b"unknown test path\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # clients that hang up early (timeouts, size caps) are part of the tests
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError, ssl.SSLError)):
            super().handle_error(request, client_address)


def serve(server):
    server.serve_forever()


def stall(sock):
    held = []
    while True:
        conn, _ = sock.accept()
        held.append(conn)   # kept open, never written to


def main():
    http = Server(("127.0.0.1", 0), Handler)
    PORTS["http"] = http.server_address[1]
    threads = [threading.Thread(target=serve, args=(http,), daemon=True)]
    tls_port = None
    if len(sys.argv) >= 5:
        tls = Server(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[3], sys.argv[4])
        tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
        tls_port = tls.server_address[1]
        threads.append(threading.Thread(target=serve, args=(tls,), daemon=True))
    stall_sock = socket.socket()
    stall_sock.bind(("127.0.0.1", 0))
    stall_sock.listen(16)
    threads.append(threading.Thread(target=stall, args=(stall_sock,), daemon=True))
    for t in threads:
        t.start()
    with open(os.path.join(WORK, "stall-port.tmp"), "w") as f:
        f.write("%d\n" % stall_sock.getsockname()[1])
    os.rename(os.path.join(WORK, "stall-port.tmp"), os.path.join(WORK, "stall-port"))
    if tls_port:
        with open(os.path.join(WORK, "tls-port.tmp"), "w") as f:
            f.write("%d\n" % tls_port)
        os.rename(os.path.join(WORK, "tls-port.tmp"), os.path.join(WORK, "tls-port"))
    with open(os.path.join(WORK, "port.tmp"), "w") as f:
        f.write("%d\n" % PORTS["http"])
    os.rename(os.path.join(WORK, "port.tmp"), os.path.join(WORK, "port"))
    # the test kills us; should it die without doing so, notice and go too
    parent = os.getppid()
    for _ in range(7200):
        if os.getppid() != parent:
            break
        time.sleep(0.5)


if __name__ == "__main__":
    main()
