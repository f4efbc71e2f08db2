"""Do not let the agent finish while the project's tests fail.

Hook: tests_before_stop
Event: Stop
Matcher: *
Description: Runs the project's test command and blocks Stop ({"decision": "block"}) with
    the failure tail when it fails or times out, so the agent keeps working. The command is
    $TESTS_BEFORE_STOP_CMD (run with /bin/sh -c) or detected: pytest (pyproject.toml/
    setup.py/setup.cfg/pytest.ini/tox.ini with tests, or a tests/ folder), `npm test`
    (package.json with a real test script), `cargo test` (Cargo.toml), `go test ./...`
    (go.mod), `make test` (Makefile with a test target). Timeout: $TESTS_BEFORE_STOP_TIMEOUT
    seconds (default 300). It blocks again on every Stop while tests fail; the host caps
    repeated blocks. A missing test tool only adds a systemMessage. Bypass: create the
    marker file .skip-tests in the project directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.dirname(_HERE), _HERE):  # hooks/ (for _common) and this folder
    if _path not in sys.path:
        sys.path.insert(0, _path)

import _common  # noqa: E402

NAME = "tests_before_stop"
EVENTS = frozenset({"Stop"})
MATCHER = "*"
MARKER = ".skip-tests"
DEFAULT_TIMEOUT = 300.0
PY_CONFIGS = ("pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini")
NPM_PLACEHOLDER = "no test specified"


def _exists(project: str, *names: str) -> bool:
    return any(os.path.exists(os.path.join(project, n)) for n in names)


def _has_python_tests(project: str) -> bool:
    for folder in ("tests", "test"):
        if os.path.isdir(os.path.join(project, folder)):
            return True
    try:
        return any(re.fullmatch(r"test_.*\.py|.*_test\.py", n) for n in os.listdir(project))
    except OSError:
        return False


def detect(project: str) -> list[str] | None:
    """The test command for ``project`` as an argument list, or None if none is found."""
    if _has_python_tests(project) and (_exists(project, *PY_CONFIGS) or os.path.isdir(os.path.join(project, "tests"))):
        venv = os.path.join(project, ".venv", "bin", "python")
        python = venv if os.path.exists(venv) else sys.executable
        return [python, "-m", "pytest", "-q"]
    package = _common.read_text(os.path.join(project, "package.json"))
    if package:
        try:
            scripts = json.loads(package).get("scripts") or {}
        except (ValueError, AttributeError):
            scripts = {}
        test = scripts.get("test") if isinstance(scripts, dict) else None
        if isinstance(test, str) and test.strip() and NPM_PLACEHOLDER not in test:
            return ["npm", "test", "--silent"]
    if _exists(project, "Cargo.toml"):
        return ["cargo", "test", "--quiet"]
    if _exists(project, "go.mod"):
        return ["go", "test", "./..."]
    for name in ("Makefile", "makefile", "GNUmakefile"):
        text = _common.read_text(os.path.join(project, name))
        if text and re.search(r"^test\s*:", text, re.M):
            return ["make", "test"]
    return None


def run_tests(argv: list[str], cwd: str, timeout: float) -> tuple[int | None, str, bool]:
    """Run ``argv``; (exit code or None if it could not start, output, timed out).

    The command gets its own process group so a timeout kills its children too.
    """
    import signal
    import subprocess

    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,
        )
    except OSError as exc:
        return None, str(exc), False
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out, False
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):  # already gone
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            out, _ = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a grandchild left its own group holding the pipe
            out = ""
        return proc.returncode, out or "", True


def run(payload: _common.Payload) -> _common.Result:
    """Block Stop while the tests fail."""
    project = _common.project_dir(payload)
    if _common.marker_exists(project, MARKER):
        return None
    override = os.environ.get("TESTS_BEFORE_STOP_CMD", "").strip()
    argv = ["/bin/sh", "-c", override] if override else detect(project)
    if argv is None:
        return None
    shown = override or " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(argv))
    try:
        timeout = float(os.environ.get("TESTS_BEFORE_STOP_TIMEOUT", "") or DEFAULT_TIMEOUT)
    except ValueError:
        timeout = DEFAULT_TIMEOUT
    code, output, timed_out = run_tests(argv, project, timeout)
    if code is None:
        return {"systemMessage": f"[{NAME}] could not run `{shown}`: {output}"}
    bypass = (
        f"If the failures are expected, create the marker file {MARKER} in the project "
        f"directory (`touch {MARKER}`) to skip this check."
    )
    if timed_out:
        return {
            "decision": "block",
            "reason": f"[{NAME}] The tests (`{shown}`) did not finish within {timeout:g} s. "
            f"Make them faster or fix the hang before finishing. {bypass}\n\n"
            f"Last output:\n{_common.tail(output)}",
        }
    if code != 0:
        return {
            "decision": "block",
            "reason": f"[{NAME}] The tests fail (`{shown}` exited {code}). Fix them before "
            f"finishing. {bypass}\n\nLast output:\n{_common.tail(output)}",
        }
    return None


if __name__ == "__main__":
    _common.main(run)
