#!/usr/bin/env python3
"""A Python adapter that replies with json.dumps' defaults, for suite/test_adapter.c.

Its pipeline is json.loads, which reads 1e999 as float('inf') and accepts
NaN and Infinity; the reply echoes the accepted value with json.dumps'
default allow_nan=True, so it carries Infinity, -Infinity and NaN. The runner
reads those replies (docs/adapter-protocol.md): the accepts are judged (a
syntax case that must be rejected fails as the unsafe accept it is), never
turned into `error`. Capabilities: syntax only.
"""
import base64
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    cmd = request.get("cmd")
    if cmd == "hello":
        reply = {"protocol": 1, "implementation": {"name": "python-nan", "version": "0.1"},
                 "capabilities": ["syntax"]}
    elif cmd == "check":
        raw = base64.b64decode(request["raw_base64"])
        try:
            value = json.loads(raw.decode("utf-8", "surrogateescape"))
            reply = {"seq": request["seq"], "verdict": "accept", "output": value}
        except Exception as error:
            reply = {"seq": request["seq"], "verdict": "reject", "gate": "syntax",
                     "reason": "unexpected_character", "message": "not JSON: %s" % error}
    else:
        break
    sys.stdout.write(json.dumps(reply) + "\n")  # allow_nan=True: Infinity, NaN as Python writes them
    sys.stdout.flush()
