#!/usr/bin/env python3
"""A small Google Cloud Storage test server: exactly the JSON API calls that
deltac's gs:// back end makes, written from Google's API reference, plus an
OAuth2 token endpoint for the service-account (JWT bearer) flow and fault
injection. For tests only: data lives in memory, it binds 127.0.0.1.

Calls (https://cloud.google.com/storage/docs/json_api/v1):
  GET    /storage/v1/b/B/o?prefix&delimiter&startOffset&pageToken&maxResults
  GET    /storage/v1/b/B/o/NAME            metadata (size, updated, ...)
  GET    /storage/v1/b/B/o/NAME?alt=media  data, with Range (206 / 416)
  DELETE /storage/v1/b/B/o/NAME            204, 404 when missing
  POST   /upload/storage/v1/b/B/o?uploadType=media&name=N[&ifGenerationMatch=0]
  POST   /upload/storage/v1/b/B/o?uploadType=resumable&name=N  -> Location
  PUT    <session URI> with Content-Range   308 (Range: bytes=0-N) / 200
  DELETE <session URI>                      499 (cancelled)
  POST   /token   grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer
                  &assertion=JWT, RS256 verified with `openssl dgst -verify`
                  against the service account's public key.
Every storage call needs "Authorization: Bearer T" with T the static token
(--bearer) or one the token endpoint issued; else 401.

Control (no auth; test scripts only):
  POST /_faults?kind=K&count=N[&match=S][&status=C][&ms=D]
       the next N requests whose path+query contains S (all when absent)
       get fault K: status (answer C, default 503, with a JSON error), drop
       (close the connection without an answer), lost (do the call, then
       close the connection without its answer), delay (wait D ms, then
       serve), truncate (announce the whole body, send half, close),
       short (a resumable chunk: keep only its first 256 KiB multiple).
  POST /_reset   clear faults;   GET /_stats   {"requests": N, "faults": M}

Usage: gcs_server.py --private-key KEY.pem --credentials-out SA.json
                     --port-file F [--bearer TOKEN] [--bucket NAME]
                     [--page-size N] [--client-email E]
"""
import argparse
import base64
import datetime
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK_UNIT = 256 * 1024
lock = threading.Lock()
buckets = {}      # bucket -> {name: {"data": bytes, "generation": int, "updated": str}}
sessions = {}     # upload_id -> {"bucket", "name", "data": bytearray, "if_gen": str|None}
tokens = set()
faults = []       # [{"kind", "count", "match", "status", "ms"}]
stats = {"requests": 0, "faults": 0}
generation = [1000]
cfg = {}


def now_rfc3339():
    t = datetime.datetime.now(datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def b64url_decode(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def verify_jwt(assertion, token_uri):
    """None when the assertion is a valid RS256 JWT of our service account,
    else the reason."""
    parts = assertion.split(".")
    if len(parts) != 3:
        return "not a JWT"
    try:
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
        sig = b64url_decode(parts[2])
    except Exception:
        return "undecodable JWT"
    if header.get("alg") != "RS256" or header.get("typ") != "JWT":
        return "header is not RS256/JWT"
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "in"), "wb") as f:
            f.write((parts[0] + "." + parts[1]).encode())
        with open(os.path.join(d, "sig"), "wb") as f:
            f.write(sig)
        r = subprocess.run(["openssl", "dgst", "-sha256", "-verify", cfg["public_key"], "-signature",
                            os.path.join(d, "sig"), os.path.join(d, "in")], capture_output=True)
    if r.returncode != 0:
        return "bad signature"
    t = time.time()
    if claims.get("iss") != cfg["client_email"]:
        return "wrong iss"
    if claims.get("aud") != token_uri:
        return "wrong aud"
    if "devstorage" not in str(claims.get("scope", "")):
        return "no storage scope"
    iat, exp = claims.get("iat"), claims.get("exp")
    if not isinstance(iat, int) or not isinstance(exp, int) or exp - iat > 3600 or exp <= t or iat > t + 60:
        return "bad iat/exp"
    return None


