#!/usr/bin/env python3
"""A deliberately lax "library" for the http target's tests: one model call in
the answer form named by argv[1], no validation, no retries.

  forced-tool   Anthropic Messages, tool "extract" forced with tool_choice
  forced-tool-no-enum  the same, its schema sent without any "enum" (a converter that drops them)
  responses     OpenAI Responses API, text.format json_schema (strict)

It reads the environment the http target gives (docs/adapter-protocol.md),
prints the result envelope with whatever object arrived, or is_error."""
import json
import os
import sys
import urllib.request


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def without_enums(value):
    if isinstance(value, dict):
        return {key: without_enums(item) for key, item in value.items() if key != "enum"}
    if isinstance(value, list):
        return [without_enums(item) for item in value]
    return value


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "forced-tool"
    schema = json.loads(os.environ.get("GAUNTLET_JSON_SCHEMA") or "{}")
    prompt = os.environ.get("GAUNTLET_PROMPT", "")
    if mode == "forced-tool-no-enum":
        schema = without_enums(schema)
    try:
        if mode == "responses":
            reply = post(os.environ["OPENAI_BASE_URL"] + "/responses", {
                "model": "gpt-x", "input": prompt,
                "text": {"format": {"type": "json_schema", "name": "answer", "strict": True, "schema": schema}}})
            texts = [part["text"] for item in reply.get("output", []) if item.get("type") == "message"
                     for part in item.get("content", []) if part.get("type") == "output_text"]
            value = json.loads("".join(texts))
        else:
            reply = post(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", {
                "model": "claude-x", "max_tokens": 1024, "messages": [{"role": "user", "content": prompt}],
                "tools": [{"name": "extract", "input_schema": schema}],
                "tool_choice": {"type": "tool", "name": "extract"}})
            calls = [block for block in reply.get("content", []) if block.get("type") == "tool_use"]
            value = calls[0]["input"]
    except Exception as error:  # the library's error, as the envelope says
        print(json.dumps({"type": "result", "subtype": "error_during_execution", "is_error": True,
                          "result": "%s: %s" % (type(error).__name__, error)}))
        return
    print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "structured_output": value}))


main()
