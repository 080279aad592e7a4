"""Issue 17: the README and docs/ are executable. Every code block runs in a test exactly
as printed: the README's shell and Python blocks top to bottom, in one bash session in a
directory laid out as a fresh clone after the two set-up commands (``.venv/`` and
``examples/`` of this checkout), with each command's exit status checked (0, or the
status its own comment announces: "exit status 1"). An HTML comment before a block says where
else it runs:

* ``<!-- test: ci -->``: the set-up commands, which CI itself runs (``.ci/run``);
* ``<!-- test: frameworks -->``: the adapter lines, run by ``make test-frameworks``
  (tests/adapters_support.py::run_user_lines); here they are compiled;
* ``<!-- test: servers -->``: needs the Oxigraph server; run by ``make test-servers``;
* ``<!-- test: head FILE -->``: the block is the first lines of FILE, which runs here.

docs/cli-reference.md holds ``--help`` output (```text blocks), checked against the
commands by tests/test_docs.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
RUN_LANGS = {"sh", "python", "json"}


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    lang: str
    tag: str  # the <!-- test: ... --> annotation, or ""
    text: str


_FENCE = re.compile(r"^```(\S*)\n(.*?)^```\n", re.S | re.M)
_TAG = re.compile(r"<!-- test: (.+?) -->\n$")


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file, in order; indented code is refused
    by :func:`test_every_code_block_is_fenced_and_tagged`."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in _FENCE.finditer(text):
        before = text[:m.start()]
        tag = _TAG.search(before[-200:])
        out.append(Block(path, before.count("\n") + 1, m.group(1), tag.group(1) if tag else "",
                         m.group(2)))
    return out


def test_every_code_block_is_fenced_and_tagged():
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        assert text.count("```") % 2 == 0, path
        outside = _FENCE.sub("", text)
        indented = [ln for ln in outside.splitlines() if re.match(r"^ {4}\S", ln)
                    and not re.match(r"^ {4}[-*|]", ln)]
        assert not indented, (path, indented)  # indented code would run nowhere
        for b in blocks(path):
            if path.name == "cli-reference.md":
                assert b.lang == "text", (path, b.line)  # generated --help output
            else:
                assert b.lang in RUN_LANGS, (path, b.line, b.lang)


def test_the_set_up_commands_are_what_ci_runs():
    [setup] = [b for b in blocks(ROOT / "README.md") if b.tag == "ci"]
    commands = [ln.split("#", 1)[0].strip() for ln in setup.text.splitlines()]
    assert commands == ["make demo", "make test"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert all(c in ci for c in commands), "CI must run the README's set-up commands"


def test_framework_lines_compile():
    shown = [b for path in DOCS for b in blocks(path) if b.tag == "frameworks"]
    assert len(shown) == 6  # three in the README, one on each framework's page
    for b in shown:
        compile(b.text, f"{b.path}:{b.line}", "exec")


def test_a_head_block_is_the_head_of_its_file():
    heads = [b for path in DOCS for b in blocks(path) if b.tag.startswith("head ")]
    assert heads
    for b in heads:
        lines = (ROOT / b.tag.split(" ", 1)[1]).read_text(encoding="utf-8").splitlines(True)
        assert b.text == "".join(lines[:len(b.text.splitlines())]), (b.path, b.line)


_EXPECT = re.compile(r"#.*\bexit status (\d+)\b")


def session(selected: list[Block]) -> str:
    """One bash script that runs the blocks as printed, each command followed by a check
    of its exit status (0, or what its comment announces); the first failure stops it."""
    out = ["__check() { if [ \"$1\" != \"$2\" ]; then echo \"README.md:$3: exit status $1, "
           "expected $2\" >&2; exit 99; fi; }"]
    for b in selected:
        if b.lang == "python":
            out += [f"python - <<'__README_PYTHON__'", b.text.rstrip("\n"), "__README_PYTHON__",
                    f"__check $? 0 {b.line}"]
            continue
        pending = ""
        for i, line in enumerate(b.text.splitlines(), start=b.line + 1):
            out.append(line)
            code = line.split(" #", 1)[0].strip()
            if not code or code.startswith("#") or code.endswith("\\"):
                continue
            if code.endswith("&"):  # a background job: its status is not waited for
                continue
            m = _EXPECT.search(line)
            out.append(f"__check $? {m.group(1) if m else 0} {i}")
    return "\n".join(out) + "\n"


def _clone(tmp: Path) -> dict[str, str]:
    """A directory shaped like a fresh clone after 'make test' (its .venv and examples are
    this checkout's), and an environment without provgraph on PATH or a store chosen."""
    (tmp / ".venv").symlink_to(VENV)
    (tmp / "examples").symlink_to(ROOT / "examples")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PROVGRAPH_") and k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                  if d and not (Path(d) / "provgraph").exists())
    env["COLUMNS"] = "100"
    return env


def _run(script: str, tmp: Path, env: dict[str, str], timeout: int) -> None:
    (tmp / "readme-session.sh").write_text(script, encoding="utf-8")
    res = subprocess.run(["bash", "readme-session.sh"], cwd=tmp, env=env, capture_output=True,
                         text=True, timeout=timeout)
    assert res.returncode == 0, (res.stderr[-4000:], res.stdout[-2000:])


def test_the_readme_runs_top_to_bottom_as_printed(tmp_path):
    selected = [b for b in blocks(ROOT / "README.md")
                if b.lang in ("sh", "python") and not b.tag]
    assert len(selected) >= 7
    _run(session(selected), tmp_path, _clone(tmp_path), timeout=600)
    assert (tmp_path / ".provgraph" / "rdf").is_dir()  # the default store, as the README says
    assert (tmp_path / "claim.prov.json").stat().st_size > 0


@pytest.mark.servers
def test_the_readme_server_blocks_run_as_printed(tmp_path):
    binary = shutil.which("oxigraph") or (VENV / "bin" / "oxigraph")
    if not Path(binary).exists():
        if os.environ.get("CI") == "true":
            pytest.fail("the oxigraph server is not installed in CI (.ci/run installs it)")
        pytest.skip("needs the Oxigraph server: pip install oxigraph")
    selected = [b for b in blocks(ROOT / "README.md") if b.tag == "servers"]
    assert selected
    env = _clone(tmp_path)
    env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env['PATH']}"  # as after 'source .venv/bin/activate'
    _run(session(selected), tmp_path, env, timeout=300)
