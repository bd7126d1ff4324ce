#!/usr/bin/env python3
"""Copy a local folder into the GCS test server: every file of SRC becomes
object PREFIX/<relative path> of bucket BUCKET, through the JSON API's media
upload on one kept-alive connection, with the bearer token from
GCS_TEST_BEARER_TOKEN. For tests/storage/gcs_server.sh (stdlib only).

Usage: gcs_upload.py ENDPOINT BUCKET SRC PREFIX"""
import http.client
import os
import sys
import urllib.parse


def main():
    endpoint, bucket, src, prefix = sys.argv[1:5]
    u = urllib.parse.urlsplit(endpoint)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    auth = {"Authorization": "Bearer " + os.environ["GCS_TEST_BEARER_TOKEN"],
            "Content-Type": "application/octet-stream"}
    n = 0
    for root, _, files in os.walk(src):
        for f in sorted(files):
            path = os.path.join(root, f)
            name = prefix.rstrip("/") + "/" + os.path.relpath(path, src)
            with open(path, "rb") as fh:
                data = fh.read()
            url = "/upload/storage/v1/b/%s/o?uploadType=media&name=%s" % (
                urllib.parse.quote(bucket, safe=""), urllib.parse.quote(name, safe=""))
            conn.request("POST", url, body=data, headers=auth)
            r = conn.getresponse()
            r.read()
            if r.status != 200:
                print("upload %s: HTTP %d" % (name, r.status), file=sys.stderr)
                return 1
            n += 1
    print("%d files" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
