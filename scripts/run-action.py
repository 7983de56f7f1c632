#!/usr/bin/env python3
"""run-action.py — play the steps of a composite GitHub Action (action.yml) on
this machine the way a runner does, so `make test` exercises the action
itself and not a copy of it (suite/test_action.c).

    python3 scripts/run-action.py [--action action.yml] [--input NAME=VALUE]...
                                  [--artifacts DIR] [--summary FILE]

Supported, and nothing else (anything else is an error, so a step the
player cannot run is never silently skipped): `run` steps with `shell: bash`
and `env`; `uses: actions/upload-artifact@v4` (copies `with.path` to
DIR/<name>); `if:` with always(), success(), failure(), `==`/`!=` against a
quoted string, `&&`; expressions `${{ inputs.X }}`, `${{ github.action_path }}`,
`${{ steps.ID.outputs.X }}`. A run step gets GITHUB_ACTION_PATH,
GITHUB_OUTPUT and GITHUB_STEP_SUMMARY. The working directory is the
workspace. Prints one `step: NAME: exit N` line per step, then the action's
outputs as `output NAME=VALUE`, and exits with the action's result: 0, or
the exit code of the first failing step.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Context:
    def __init__(self, action_path, inputs):
        self.action_path = action_path
        self.inputs = inputs
        self.steps = {}
        self.failed = False

    def value(self, expr):
        expr = expr.strip()
        if expr.startswith("inputs."):
            name = expr[len("inputs."):]
            if name not in self.inputs:
                raise SystemExit(f"run-action: unknown input '{name}'")
            return self.inputs[name]
        if expr == "github.action_path":
            return self.action_path
        match = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", expr)
        if match:
            return self.steps.get(match.group(1), {}).get(match.group(2), "")
        match = re.fullmatch(r"'(.*)'", expr)
        if match:
            return match.group(1)
        raise SystemExit(f"run-action: unsupported expression '{expr}'")

    def condition(self, expr):
        if expr is None:
            return not self.failed
        expr = EXPRESSION.sub(lambda m: m.group(1), str(expr)).strip()
        result = True
        for term in expr.split("&&"):
            term = term.strip()
            if term == "always()":
                continue
            if term == "success()":
                result = result and not self.failed
                continue
            if term == "failure()":
                result = result and self.failed
                continue
            match = re.fullmatch(r"(.+?)\s*(==|!=)\s*('.*')", term)
            if not match:
                raise SystemExit(f"run-action: unsupported condition '{term}'")
            equal = self.value(match.group(1)) == self.value(match.group(3))
            result = result and (equal if match.group(2) == "==" else not equal)
        # a condition without a status function implies success()
        if "always()" not in expr and "failure()" not in expr and "success()" not in expr:
            result = result and not self.failed
        return result

    def expand(self, text):
        return EXPRESSION.sub(lambda m: str(self.value(m.group(1))), str(text))


def read_outputs(path):
    outputs = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if "=" in line:
                name, value = line.rstrip("\n").split("=", 1)
                outputs[name] = value
    return outputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--action", default="action.yml")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--artifacts", default=None)
    parser.add_argument("--summary", default=None)
    args = parser.parse_args()

    action_file = os.path.abspath(args.action)
    with open(action_file, encoding="utf-8") as handle:
        action = yaml.safe_load(handle)
    runs = action.get("runs", {})
    if runs.get("using") != "composite":
        raise SystemExit("run-action: only composite actions")
    inputs = {name: str(spec.get("default", "")) for name, spec in (action.get("inputs") or {}).items()}
    for item in args.input:
        name, _, value = item.partition("=")
        if name not in inputs:
            raise SystemExit(f"run-action: action.yml has no input '{name}'")
        inputs[name] = value
    context = Context(os.path.dirname(action_file), inputs)
    scratch = tempfile.mkdtemp(prefix="gt-run-action-")
    summary = args.summary or os.path.join(scratch, "summary.md")
    artifacts = args.artifacts or os.path.join(scratch, "artifacts")
    result = 0
    try:
        for index, step in enumerate(runs.get("steps", [])):
            name = step.get("name", f"step {index + 1}")
            if not context.condition(step.get("if")):
                print(f"step: {name}: skipped")
                continue
            if "run" in step:
                if step.get("shell") != "bash":
                    raise SystemExit(f"run-action: {name}: only shell: bash")
                output = os.path.join(scratch, f"output-{index}")
                open(output, "w").close()
                env = dict(os.environ)
                env.update({k: context.expand(v) for k, v in (step.get("env") or {}).items()})
                env.update(GITHUB_ACTION_PATH=context.action_path, GITHUB_OUTPUT=output,
                           GITHUB_STEP_SUMMARY=summary)
                sys.stdout.flush()
                code = subprocess.run(["bash", "-e", "-c", context.expand(step["run"])], env=env).returncode
                if "id" in step:
                    context.steps[step["id"]] = read_outputs(output)
            elif str(step.get("uses", "")).startswith("actions/upload-artifact@"):
                with_ = {k: context.expand(v) for k, v in (step.get("with") or {}).items()}
                source = with_.get("path", "")
                code = 0
                if not os.path.exists(source) or (os.path.isdir(source) and not os.listdir(source)):
                    print(f"run-action: {name}: nothing at '{source}' to upload")
                    code = 1 if with_.get("if-no-files-found") == "error" else 0
                else:
                    target = os.path.join(artifacts, with_.get("name", "artifact"))
                    if os.path.isdir(source):
                        shutil.copytree(source, target, dirs_exist_ok=True)
                    else:
                        os.makedirs(target, exist_ok=True)
                        shutil.copy(source, target)
            else:
                raise SystemExit(f"run-action: {name}: cannot play '{step.get('uses')}'")
            print(f"step: {name}: exit {code}")
            if code != 0 and not context.failed:
                context.failed = True
                result = code
        for name, spec in (action.get("outputs") or {}).items():
            print(f"output {name}={context.expand(spec.get('value', ''))}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return result


if __name__ == "__main__":
    sys.exit(main())
