#!/usr/bin/env python3
"""profile-stats.py — how the corpus divides into profiles (issue 26).

Loads every *.cases.json below the corpus directory (default: ./corpus),
merges each file's `defaults` into its cases as the loader does (a field the
case sets replaces the default), and gives every case its profiles: the
explicit `profiles` field when there is one, else the default derived from
gate, tier, category and rules:

  syntax / structure / semantic / policy: required -> [core], optional -> [reasons];
      category `repair` (corpus/repair/): required -> [repair-loop], optional -> [reasons]
  stream: required -> [core]; optional -> [claude-code] when a rule is S0-*, else [reasons]
  loop:   [claude-code]
  wire:   [sdk-transform] when a rule is S4-*, else [claude-code] when a rule is S0-*,
          else [sdk-transform]

Prints, per profile: cases, accept/reject, required/optional, and the cases
per gate; then how many cases carry an explicit field (and how many of those
differ from the default). A case is counted once under each profile it
belongs to, so the per-profile rows add up to more than the corpus.

    python3 scripts/profile-stats.py [CORPUS_DIR]    # the table
    python3 scripts/profile-stats.py --list PROFILE  # the ids of one profile's cases
    python3 scripts/profile-stats.py --explicit      # every explicit field, with the default it replaces

Exit 1 when a case names a profile outside the known five, or a file does not
parse; 0 otherwise. Reads only; needs nothing beyond Python 3."""
import glob
import json
import os
import sys

PROFILES = ["core", "repair-loop", "claude-code", "sdk-transform", "reasons"]
GATES = ["syntax", "structure", "semantic", "policy", "stream", "loop", "wire"]


def default_profiles(case):
    gate = case.get("gate")
    tier = case.get("tier", "required")
    rules = case.get("rules") or []
    s0 = any(r.startswith("S0-") for r in rules)
    s4 = any(r.startswith("S4-") for r in rules)
    if gate in ("syntax", "structure", "semantic", "policy"):
        if case.get("category") == "repair":
            return ["repair-loop"] if tier == "required" else ["reasons"]
        return ["core"] if tier == "required" else ["reasons"]
    if gate == "stream":
        if tier == "required":
            return ["core"]
        return ["claude-code"] if s0 else ["reasons"]
    if gate == "loop":
        return ["claude-code"]
    if gate == "wire":
        if s4:
            return ["sdk-transform"]
        return ["claude-code"] if s0 else ["sdk-transform"]
    return []


def load(root):
    """Yields (file, merged case, explicit profiles or None)."""
    problems = []
    out = []
    for path in sorted(glob.glob(os.path.join(root, "**", "*.cases.json"), recursive=True)):
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            problems.append(f"{path}: {e}")
            continue
        defaults = doc.get("defaults") or {}
        for case in doc.get("cases") or []:
            merged = dict(defaults)
            merged.update(case)
            out.append((path, merged, merged.get("profiles")))
    return out, problems


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    flags = [a for a in argv if a.startswith("--")]
    list_profile = None
    if "--list" in flags:
        if not args:
            print("usage: profile-stats.py --list PROFILE [CORPUS_DIR]", file=sys.stderr)
            return 2
        list_profile = args.pop(0)
    root = args[0] if args else "corpus"
    cases, problems = load(root)
    for p in problems:
        print("problem:", p, file=sys.stderr)
    stats = {p: {"cases": 0, "accept": 0, "reject": 0, "required": 0, "optional": 0,
                 "gates": {g: 0 for g in GATES}} for p in PROFILES}
    explicit = differ = 0
    bad = 0
    for path, case, given in cases:
        derived = default_profiles(case)
        if given is not None:
            explicit += 1
            if sorted(given) != sorted(derived):
                differ += 1
            unknown = [p for p in given if p not in PROFILES]
            if unknown or not given:
                print(f"problem: {path}: {case.get('id')}: profiles {given} (known: {', '.join(PROFILES)})",
                      file=sys.stderr)
                bad += 1
            if "--explicit" in flags:
                print(f"{case.get('id')}\t{','.join(given)}\t(default {','.join(derived)})")
        profiles = given if given is not None else derived
        for p in profiles:
            if p not in stats:
                continue
            s = stats[p]
            s["cases"] += 1
            s["accept" if case.get("expect", {}).get("verdict") == "accept" else "reject"] += 1
            s["optional" if case.get("tier") == "optional" else "required"] += 1
            g = case.get("gate")
            s["gates"][g] = s["gates"].get(g, 0) + 1
            if list_profile == p:
                print(case.get("id"))
    if list_profile is not None or "--explicit" in flags:
        return 1 if (bad or problems) else 0
    head = f"{'profile':<14}{'cases':>6}{'accept':>7}{'reject':>7}{'req':>6}{'opt':>5}  " + \
        "".join(f"{g:>10}" for g in GATES)
    print(head)
    for p in PROFILES:
        s = stats[p]
        print(f"{p:<14}{s['cases']:>6}{s['accept']:>7}{s['reject']:>7}{s['required']:>6}{s['optional']:>5}  " +
              "".join(f"{s['gates'].get(g, 0):>10}" for g in GATES))
    print(f"{len(cases)} cases; {explicit} with an explicit profiles field "
          f"({differ} differ from the derived default)")
    return 1 if (bad or problems) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
