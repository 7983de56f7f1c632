#!/usr/bin/env python3
"""run-workflow.py — play one job of a GitHub Actions workflow on this machine
the way a runner does, as scripts/run-action.py plays the Action, so `make
test` exercises the workflow docs/ci.md gives users and not a copy of it
(suite/test_action.c).

    python3 scripts/run-workflow.py --workflow FILE --job NAME --gauntlet DIR
                                    [--event push|pull_request] [--matrix KEY=VALUE]...
                                    [--needs-failed] [--artifacts DIR] [--summary FILE]

FILE is a workflow YAML, or a Markdown file whose first ```yaml block with a
`jobs:` key is the workflow (docs/ci.md). Supported, and nothing else
(anything else is an error, so a step the player cannot run is never
silently skipped): the job's `if:` (always(), success(), failure(), `==`/`!=`
against a quoted string, `&&`; --needs-failed says a job it needs failed) and
`needs`; steps with `run` (bash -eo pipefail), `env`, `if:`, `id` and
`continue-on-error`; `uses:` actions/checkout@v4 (the workspace is the
implementation's checkout; with `repository:` .../gauntlet and `path:`, DIR is
linked there), OWNER/gauntlet@REF (DIR/action.yml played by
scripts/run-action.py with the step's `with` as inputs),
actions/upload-artifact@v4 and actions/download-artifact@v4 (`name:` or
`pattern:`; artifacts are folders of --artifacts), actions/upload-pages-artifact@v3
(the artifact `github-pages`) and actions/deploy-pages@v4 (fails without it).
Expressions: those of run-action.py plus `matrix.X`, `github.event_name`,
`github.token` (a fake token) and `github.repository`. Run steps get
GITHUB_REPOSITORY (GT_WORKFLOW_REPOSITORY, default OWNER/REPO),
GITHUB_EVENT_NAME, GITHUB_WORKSPACE, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY;
the working directory is the current one (the workspace). Prints one `step:
NAME: exit N` line per step (`job: NAME: skipped` when its `if:` is false)
and exits with the job's result: 0, or the exit code of the first failing
step that does not continue on error.
"""
import argparse
import fnmatch
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("run_action", os.path.join(HERE, "run-action.py"))
run_action = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_action)


class Context(run_action.Context):
    def __init__(self, matrix, event, repository):
        super().__init__("", {})
        self.matrix = matrix
        self.event = event
        self.repository = repository

    def value(self, expr):
        expr = expr.strip()
        if expr.startswith("matrix."):
            name = expr[len("matrix."):]
            if name not in self.matrix:
                raise SystemExit(f"run-workflow: no --matrix {name}=VALUE given")
            return self.matrix[name]
        if expr == "github.event_name":
            return self.event
        if expr == "github.token":
            return "gauntlet-fake-token"
        if expr == "github.repository":
            return self.repository
        return super().value(expr)


def load_workflow(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if path.endswith(".md"):
        for block in re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M):
            document = yaml.safe_load(block)
            if isinstance(document, dict) and "jobs" in document:
                return document
        raise SystemExit(f"run-workflow: {path} has no ```yaml block with jobs:")
    return yaml.safe_load(text)


def copy_into(source, target):
    os.makedirs(target, exist_ok=True)
    if os.path.isdir(source):
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        shutil.copy(source, target)


