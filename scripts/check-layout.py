#!/usr/bin/env python3
"""check-layout.py — the include graph against docs/architecture.md.

Reads the room table of docs/architecture.md (between the `layout-table`
markers): each room owns some folders and headers and may include a list of
other rooms (`room`, or `room:header.h` for one header of it, `*` for any).
Then every tracked C file's `#include "..."` lines are resolved (the
including file's folder, then include/, then the repository root, as the
Makefile's -I flags do) and each edge from one room into another must be
allowed. Also fails when a file belongs to no room, an include resolves to
nothing, or the allowed-direction table itself has a cycle (two rooms that
may include each other, directly or around a loop).

    python3 scripts/check-layout.py             # check the tree; exit 1 on a violation
    python3 scripts/check-layout.py --self-test # prove the check fails on planted violations

Prints one line per violation and a last line "layout: ok (N files, N includes)"
or "layout: N violation(s)". Not for: symbols (a link-level dependency such
as lazy_net.c's libcurl stand-ins is not an include and is not checked)."""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- layout-table:begin -->", "<!-- layout-table:end -->"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_table(doc):
    """{room: (owned paths, allowed entries)} from the markdown table."""
    text = open(doc, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"layout: {doc} has no {BEGIN} ... {END} table")
    rooms = {}
    for line in text[text.index(BEGIN):text.index(END)].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        name = cells[0].strip("`")
        owns = re.findall(r"`([^`]+)`", cells[1])
        allowed = re.findall(r"`([^`]+)`", cells[2])
        rooms[name] = (owns, allowed)
    if not rooms:
        raise SystemExit(f"layout: the table in {doc} names no room")
    return rooms


def room_of(path, rooms):
    """The room owning `path`: the longest match among its folders (`x/`: the
    files directly in x; `x/**`: everything below x) and file patterns."""
    best, best_len = None, -1
    for name, (owns, _) in rooms.items():
        for own in owns:
            if own.endswith("/**"):
                hit = path.startswith(own[:-2])
            elif own.endswith("/"):
                hit = path.startswith(own) and "/" not in path[len(own):]
            elif "*" in own:
                hit = re.fullmatch(re.escape(own).replace(r"\*", "[^/]*"), path) is not None
            else:
                hit = path == own
            if hit and len(own) > best_len:
                best, best_len = name, len(own)
    return best


def cycles(rooms):
    """Pairs (a, b) where a may reach b and b may reach a through the table."""
    edges = {r: {a.split(":")[0] for a in allowed if a != "*" and a.split(":")[0] != r}
             for r, (_, allowed) in rooms.items()}
    found = []
    for start in edges:
        seen, todo = set(), list(edges[start])
        while todo:
            r = todo.pop()
            if r == start:
                found.append(start)
                break
            if r in seen or r not in edges:
                continue
            seen.add(r)
            todo.extend(edges[r])
    return found


def resolve(including, name, exists):
    for base in (os.path.dirname(including), "include", ""):
        candidate = os.path.normpath(os.path.join(base, name))
        if exists(candidate):
            return candidate
    return None


def check(files, read, exists, rooms):
    """Violations (list of text lines) and the number of includes seen."""
    problems = [f"table: room '{r}' is in a cycle of rooms that may include each other" for r in cycles(rooms)]
    for r, (_, allowed) in rooms.items():
        for a in allowed:
            if a != "*" and a.split(":")[0] not in rooms:
                problems.append(f"table: room '{r}' may include unknown room '{a}'")
    seen = 0
    for path in files:
        src = room_of(path, rooms)
        if src is None:
            problems.append(f"{path}: in no room of docs/architecture.md (add its folder to the table)")
            continue
        allowed = rooms[src][1]
        for number, line in enumerate(read(path).splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            seen += 1
            target = resolve(path, m.group(1), exists)
            if target is None:
                problems.append(f"{path}:{number}: #include \"{m.group(1)}\" resolves to no file")
                continue
            dst = room_of(target, rooms)
            if dst is None:
                problems.append(f"{path}:{number}: {target} is in no room")
            elif dst != src and "*" not in allowed and dst not in allowed \
                    and f"{dst}:{os.path.basename(target)}" not in allowed:
                problems.append(f"{path}:{number}: {src} may not include {target} (room {dst}); "
                                f"{src} may include: {', '.join(allowed) or 'nothing'}")
    return problems, seen


def tracked():
    out = subprocess.run(["git", "ls-files", "*.c", "*.h"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [f for f in out.stdout.split() if os.path.exists(os.path.join(ROOT, f))]


def main_check():
    rooms = read_table(os.path.join(ROOT, "docs", "architecture.md"))
    files = tracked()
    problems, seen = check(files, lambda p: open(os.path.join(ROOT, p), encoding="utf-8", errors="replace").read(),
                           lambda p: os.path.isfile(os.path.join(ROOT, p)), rooms)
    for p in problems:
        print(f"layout: {p}")
    if problems:
        print(f"layout: {len(problems)} violation(s)")
        return 1
    print(f"layout: ok ({len(files)} files, {seen} includes)")
    return 0


def self_test():
    """The real table on the real tree plus one planted file per kind of
    violation: each must be reported, and the clean tree must pass."""
    rooms = read_table(os.path.join(ROOT, "docs", "architecture.md"))
    real = tracked()
    texts = {}
    read = lambda p: texts[p] if p in texts else open(os.path.join(ROOT, p), encoding="utf-8", errors="replace").read()
    exists = lambda p: p in texts or os.path.isfile(os.path.join(ROOT, p))
    failures = 0
    clean, _ = check(real, read, exists, rooms)
    if clean:
        print("layout self-test: FAIL: the tree itself has violations")
        failures += 1
    plants = {
        "reference/planted.c": '#include "runner/smoke.h"\n',                       # library reaching up
        "reports/planted.c": '#include "gauntlet/runner/run.h"\n',                  # reports on the scheduler
        "mocks/planted.c": '#include "runner/cli/cli_io.h"\n',                      # mocks on the CLI
        "runner/planted.c": '#include "runner/targets/target_adapter.h"\n',         # engine on a target
        "runner/targets/planted.c": '#include "runner/cli/commands.h"\n',           # target on the CLI
        "reference/planted2.c": '#include "no/such/header.h"\n',                    # unresolved
        "newroom/planted.c": '#include "gauntlet/parse.h"\n',                       # folder in no room
    }
    for path, text in plants.items():
        texts[path] = text
        found, _ = check(real + [path], read, exists, rooms)
        del texts[path]
        if not any(p.startswith(path) for p in found):
            print(f"layout self-test: FAIL: planted {path} ({text.strip()}) was not reported")
            failures += 1
    looped = dict(rooms)
    looped["reference"] = (rooms["reference"][0], rooms["reference"][1] + ["runner"])
    if not any("cycle" in p for p in check([], read, exists, looped)[0]):
        print("layout self-test: FAIL: a cycle in the table (reference may include runner) was not reported")
        failures += 1
    print(f"layout self-test: {'ok' if failures == 0 else f'{failures} failure(s)'} "
          f"({len(plants)} planted violations and a table cycle)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(self_test() if "--self-test" in sys.argv[1:] else main_check())