def meta(bucket, name, obj):
    return {"kind": "storage#object", "bucket": bucket, "name": name, "size": str(len(obj["data"])),
            "generation": str(obj["generation"]), "updated": obj["updated"],
            "contentType": "application/octet-stream"}


def store(bucket, name, data, if_gen):
    """Create/replace under the lock; False when ifGenerationMatch fails."""
    with lock:
        objs = buckets[bucket]
        cur = objs.get(name)
        if if_gen is not None:
            want = int(if_gen)
            if (want == 0 and cur is not None) or (want != 0 and (cur is None or cur["generation"] != want)):
                return None
        generation[0] += 1
        obj = {"data": bytes(data), "generation": generation[0], "updated": now_rfc3339()}
        objs[name] = obj
        return obj


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without TCP_NODELAY each
    # answer waits for the client's delayed ACK (~40 ms).
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # quiet; tests read stats instead
        pass

    # ---- plumbing ----

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def send(self, status, payload=b"", headers=None, ctype="application/json"):
        if getattr(self, "lose_answer", False):
            self.close_connection = True
            return
        if isinstance(payload, (dict, list)):
            payload = json.dumps(payload).encode()
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if payload or status not in (204, 304):
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD" and payload:
            self.wfile.write(payload)

    def error(self, status, message):
        self.send(status, {"error": {"code": status, "message": message,
                                     "errors": [{"message": message, "domain": "global"}]}})

    def fault(self):
        """The fault for this request (consumed), or None."""
        target = self.path
        with lock:
            for f in faults:
                if f["count"] > 0 and (not f["match"] or f["match"] in target):
                    f["count"] -= 1
                    stats["faults"] += 1
                    return dict(f)
        return None

    def authorised(self):
        h = self.headers.get("Authorization", "")
        if not h.startswith("Bearer "):
            return False
        t = h[7:]
        return t == cfg.get("bearer") or t in tokens

    # ---- dispatch ----

    def handle_any(self):
        u = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(u.query, keep_blank_values=True))
        path = u.path
        if path.startswith("/_"):
            return self.control(path, q)
        with lock:
            stats["requests"] += 1
        data = self.body() if self.command in ("POST", "PUT") else b""
        f = self.fault()
        if f and f["kind"] == "drop":
            self.close_connection = True
            return
        self.lose_answer = bool(f and f["kind"] == "lost")
        if f and f["kind"] == "delay":
            time.sleep(f["ms"] / 1000.0)
            f = None
        if f and f["kind"] == "status":
            return self.error(f["status"], "injected fault")
        if path == "/token" and self.command == "POST":
            return self.token(data)
        if not self.authorised():
            return self.error(401, "Invalid Credentials")
        parts = path.split("/")
        # /storage/v1/b/B/o[/NAME]  and  /upload/storage/v1/b/B/o
        if len(parts) >= 6 and parts[1] == "storage" and parts[2] == "v1" and parts[3] == "b" and parts[5] == "o":
            bucket = urllib.parse.unquote(parts[4])
            if bucket not in buckets:
                return self.error(404, "The specified bucket does not exist.")
            if len(parts) == 6:
                if self.command == "GET":
                    return self.list(bucket, q)
                return self.error(405, "method not allowed")
            name = urllib.parse.unquote("/".join(parts[6:]))
            if self.command == "GET":
                return self.get(bucket, name, q, f)
            if self.command == "DELETE":
                with lock:
                    gone = buckets[bucket].pop(name, None)
                if gone is None:
                    return self.error(404, "No such object: %s/%s" % (bucket, name))
                return self.send(204)
            return self.error(405, "method not allowed")
        if len(parts) == 7 and parts[1] == "upload" and parts[4] == "b" and parts[6] == "o":
            bucket = urllib.parse.unquote(parts[5])
            if bucket not in buckets:
                return self.error(404, "The specified bucket does not exist.")
            if "upload_id" in q:
                return self.resumable(q["upload_id"], data, f)
            if self.command != "POST":
                return self.error(405, "method not allowed")
            name = q.get("name")
            if not name:
                return self.error(400, "Required parameter: name")
            if q.get("uploadType") == "media":
                obj = store(bucket, name, data, q.get("ifGenerationMatch"))
                if obj is None:
                    return self.error(412, "At least one of the pre-conditions you specified did not hold.")
                return self.send(200, meta(bucket, name, obj))
            if q.get("uploadType") == "resumable":
                uid = secrets.token_urlsafe(24)
                with lock:
                    sessions[uid] = {"bucket": bucket, "name": name, "data": bytearray(),
                                     "if_gen": q.get("ifGenerationMatch")}
                loc = "http://127.0.0.1:%d/upload/storage/v1/b/%s/o?uploadType=resumable&name=%s&upload_id=%s" % (
                    self.server.server_address[1], urllib.parse.quote(bucket, safe=""),
                    urllib.parse.quote(name, safe=""), uid)
                return self.send(200, b"", {"Location": loc})
            return self.error(400, "unsupported uploadType")
        return self.error(404, "Not Found")

    do_GET = do_POST = do_PUT = do_DELETE = handle_any

    def control(self, path, q):
        self.body()
        if path == "/_faults":
            f = {"kind": q.get("kind", "status"), "count": int(q.get("count", "1")), "match": q.get("match", ""),
                 "status": int(q.get("status", "503")), "ms": int(q.get("ms", "0"))}
            with lock:
                faults.append(f)
            return self.send(200, {"ok": True})
        if path == "/_reset":
            with lock:
                faults.clear()
            return self.send(200, {"ok": True})
        if path == "/_stats":
            with lock:
                return self.send(200, dict(stats))
        return self.error(404, "Not Found")

    # ---- calls ----

    def token(self, data):
        form = dict(urllib.parse.parse_qsl(data.decode("utf-8", "replace")))
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            return self.send(400, {"error": "unsupported_grant_type"})
        token_uri = "http://127.0.0.1:%d/token" % self.server.server_address[1]
        why = verify_jwt(form.get("assertion", ""), token_uri)
        if why:
            return self.send(400, {"error": "invalid_grant", "error_description": why})
        t = "ya29.test-" + secrets.token_urlsafe(32)
        with lock:
            tokens.add(t)
        return self.send(200, {"access_token": t, "expires_in": 3599, "token_type": "Bearer"})

    def list(self, bucket, q):
        prefix, delim = q.get("prefix", ""), q.get("delimiter", "")
        start = q.get("startOffset", "")
        size = min(int(q.get("maxResults") or cfg["page_size"]), cfg["page_size"])
        if q.get("pageToken"):
            start = max(start, base64.urlsafe_b64decode(q["pageToken"]).decode())
        with lock:
            names = sorted(n for n in buckets[bucket] if n.startswith(prefix) and n >= start)
            snap = {n: buckets[bucket][n] for n in names}
        items, prefixes, n_out, i, token = [], [], 0, 0, None
        while i < len(names):
            if n_out == size:
                token = base64.urlsafe_b64encode(names[i].encode()).decode()
                break
            name = names[i]
            rest = name[len(prefix):]
            k = rest.find(delim) if delim else -1
            if k >= 0:
                p = prefix + rest[:k + len(delim)]
                prefixes.append(p)
                while i < len(names) and names[i].startswith(p):
                    i += 1
            else:
                items.append(meta(bucket, name, snap[name]))
                i += 1
            n_out += 1
        out = {"kind": "storage#objects"}
        if items:
            out["items"] = items
        if prefixes:
            out["prefixes"] = prefixes
        if token:
            out["nextPageToken"] = token
        return self.send(200, out)

    def get(self, bucket, name, q, f):
        with lock:
            obj = buckets[bucket].get(name)
        if obj is None:
            return self.error(404, "No such object: %s/%s" % (bucket, name))
        if q.get("alt") != "media":
            return self.send(200, meta(bucket, name, obj))
        data, status, headers = obj["data"], 200, {}
        rng = self.headers.get("Range")
        if rng:
            spec = rng.strip()
            if not spec.startswith("bytes=") or "," in spec:
                return self.error(400, "bad Range")
            a, _, b = spec[6:].partition("-")
            a = int(a)
            b = int(b) if b else len(data) - 1
            if a >= len(data):
                return self.send(416, b"", {"Content-Range": "bytes */%d" % len(data)}, "text/plain")
            b = min(b, len(data) - 1)
            headers["Content-Range"] = "bytes %d-%d/%d" % (a, b, len(data))
            data, status = data[a:b + 1], 206
        if f and f["kind"] == "truncate" and len(data) > 1:
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        return self.send(status, data, headers, "application/octet-stream")

    def resumable(self, uid, data, f):
        with lock:
            s = sessions.get(uid)
        if s is None:
            return self.error(404, "No such upload session")
        if self.command == "DELETE":
            with lock:
                sessions.pop(uid, None)
            return self.send(499, b"", ctype="text/plain")
        if self.command != "PUT":
            return self.error(405, "method not allowed")
        cr = self.headers.get("Content-Range", "")
        if not cr.startswith("bytes "):
            return self.error(400, "Content-Range required")
        rng, _, total = cr[6:].partition("/")
        total = None if total == "*" else int(total)
        with lock:
            cur = len(s["data"])
            if rng != "*":
                a, _, b = rng.partition("-")
                a, b = int(a), int(b)
                if b - a + 1 != len(data) or a > cur:
                    return self.error(400, "Content-Range does not match the data or skips bytes")
                if total is None and len(data) % CHUNK_UNIT:
                    return self.error(400, "a chunk that is not the last must be a multiple of 256 KiB")
                fresh = data[cur - a:]
                if f and f["kind"] == "short" and total is None and len(fresh) > CHUNK_UNIT:
                    fresh = fresh[:(len(fresh) // CHUNK_UNIT - 1) * CHUNK_UNIT]
                s["data"] += fresh
            cur = len(s["data"])
            if total is not None and cur > total:
                return self.error(400, "more bytes than the total")
        if total is not None and cur == total:
            obj = store(s["bucket"], s["name"], s["data"], s["if_gen"])
            with lock:
                sessions.pop(uid, None)
            if obj is None:
                return self.error(412, "At least one of the pre-conditions you specified did not hold.")
            return self.send(200, meta(s["bucket"], s["name"], obj))
        headers = {"Range": "bytes=0-%d" % (cur - 1)} if cur else {}
        return self.send(308, b"", headers, "text/plain")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--private-key", required=True)
    ap.add_argument("--credentials-out", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--bearer", default="")
    ap.add_argument("--bucket", action="append", default=[])
    ap.add_argument("--page-size", type=int, default=1000)
    ap.add_argument("--client-email", default="deltac-test@deltac-test.iam.gserviceaccount.com")
    a = ap.parse_args()
    pub = a.private_key + ".pub"
    subprocess.run(["openssl", "pkey", "-in", a.private_key, "-pubout", "-out", pub], check=True)
    cfg.update(public_key=pub, client_email=a.client_email, bearer=a.bearer, page_size=max(1, a.page_size))
    for b in a.bucket or ["deltac"]:
        buckets[b] = {}
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    port = srv.server_address[1]
    with open(a.private_key) as f:
        pem = f.read()
    key = {"type": "service_account", "project_id": "deltac-test", "private_key_id": "test",
           "private_key": pem, "client_email": a.client_email, "client_id": "1",
           "token_uri": "http://127.0.0.1:%d/token" % port}
    fd = os.open(a.credentials_out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(key, f, indent=2)
    with open(a.port_file + ".tmp", "w") as f:
        f.write("%d\n" % port)
    os.rename(a.port_file + ".tmp", a.port_file)
    print(port, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