def play_step(step, name, context, args, summary, scratch, index):
    """The step's exit code."""
    uses = str(step.get("uses", ""))
    with_ = {k: context.expand(v) for k, v in (step.get("with") or {}).items()}
    artifacts = args.artifacts
    if "run" in step:
        if step.get("shell", "bash") != "bash":
            raise SystemExit(f"run-workflow: {name}: only shell: bash")
        output = os.path.join(scratch, f"output-{index}")
        open(output, "w").close()
        env = dict(os.environ)
        env.update({k: context.expand(v) for k, v in (step.get("env") or {}).items()})
        env.update(GITHUB_REPOSITORY=context.repository, GITHUB_EVENT_NAME=context.event,
                   GITHUB_WORKSPACE=os.getcwd(), GITHUB_OUTPUT=output, GITHUB_STEP_SUMMARY=summary)
        sys.stdout.flush()
        command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", context.expand(step["run"])]
        code = subprocess.run(command, env=env).returncode
        if "id" in step:
            context.steps[step["id"]] = run_action.read_outputs(output)
        return code
    if uses.startswith("actions/checkout@"):
        repository = with_.get("repository", "")
        if not repository:
            return 0  # the workspace is the implementation's checkout
        if not repository.endswith("/gauntlet") or "path" not in with_:
            raise SystemExit(f"run-workflow: {name}: only a checkout of .../gauntlet into a path")
        link = with_["path"]
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(os.path.abspath(args.gauntlet), link)
        return 0
    if re.fullmatch(r"[A-Za-z0-9_.-]+/gauntlet@\S+", uses):
        command = [sys.executable, os.path.join(HERE, "run-action.py"), "--action",
                   os.path.join(os.path.abspath(args.gauntlet), "action.yml"), "--artifacts", artifacts,
                   "--summary", summary]
        for key, value in with_.items():
            command += ["--input", f"{key}={value}"]
        sys.stdout.flush()
        return subprocess.run(command).returncode
    if uses.startswith("actions/upload-artifact@"):
        source = with_.get("path", "")
        if not os.path.exists(source) or (os.path.isdir(source) and not os.listdir(source)):
            print(f"run-workflow: {name}: nothing at '{source}' to upload")
            return 1 if with_.get("if-no-files-found") == "error" else 0
        copy_into(source, os.path.join(artifacts, with_.get("name", "artifact")))
        return 0
    if uses.startswith("actions/download-artifact@"):
        target = with_.get("path", ".")
        present = sorted(os.listdir(artifacts)) if os.path.isdir(artifacts) else []
        if "name" in with_:
            if with_["name"] not in present:
                print(f"run-workflow: {name}: no artifact named '{with_['name']}'")
                return 1
            copy_into(os.path.join(artifacts, with_["name"]), target)
            return 0
        matches = [a for a in present if fnmatch.fnmatchcase(a, with_.get("pattern", "*"))]
        for artifact in matches:  # several artifacts: one folder each, by name
            copy_into(os.path.join(artifacts, artifact), os.path.join(target, artifact))
        return 0
    if uses.startswith("actions/upload-pages-artifact@"):
        copy_into(with_.get("path", "_site"), os.path.join(artifacts, "github-pages"))
        return 0
    if uses.startswith("actions/deploy-pages@"):
        site = os.path.join(artifacts, "github-pages")
        if not os.path.isdir(site):
            print(f"run-workflow: {name}: no github-pages artifact to deploy")
            return 1
        print(f"run-workflow: {name}: deployed {', '.join(sorted(os.listdir(site)))}")
        return 0
    raise SystemExit(f"run-workflow: {name}: cannot play '{uses}'")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workflow", required=True)
    parser.add_argument("--job", required=True)
    parser.add_argument("--gauntlet", required=True, help="the gauntlet checkout OWNER/gauntlet stands for")
    parser.add_argument("--event", default="push", choices=["push", "pull_request"])
    parser.add_argument("--matrix", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--needs-failed", action="store_true")
    parser.add_argument("--artifacts", default="artifacts")
    parser.add_argument("--summary", default=None)
    args = parser.parse_args()
    args.artifacts = os.path.abspath(args.artifacts)

    workflow = load_workflow(args.workflow)
    jobs = workflow.get("jobs") or {}
    if args.job not in jobs:
        raise SystemExit(f"run-workflow: no job '{args.job}' (jobs: {', '.join(jobs)})")
    job = jobs[args.job]
    matrix = dict(item.partition("=")[::2] for item in args.matrix)
    declared = ((job.get("strategy") or {}).get("matrix") or {})
    for key, value in matrix.items():
        if key not in declared or str(value) not in [str(v) for v in declared[key]]:
            raise SystemExit(f"run-workflow: job '{args.job}' has no matrix value {key}={value}")
    context = Context(matrix, args.event, os.environ.get("GT_WORKFLOW_REPOSITORY", "OWNER/REPO"))
    context.failed = args.needs_failed and bool(job.get("needs"))
    if not context.condition(job.get("if")):
        print(f"job: {args.job}: skipped")
        return 0
    context.failed = False
    scratch = tempfile.mkdtemp(prefix="gt-run-workflow-")
    summary = os.path.abspath(args.summary) if args.summary else os.path.join(scratch, "summary.md")
    result = 0
    try:
        for index, step in enumerate(job.get("steps") or []):
            name = step.get("name", step.get("uses", f"step {index + 1}"))
            if not context.condition(step.get("if")):
                print(f"step: {name}: skipped")
                continue
            code = play_step(step, name, context, args, summary, scratch, index)
            print(f"step: {name}: exit {code}")
            sys.stdout.flush()
            if code != 0 and not step.get("continue-on-error") and not context.failed:
                context.failed = True
                result = code
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return result


if __name__ == "__main__":
    sys.exit(main())
