"""The tools: confinement, Bash timeouts that end the process tree, output caps, edit rules,
and the scripted backend's command language."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
import psutil
import pytest

from agent_server.server.backends import ModelRequest, ScriptedBackend, parse_script
from agent_server.server.tools import ToolContext, ToolError, default_tools

pytestmark = pytest.mark.anyio


def ctx_for(root: Path, **kw: object) -> ToolContext:
    return ToolContext(project_dir=root.resolve(), cwd=root.resolve(), **kw)  # type: ignore[arg-type]


async def run(name: str, tool_input: dict[str, object], ctx: ToolContext):  # type: ignore[no-untyped-def]
    tool = default_tools()[name]
    return await tool.run(tool.validate(tool_input), ctx)


async def test_paths_outside_the_project_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("s")
    (root / "link").symlink_to(tmp_path / "secret.txt")
    ctx = ctx_for(root)
    for name, inp in [
        ("Read", {"file_path": "/etc/passwd"}),
        ("Read", {"file_path": "../secret.txt"}),
        ("Read", {"file_path": "link"}),
        ("Write", {"file_path": "/tmp/x", "content": ""}),
        ("Edit", {"file_path": "../secret.txt", "old_string": "s", "new_string": "t"}),
        ("Grep", {"pattern": "s", "path": ".."}),
        ("Glob", {"pattern": "*", "path": "/"}),
    ]:
        with pytest.raises(ToolError, match="outside the project directory"):
            await run(name, inp, ctx)
    with pytest.raises(ToolError, match="must be relative"):
        await run("Glob", {"pattern": "../*"}, ctx)
    extra = ctx_for(root, allowed_dirs=(tmp_path.resolve(),))
    assert (await run("Read", {"file_path": "../secret.txt"}, extra)).content == "     1\ts"
    free = ctx_for(root, confine=False)
    assert (await run("Read", {"file_path": str(tmp_path / "secret.txt")}, free)).ok


async def test_file_tools(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path)
    out = await run("Write", {"file_path": "d/a.txt", "content": "one\ntwo\ntwo\n"}, ctx)
    assert out.content == f"File created successfully at: {tmp_path.resolve()}/d/a.txt"
    assert out.response["type"] == "create"
    read = await run("Read", {"file_path": "d/a.txt", "offset": 2, "limit": 1}, ctx)
    assert read.content == "     2\ttwo" and read.response["file"]["totalLines"] == 3
    with pytest.raises(ToolError, match="Found 2 matches"):
        await run("Edit", {"file_path": "d/a.txt", "old_string": "two", "new_string": "2"}, ctx)
    with pytest.raises(ToolError, match="String to replace not found"):
        await run("Edit", {"file_path": "d/a.txt", "old_string": "zzz", "new_string": "2"}, ctx)
    await run("Edit", {"file_path": "d/a.txt", "old_string": "two", "new_string": "2", "replace_all": True}, ctx)
    assert (tmp_path / "d/a.txt").read_text() == "one\n2\n2\n"
    with pytest.raises(ToolError, match="File does not exist"):
        await run("Read", {"file_path": "nope.txt"}, ctx)
    glob = await run("Glob", {"pattern": "**/*.txt"}, ctx)
    assert glob.response["filenames"] == [str(tmp_path.resolve() / "d/a.txt")]
    grep = await run("Grep", {"pattern": "^2$", "output_mode": "content"}, ctx)
    assert grep.content.splitlines() == [f"{tmp_path.resolve()}/d/a.txt:2:2", f"{tmp_path.resolve()}/d/a.txt:3:2"]
    with pytest.raises(ToolError, match="Invalid regular expression"):
        await run("Grep", {"pattern": "("}, ctx)
    with pytest.raises(
        ToolError, match=r"(?s)InputValidationError: Write failed.*The required parameter `content` is missing"
    ):
        default_tools()["Write"].validate({"file_path": "x"})


async def test_bash_timeout_ends_the_whole_process_tree(tmp_path: Path) -> None:
    ctx = ctx_for(tmp_path, bash_timeout=0.5)
    started = time.monotonic()
    out = await run("Bash", {"command": "sleep 30 & echo $! > child.pid; sleep 30"}, ctx)
    assert time.monotonic() - started < 5
    assert not out.ok and out.interrupted
    assert out.content.startswith("Command timed out after 0.5s")
    child = int((tmp_path / "child.pid").read_text())
    with anyio.fail_after(5):
        while psutil.pid_exists(child) and psutil.Process(child).status() != psutil.STATUS_ZOMBIE:
            await anyio.sleep(0.02)


async def test_bash_output_cap_env_and_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-should-not-leak")
    ctx = ctx_for(tmp_path, output_limit=1000, env={"FROM_ENV_FILE": "yes"}, stripped_env=("ANTHROPIC_API_KEY",))
    out = await run("Bash", {"command": "head -c 5000 /dev/zero | tr '\\0' a"}, ctx)
    assert out.ok and len(out.content) < 1100 and "[output truncated: 4000 more characters]" in out.content
    out = await run("Bash", {"command": 'echo "$FROM_ENV_FILE/${ANTHROPIC_API_KEY:-none}/$CLAUDECODE"'}, ctx)
    assert out.content == "yes/none/1"
    out = await run("Bash", {"command": "exit 4", "timeout": 5000}, ctx)
    assert not out.ok and out.error == "Exit code 4"


async def test_scripted_backend_language() -> None:
    script = parse_script(
        "hello\n$ ls -la\nwrite a.txt\nx\ny\nEOF\nedit a.txt: x => z\n"
        'glob **/*.py\ngrep foo\ntask: $ echo sub\ntool Read {"file_path": "a"}\n'
        "batch:\n$ echo 1\nread b\nend\nbye"
    )
    calls = [[name for name, _ in batch] for batch in script.batches]
    assert calls == [["Bash"], ["Write"], ["Edit"], ["Glob"], ["Grep"], ["Task"], ["Read"], ["Bash", "Read"]]
    assert script.batches[1][0][1]["content"] == "x\ny\n"
    assert script.batches[2][0][1] == {"file_path": "a.txt", "old_string": "x", "new_string": "z"}
    assert script.text == ["hello", "bye"]
    backend = ScriptedBackend()
    tools = [{"name": n} for n in ("Bash", "Read")]
    reply = await backend.respond(ModelRequest("", [{"role": "user", "content": "tool Read {bad"}], tools))
    assert reply.text.startswith("Script error: line 1")
    reply = await backend.respond(ModelRequest("", [{"role": "user", "content": "just text"}], tools))
    assert reply.text == "just text" and reply.stop_reason == "end_turn"


def test_no_tool_process_left_behind() -> None:
    me = psutil.Process(os.getpid())
    assert [
        c
        for c in me.children(recursive=True)
        if c.status() != psutil.STATUS_ZOMBIE and "sleep" in " ".join(c.cmdline())
    ] == []
