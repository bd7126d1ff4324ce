#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for object-store tests, on 127.0.0.1.

    fault_proxy.py --upstream http://127.0.0.1:PORT --port-file FILE
                   [--pid-file FILE] [--delay-ms N]

Forwards every request to the upstream (radosgw, say) unchanged -- the Host
header included, so SigV4 signatures made for the proxy's address still
verify -- and answers with the upstream's response. It works both as the
store's endpoint (AWS_ENDPOINT_URL=http://127.0.0.1:PROXYPORT) and as an HTTP
proxy (the proxy_url option: requests then carry absolute URIs). --delay-ms
adds that much to every request (a slow network, for benchmarks).

Faults are set through the proxy itself, on the path /__fault__:

    POST /__fault__   {"action": A, "count": N, "method": "PUT", "path": REGEX,
                       "delay_ms": MS, "retry_after": S}
        queue a fault for the next N requests (default 1) whose method and
        path (regex searched in the path, query included) match; actions:
          503, 500, 429   answer with that status and an S3 error document
                          without forwarding (429 with Retry-After)
          drop_before     close the connection without forwarding
          drop_after      forward (the upstream applies the request), then
                          close the connection without answering: the
                          ambiguous case of a commit
          truncate        forward, then send the upstream's headers (its
                          Content-Length) but only half of the body, and close
          delay           forward after delay_ms
        delay_ms also applies before any other action.
    GET /__fault__    {"requests": [[method, path, action or null], ...],
                       "pending": [faults not yet used up]}
    DELETE /__fault__ clear faults and the request log

Stop it by its pid (the --pid-file). Standard library only.
"""
import argparse
import http.client
import http.server
import json
import os
import re
import socket
import sys
import threading
import time
import urllib.parse

LOCK = threading.Lock()
FAULTS = []    # dicts: action, count, method, path (compiled), delay_ms, retry_after
REQUESTS = []  # [method, path, action]
ARGS = None

ERROR_DOC = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code>'
             '<Message>injected by fault_proxy</Message></Error>')
CODES = {503: "SlowDown", 500: "InternalError", 429: "TooManyRequests"}


def take_fault(method, path):
    """The first queued fault matching this request (used up by one)."""
    with LOCK:
        for f in FAULTS:
            if f["method"] and f["method"] != method:
                continue
            if f["path"] and not f["path"].search(path):
                continue
            f["count"] -= 1
            if f["count"] <= 0:
                FAULTS.remove(f)
            return dict(f)
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def reply(self, status, data=b"", ctype="application/xml", extra=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def control(self, body):
        if self.command == "POST":
            try:
                spec = json.loads(body or b"{}")
                f = {
                    "action": str(spec["action"]),
                    "count": int(spec.get("count", 1)),
                    "method": spec.get("method") or None,
                    "path": re.compile(spec["path"]) if spec.get("path") else None,
                    "path_src": spec.get("path") or None,
                    "delay_ms": int(spec.get("delay_ms", 0)),
                    "retry_after": int(spec.get("retry_after", 1)),
                }
            except (ValueError, KeyError, re.error) as e:
                return self.reply(400, str(e).encode(), "text/plain")
            with LOCK:
                FAULTS.append(f)
            return self.reply(200, b"{}", "application/json")
        if self.command == "DELETE":
            with LOCK:
                FAULTS.clear()
                REQUESTS.clear()
            return self.reply(200, b"{}", "application/json")
        with LOCK:
            doc = {"requests": list(REQUESTS),
                   "pending": [{"action": f["action"], "count": f["count"], "method": f["method"],
                                "path": f["path_src"]} for f in FAULTS]}
        return self.reply(200, json.dumps(doc).encode(), "application/json")

    def forward(self, path, body):
        up = urllib.parse.urlsplit(ARGS.upstream)
        conn = http.client.HTTPConnection(up.hostname, up.port, timeout=60)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("proxy-connection", "connection", "keep-alive")}
        conn.request(self.command, path, body=body if body or self.command in ("PUT", "POST") else None,
                     headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        hdrs = [(k, v) for k, v in resp.getheaders()
                if k.lower() not in ("connection", "keep-alive", "transfer-encoding", "content-length")]
        length = resp.getheader("Content-Length")
        conn.close()
        return resp.status, hdrs, data, length

    def handle_any(self):
        body = self.body()
        path = self.path
        if path.startswith("http://") or path.startswith("https://"):
            parts = urllib.parse.urlsplit(path)  # proxy form: keep only the path
            path = parts.path + ("?" + parts.query if parts.query else "")
        if path.startswith("/__fault__"):
            return self.control(body)
        f = take_fault(self.command, path)
        with LOCK:
            REQUESTS.append([self.command, path, f["action"] if f else None])
        delay = ARGS.delay_ms + (f["delay_ms"] if f else 0)
        if delay:
            time.sleep(delay / 1000.0)
        action = f["action"] if f else None
        if action in ("503", "500", "429"):
            status = int(action)
            extra = {"Retry-After": str(f["retry_after"])} if status == 429 else None
            return self.reply(status, ERROR_DOC.format(code=CODES[status]).encode(), extra=extra)
        if action == "drop_before":
            return self.drop()
        try:
            status, hdrs, data, length = self.forward(path, body)
        except OSError as e:
            return self.reply(502, ERROR_DOC.format(code="BadGateway").encode())
        if action == "drop_after":
            return self.drop()
        self.send_response(status)
        for k, v in hdrs:
            self.send_header(k, v)
        if self.command == "HEAD":
            self.send_header("Content-Length", length or "0")
            self.end_headers()
            return
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if action == "truncate":
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            return self.drop()
        self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = handle_any


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--upstream", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--pid-file")
    p.add_argument("--delay-ms", type=int, default=0)
    ARGS = p.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    if ARGS.pid_file:
        with open(ARGS.pid_file, "w") as f:
            f.write(str(os.getpid()))
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(tmp, ARGS.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
