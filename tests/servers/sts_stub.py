#!/usr/bin/env python3
"""A stand-in for AWS STS AssumeRoleWithWebIdentity, on 127.0.0.1, for tests.

    sts_stub.py --port-file FILE --token-file FILE --role-arn ARN
                --access-key K --secret-key S [--session-token T]

POST / (form) with Action=AssumeRoleWithWebIdentity, the expected RoleArn
and WebIdentityToken equal to the token file's content answers with those
credentials (Expiration one hour ahead); anything else gets a 400 or 403
ErrorResponse (InvalidAction, InvalidIdentityToken, AccessDenied). GET /count
says how many exchanges succeeded and failed ("ok N\\nfailed M"). Standard
library only; stop it by its pid.
"""
import argparse
import datetime
import http.server
import os
import sys
import threading
import urllib.parse

ARGS = None
LOCK = threading.Lock()
COUNTS = {"ok": 0, "failed": 0}

OK = """<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <Credentials>
      <AccessKeyId>{ak}</AccessKeyId>
      <SecretAccessKey>{sk}</SecretAccessKey>
      <SessionToken>{st}</SessionToken>
      <Expiration>{exp}</Expiration>
    </Credentials>
  </AssumeRoleWithWebIdentityResult>
</AssumeRoleWithWebIdentityResponse>
"""
ERR = """<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error><Type>Sender</Type><Code>{code}</Code><Message>rejected by the test stub</Message></Error>
</ErrorResponse>
"""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, text, ctype="text/xml"):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with LOCK:
            self.send(200, "ok %d\nfailed %d\n" % (COUNTS["ok"], COUNTS["failed"]), "text/plain")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(n).decode(), keep_blank_values=True)
        get = lambda k: (form.get(k) or [""])[0]
        with open(ARGS.token_file) as f:
            token = f.read().strip()
        code = None
        if get("Action") != "AssumeRoleWithWebIdentity" or not get("Version"):
            status, code = 400, "InvalidAction"
        elif get("WebIdentityToken") != token:
            status, code = 400, "InvalidIdentityToken"
        elif get("RoleArn") != ARGS.role_arn or not get("RoleSessionName"):
            status, code = 403, "AccessDenied"
        with LOCK:
            COUNTS["failed" if code else "ok"] += 1
        if code:
            return self.send(status, ERR.format(code=code))
        exp = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1))
        self.send(200, OK.format(ak=ARGS.access_key, sk=ARGS.secret_key, st=ARGS.session_token,
                                 exp=exp.strftime("%Y-%m-%dT%H:%M:%SZ")))


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--port-file", required=True)
    p.add_argument("--token-file", required=True)
    p.add_argument("--role-arn", required=True)
    p.add_argument("--access-key", required=True)
    p.add_argument("--secret-key", required=True)
    p.add_argument("--session-token", default="")
    ARGS = p.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(tmp, ARGS.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
