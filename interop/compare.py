#!/usr/bin/env python3
"""compare.py ACTUAL EXPECTED [--update] -- make interop's assertion.

Every client x scenario line of this run (ACTUAL, JSON lines) is compared with
the outcome kept in the repository (EXPECTED, interop/expected.jsonl), after
dropping what changes from run to run (timings, request ids, ports). Exit 1
on any changed, missing or extra line, or an empty run. --update rewrites
EXPECTED from ACTUAL (a deliberate change, reviewed in the diff).
"""
import json
import re
import sys


def key(outcome):
    return " ".join(str(outcome[k]) for k in ("client", "scenario", "mode") if outcome.get(k) is not None)


def normalise(outcome):
    """The outcome without its volatile parts, as canonical JSON text."""
    rest = {k: v for k, v in outcome.items() if k != "ms"}
    text = json.dumps(rest, ensure_ascii=False, separators=(",", ":"))
    text = re.sub(r"req_gauntlet[0-9a-f]+", "req_gauntlet…", text)
    return re.sub(r"127\.0\.0\.1:[0-9]+", "127.0.0.1:PORT", text)


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.startswith("{")]
    except FileNotFoundError:
        return []


def main(argv):
    if len(argv) < 3:
        print("usage: compare.py ACTUAL EXPECTED [--update]", file=sys.stderr)
        return 2
    actual = read(argv[1])
    if argv[3:] == ["--update"]:
        with open(argv[2], "w", encoding="utf-8") as f:
            f.writelines(normalise(o) + "\n" for o in actual)
        print(f"interop: wrote {len(actual)} expected outcomes to {argv[2]}")
        return 0 if actual else 1
    expected = {key(o): normalise(o) for o in read(argv[2])}
    seen, same, differ = set(), 0, 0
    for outcome in actual:
        k, got = key(outcome), normalise(outcome)
        seen.add(k)
        if k not in expected:
            differ += 1
            print(f"EXTRA   {k}\n  actual:   {got}")
        elif expected[k] != got:
            differ += 1
            print(f"DIFF    {k}\n  expected: {expected[k]}\n  actual:   {got}")
        else:
            same += 1
    for k, want in expected.items():
        if k not in seen:
            differ += 1
            print(f"MISSING {k}\n  expected: {want}")
    hint = " (INTEROP_UPDATE=1 make interop records a deliberate change)" if differ else ""
    print(f"interop: {len(actual)} client x scenario lines, {same} as expected, {differ} differ{hint}")
    return 0 if differ == 0 and actual else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
