#!/usr/bin/env python3
"""An adapter written the obvious Python way, for suite/test_adapter.c.

Every reply goes out through json.dumps, which writes "\\u0000" for a NUL
and "\\ud800" for a lone surrogate (Python strings may hold either; its
json.loads accepts both). A correct runner reads those replies as the valid
JSON they are: the verdicts may be wrong (this pipeline is lax on purpose), but
no reply is an `error`. Capabilities: syntax only.
"""
import base64
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    cmd = request.get("cmd")
    if cmd == "hello":
        reply = {"protocol": 1,
                 "implementation": {"name": "json-dumps\u0000adapter", "version": "\ud800"},
                 "capabilities": ["syntax"]}
    elif cmd == "check":
        raw = base64.b64decode(request["raw_base64"])
        try:
            # lax: NaN, lone surrogates and NUL escapes all load
            value = json.loads(raw.decode("utf-8", "surrogateescape"))
            reply = {"seq": request["seq"], "verdict": "accept", "output": value,
                     "message": "echo of %r\u0000\udc80" % (request.get("raw") or "")[:40],
                     # an integer of any size where the protocol takes any JSON (accounting
                     # figures must be 0..INT_MAX: a larger one is a protocol error)
                     "trace": {"big": 10 ** 30}}
        except Exception as error:  # a rejection that quotes the input
            reply = {"seq": request["seq"], "verdict": "reject", "gate": "syntax",
                     "reason": "unexpected_character", "message": str(error) + "\u0000\ud800",
                     "errors": [{"path": "", "keyword": "\udfff", "message": repr(raw)}]}
    else:
        break
    try:  # NaN and Infinity are not JSON: allow_nan=False refuses to write them
        text = json.dumps(reply, allow_nan=False)
    except ValueError:
        del reply["output"]
        text = json.dumps(reply, allow_nan=False)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
