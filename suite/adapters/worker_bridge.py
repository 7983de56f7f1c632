#!/usr/bin/env python3
"""worker_bridge.py CMD: a persistent client for `--target http-worker:...`
(docs/adapter-protocol.md, "Persistent clients") that serves each case by
running the one-shot http client CMD with the case's environment and
answering its exit status and stdout. The tests use it to show that a
worker gives the verdicts one process per case gives (suite/test_http_target.c)."""
import json
import os
import subprocess
import sys

command = sys.argv[1]
for line in sys.stdin:
    request = json.loads(line)
    env = dict(os.environ)
    env.pop("GAUNTLET_HTTP_WORKER", None)
    env.update(request["env"])
    done = subprocess.run(["/bin/sh", "-c", command], env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, check=False)
    status = done.returncode if done.returncode >= 0 else 128 - done.returncode
    sys.stdout.write(json.dumps({"status": status, "stdout": done.stdout.decode("utf-8", "replace")}) + "\n")
    sys.stdout.flush()
