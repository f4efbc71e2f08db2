"""Prompt hooks in the engine (contract §11): the pluggable evaluator and the outcome
mapping, including "stops the turn"."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_server.hooks import (
    HookRunner,
    HookStatus,
    PromptReplyError,
    expand_prompt,
    parse_prompt_reply,
)
from agent_server.server.backends.scripted import scripted_prompt_verdict
from tests.support import bash_payload, project

pytestmark = pytest.mark.anyio

PROMPT = "block: rm -rf\nIs this safe? $ARGUMENTS"
PAYLOAD = bash_payload("rm -rf build")


def prompt_hook(prompt: str = PROMPT, **fields: Any) -> dict[str, Any]:
    return {"hooks": [{"type": "prompt", "prompt": prompt, **fields}]}


class Recorder:
    """An evaluator that answers from a list and keeps what it was asked."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, prompt: str, payload: Mapping[str, Any]) -> Mapping[str, Any]:
        self.asked.append((prompt, dict(payload)))
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        result: Mapping[str, Any] = answer
        return result


def runner(path: Path, **kw: Any) -> HookRunner:
    return HookRunner.from_project(path, user_settings=None, **kw)


async def test_ok_false_denies_and_stops_the_turn_on_pre_tool_use(tmp_path: Path) -> None:
    evaluator = Recorder({"ok": False, "reason": "destructive"})
    p = project(tmp_path, {"PreToolUse": [prompt_hook()]})
    async with runner(p, prompt_evaluator=evaluator) as r:
        outcome = await r.fire("PreToolUse", PAYLOAD)
    assert outcome.blocked and outcome.decision == "deny"
    assert outcome.reason == f"[{PROMPT}]: destructive"  # the prompt as configured
    assert not outcome.continue_ and outcome.stop_reason == "destructive"
    [(asked, payload)] = evaluator.asked
    assert asked == PROMPT and payload["tool_input"] == {"command": "rm -rf build"}
    assert payload["hook_event_name"] == "PreToolUse"


async def test_ok_true_has_no_effect(tmp_path: Path) -> None:
    p = project(tmp_path, {"PreToolUse": [prompt_hook()]})
    async with runner(p, prompt_evaluator=Recorder({"ok": True, "reason": ""})) as r:
        outcome = await r.fire("PreToolUse", PAYLOAD)
    assert not outcome.blocked and outcome.continue_ and outcome.decision is None
    assert outcome.hooks[0].status is HookStatus.OK


@pytest.mark.parametrize(
    ("event", "decision", "stops"),
    [
        ("UserPromptSubmit", "block", True),
        ("PostToolUse", "block", True),
        ("Stop", "block", False),  # feedback: the model goes on
        ("SubagentStop", "block", False),
    ],
)
async def test_outcome_mapping_per_event(tmp_path: Path, event: str, decision: str, stops: bool) -> None:
    p = project(tmp_path, {event: [prompt_hook("check $ARGUMENTS")]})
    async with runner(p, prompt_evaluator=Recorder({"ok": False, "reason": "R"})) as r:
        outcome = await r.fire(event, {"session_id": "s"})
    assert outcome.blocked and outcome.decision == decision
    assert outcome.reason == "[check $ARGUMENTS]: R"
    assert outcome.continue_ is not stops
    assert outcome.stop_reason == ("R" if stops else None)


async def test_a_no_on_an_event_that_cannot_block_is_an_error(tmp_path: Path) -> None:
    p = project(tmp_path, {"SessionEnd": [prompt_hook("check $ARGUMENTS")]})
    async with runner(p, prompt_evaluator=Recorder({"ok": False, "reason": "R"})) as r:
        outcome = await r.fire("SessionEnd", {"session_id": "s", "reason": "other"})
    assert not outcome.blocked and outcome.continue_
    assert outcome.hooks[0].status is HookStatus.ERROR and outcome.hooks[0].error == "prompt hook said no: R"


async def test_bad_replies_failures_and_timeouts_fail_open(tmp_path: Path) -> None:
    never = anyio.Event()

    class Slow:
        async def __call__(self, prompt: str, payload: Mapping[str, Any]) -> Mapping[str, Any]:
            await never.wait()
            return {"ok": False, "reason": "late"}

    answers = Recorder(
        {"ok": "yes"},
        {"reason": "no ok"},
        PromptReplyError("the reply is not JSON: 'maybe'"),
        RuntimeError("model down"),
    )
    p = project(tmp_path, {"PreToolUse": [prompt_hook(f"{i} $ARGUMENTS") for i in range(4)]})
    async with runner(p, prompt_evaluator=answers) as r:
        outcome = await r.fire("PreToolUse", PAYLOAD)
    assert not outcome.blocked and outcome.continue_
    assert [h.error for h in outcome.hooks] == [
        "prompt hook reply: \"ok\" must be true or false, got 'yes'",
        'prompt hook reply: "ok" must be true or false, got None',
        "prompt hook reply: the reply is not JSON: 'maybe'",
        "prompt hook evaluation failed: RuntimeError: model down",
    ]
    p = project(tmp_path, {"PreToolUse": [prompt_hook(timeout=0.2)]})
    async with runner(p, prompt_evaluator=Slow()) as r:
        outcome = await r.fire("PreToolUse", PAYLOAD)
    never.set()
    assert outcome.hooks[0].status is HookStatus.TIMEOUT and not outcome.blocked


async def test_without_an_evaluator_the_hook_fails_open_or_closed(tmp_path: Path) -> None:
    p = project(tmp_path, {"PreToolUse": [prompt_hook(), prompt_hook("strict $ARGUMENTS", onFailure="block")]})
    async with runner(p) as r:
        outcome = await r.fire("PreToolUse", PAYLOAD)
    first, second = outcome.hooks
    assert first.status is HookStatus.ERROR and "no prompt evaluator" in (first.error or "")
    assert outcome.blocked
    assert outcome.reason == (
        '[strict $ARGUMENTS]: failed; blocking because onFailure is "block"\n' + (second.error or "")
    )


async def test_the_scripted_verdict_is_deterministic() -> None:
    assert scripted_prompt_verdict(PROMPT, PAYLOAD) == {"ok": False, "reason": 'the event contains "rm -rf"'}
    safe = {**PAYLOAD, "tool_input": {"command": "ls"}}
    assert scripted_prompt_verdict(PROMPT, safe) == {"ok": True, "reason": "no block: line matches the event"}
    assert scripted_prompt_verdict('reply: {"ok": false, "reason": "said so"}', safe) == {
        "ok": False,
        "reason": "said so",
    }
    with pytest.raises(PromptReplyError, match="not JSON"):
        scripted_prompt_verdict("reply: maybe", safe)


def test_expand_and_parse() -> None:
    text = expand_prompt("Check: $ARGUMENTS.", {"a": 1, "b": "x"})
    assert text == 'Check: {"a":1,"b":"x"}.'
    assert parse_prompt_reply(' {"ok": true, "reason": "fine"} ') == {"ok": True, "reason": "fine"}
    with pytest.raises(PromptReplyError, match="not a JSON object"):
        parse_prompt_reply("[true]")
