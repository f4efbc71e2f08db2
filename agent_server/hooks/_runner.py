"""The HookRunner: fire an event, run the hooks that apply, combine their results."""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
import traceback
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

import anyio
import anyio.abc

from .._proc import ProcessResult, disable_orphan_reaping, enable_orphan_reaping, run_process
from ._config import HookConfig, OrderMode, load_config
from ._errors import HookError, RunnerClosedError
from ._forkserver import ForkServers
from ._genesis import run_builtin
from ._http import HttpHookClient
from ._json import compact_encoder
from ._ledger import HookLedger
from ._matching import why_not
from ._outcome import (
    BLOCKING_DECISIONS,
    EventOutcome,
    HookResult,
    HookStatus,
    failed_result,
    interpret_output,
    is_blocking_event,
    timeout_result,
)
from ._pool import DEFAULT_PYTHON_WORKERS, PythonWorkerPool
from ._prompt import PromptEvaluator, run_prompt_hook
from ._spec import DEFAULT_TIMEOUTS, HookCallback, HookSpec, unique_name
from ._tracing import HookTelemetry
from ._trust import HookTrust, TrustPolicy, default_trust_policy

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

__all__ = ["DEFAULT_STRIPPED_ENV", "HookRunner", "parse_env_file"]

log = logging.getLogger("agent_server.hooks")

#: The server's own model credentials never reach hook processes.
DEFAULT_STRIPPED_ENV = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "AGENT_SERVER_ANTHROPIC_API_KEY",
    "AGENT_SERVER_API_TOKEN",
)
# Linux caps one environment string at 128 KiB; stay well below it.
_MAX_ENV_PAYLOAD = 100_000
# The payload as hooks get it on stdin (json.dumps with these options, built once).
_payload_json = compact_encoder(default=str)


def parse_env_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read ``export NAME=value`` lines that a SessionStart hook wrote to CLAUDE_ENV_FILE."""
    import shlex

    values: dict[str, str] = {}
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return values
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("export "):
            line = line[len("export ") :].strip()
        name, sep, raw = line.partition("=")
        if not sep or not name.replace("_", "a").isalnum() or name[0].isdigit():
            continue
        try:
            words = shlex.split(raw)
        except ValueError:
            words = [raw]
        values[name] = " ".join(words)
    return values


class HookRunner:
    """Runs configured hooks at each event and returns one combined :class:`EventOutcome`.

    Use it as an async context manager (it owns background ``async: true`` hooks and
    ends them when it closes)::

        async with HookRunner.from_project(".") as runner:
            outcome = await runner.fire("PreToolUse", payload)
            if outcome.blocked: ...

    ``trust`` decides which hooks from the project's own files (``.claude/settings.json``,
    ``.claude/settings.local.json``, ``.mentu/genesis.key``) may run: ``"store"`` runs
    those the user trusted (``agent-server hooks trust``; content-addressed, see
    :class:`HookTrust`), ``"all"`` runs every hook. The default (None) is ``"all"`` when
    ``AGENT_SERVER_TRUST_ALL_HOOKS=1``, else ``"store"``. An untrusted hook is ``skipped``
    with the reason ``untrusted: run 'agent-server hooks trust'``. User, managed and
    in-process hooks are always trusted. ``runner.trust`` is the :class:`HookTrust` in use
    (list, trust and untrust through it).

    ``ledger``: a :class:`HookLedger`, a SQLite path or ``postgresql://`` URL, or True
    (``<project>/.agent-server/hooks.db``) records every fired event.
    ``ledger_tool_input``: a redactor (text in, text out); when given, each record carries
    the event's ``tool_input`` as JSON passed through it (the server passes the shipped
    secrets hook's ``redact``). Without it the ledger never holds tool input.
    """

    def __init__(
        self,
        config: HookConfig | None = None,
        *,
        project_dir: str | os.PathLike[str] | None = None,
        max_processes: int = 16,
        output_limit: int = 1 << 20,
        kill_grace: float = 1.5,
        env: Mapping[str, str] | None = None,
        strip_env: tuple[str, ...] = DEFAULT_STRIPPED_ENV,
        reap_orphans: bool = True,
        debug: bool | None = None,
        python_workers: int | None = None,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        ledger: HookLedger | str | os.PathLike[str] | bool | None = None,
        ledger_tool_input: Callable[[str], str] | None = None,
        trust: TrustPolicy | HookTrust | None = None,
        prompt_evaluator: PromptEvaluator | None = None,
    ) -> None:
        if config is None:
            config = HookConfig(project_dir=Path(project_dir or os.getcwd()).resolve())
        self.config = config
        # Hooks from the project's own files run only once trusted (docs/server.md
        # "Security model"); None: "all" under AGENT_SERVER_TRUST_ALL_HOOKS=1, else "store".
        if isinstance(trust, HookTrust):
            self.trust = trust
        else:
            self.trust = HookTrust(config, trust or default_trust_policy())
        self.project_dir = config.project_dir
        self.output_limit = output_limit
        self.kill_grace = kill_grace
        self.debug = os.environ.get("HOOK_DEBUG") == "1" if debug is None else debug
        self.evidence: deque[dict[str, Any]] = deque(maxlen=1000)
        self._limiter = anyio.CapacityLimiter(max_processes)
        self._reap_orphans = reap_orphans
        self._reaping = False
        base = dict(os.environ if env is None else env)
        for name in strip_env:
            base.pop(name, None)
        self._base_env = base
        #: Answers ``prompt`` hooks (docs: "Prompt hooks"); None makes them fail open.
        self.prompt_evaluator = prompt_evaluator
        # One connection pool for every http hook of this runner, closed with it.
        self._http = HttpHookClient(env=base, body_limit=output_limit)
        self._tg: anyio.abc.TaskGroup | None = None
        self._closed = False
        self._env_dir: str | None = None
        self._callbacks: dict[str, list[HookSpec]] = {}
        # Observability (docs/observability.md): spans + metrics, and the audit ledger.
        self._telemetry = HookTelemetry(tracer_provider, meter_provider)
        self.ledger, self._owns_ledger = HookLedger.for_runner(ledger, self.project_dir)
        self._redact_tool_input = ledger_tool_input
        # Warm Python hooks (docs/python-hooks.md): the argument wins over the settings'
        # "hookRunner.pythonWorkers"; 0 runs every Python hook cold.
        if python_workers is None:
            python_workers = config.python_workers
        workers = DEFAULT_PYTHON_WORKERS if python_workers is None else python_workers
        self._pool: PythonWorkerPool | None = (
            PythonWorkerPool(
                size=workers,
                env=base,
                cwd=self.project_dir,
                output_limit=output_limit,
                grace=kill_grace,
            )
            if workers > 0
            else None
        )
        # Plain `python3 script.py` command hooks run forked from a warm interpreter
        # (docs/python-hooks.md "Unmodified scripts"); "warm": false opts a hook out.
        self._forks = ForkServers(base, grace=kill_grace)

    @property
    def python_pool(self) -> PythonWorkerPool | None:
        """The warm worker pool for Python hooks (None when warm mode is off)."""
        return self._pool

    @property
    def fork_servers(self) -> ForkServers:
        """The fork servers that run plain ``python3 script.py`` command hooks warm."""
        return self._forks

    @classmethod
    def from_project(
        cls,
        project_dir: str | os.PathLike[str],
        *,
        user_settings: str | os.PathLike[str] | Literal["default"] | None = "default",
        managed_file: str | os.PathLike[str] | None = None,
        **options: Any,
    ) -> HookRunner:
        """A runner for the hooks configured in ``project_dir``'s settings files.

        Configuration errors do not raise: bad entries are left out and listed in
        ``runner.config.issues`` (and logged), so one bad file never disables the rest.
        """
        config = load_config(project_dir, user_settings=user_settings, managed_file=managed_file)
        for issue in config.issues:
            (log.error if issue.severity == "error" else log.warning)("hook config %s", issue)
        return cls(config, **options)

    # -- lifecycle -------------------------------------------------------
    async def __aenter__(self) -> HookRunner:
        if self._closed:
            raise RunnerClosedError("this HookRunner was closed; create a new one")
        if self._reap_orphans and not self._reaping:
            self._reaping = enable_orphan_reaping()
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose(exc_type, exc, tb)
        return None

    async def aclose(
        self,
        exc_type: type[BaseException] | None = None,
        exc: BaseException | None = None,
        tb: TracebackType | None = None,
    ) -> None:
        """End background hooks (their process trees too) and release resources."""
        self._closed = True
        tg, self._tg = self._tg, None
        try:
            if tg is not None:
                tg.cancel_scope.cancel()
                await tg.__aexit__(exc_type, exc, tb)
        finally:
            await self._http.aclose()
            if self._pool is not None:
                await self._pool.aclose()  # every warm Python worker ends here
            await self._forks.aclose()
            if self._reaping:
                self._reaping = False
                disable_orphan_reaping()
        if self._env_dir:
            shutil.rmtree(self._env_dir, ignore_errors=True)
            self._env_dir = None
        if self.ledger is not None and self._owns_ledger:
            await self.ledger.aclose()

    # -- registration ----------------------------------------------------
    def register(
        self,
        event: str,
        callback: HookCallback,
        *,
        matcher: str | None = None,
        timeout: float = DEFAULT_TIMEOUTS["callback"],
        fail_closed: bool = False,
        name: str | None = None,
    ) -> HookSpec:
        """Add an in-process async hook. It receives the payload and returns what a
        command hook would print (dict, str or None); same order, timeout and failure
        rules as command hooks. Runs after the hooks from settings files."""
        label = name or str(getattr(callback, "__qualname__", None) or repr(callback))
        label = unique_name(label, {s.display_name for s in self.hooks_for(event)})
        spec = HookSpec(
            event=event,
            kind="callback",
            command=f"callback:{label}",
            dialect="callback",
            source="<register>",
            location=f"{event}[{len(self._callbacks.get(event, []))}]",
            matcher=matcher,
            timeout=timeout,
            fail_closed=fail_closed,
            callback=callback,
            name=label,
        )
        self._callbacks.setdefault(event, []).append(spec)
        return spec

    @property
    def events(self) -> list[str]:
        """Every event that hooks are configured or registered for, sorted (an event's
        list may be empty when all its hooks were disabled)."""
        return sorted(set(self.config.hooks) | set(self._callbacks))

    def hooks_for(self, event: str) -> list[HookSpec]:
        """Every hook configured for ``event``, in registration order."""
        return [*self.config.hooks.get(event, ()), *self._callbacks.get(event, ())]

    def order_for(self, event: str) -> OrderMode:
        """Whether ``event``'s hooks run one after another or concurrently."""
        return self.config.order_for(event)

    # -- firing ----------------------------------------------------------
    async def fire(self, event: str, payload: Mapping[str, Any]) -> EventOutcome:
        """Run the hooks that apply to ``payload`` and combine their results.

        Never raises for a hook's failure; each hook's result is in ``outcome.hooks``.
        Traced as a ``hooks.fire <Event>`` span; with a ledger, the event and its
        results are committed before this returns (docs/observability.md).
        """
        if self._tg is None:
            raise RunnerClosedError("HookRunner is not open: use `async with runner:` before fire()")
        event_id = os.urandom(16).hex()
        started = time.time()
        # Background (async: true) hooks put their final result in the ledger once the
        # event's own record is there: they wait on an event made when the first starts.
        recorded: list[anyio.Event] = []
        current = dict(payload)
        current.setdefault("hook_event_name", event)
        specs = [s for s in self.hooks_for(event) if why_not(s, current) is None]
        trace_id = None
        try:
            if specs:  # (an event with no hook to run makes no span)
                with self._telemetry.fire_span(event, current, event_id) as span:
                    outcome = await self._fire(event, current, specs, event_id, recorded)
                    self._telemetry.fire_done(span, outcome)
                trace_id = self._telemetry.trace_id(span)
            else:
                outcome = await self._fire(event, current, specs, event_id, recorded)
            if self.ledger is not None:
                await self.ledger.record(
                    event,
                    payload,
                    outcome,
                    event_id=event_id,
                    started_at=started,
                    ended_at=time.time(),
                    trace_id=trace_id,
                    project=str(self.project_dir),
                    tool_input=self._tool_input(payload),
                )
        finally:
            if recorded:
                recorded[0].set()
        return outcome

    def _tool_input(self, payload: Mapping[str, Any]) -> str | None:
        """The payload's ``tool_input`` as JSON, redacted, for the ledger; None unless the
        runner was given ``ledger_tool_input``."""
        if self._redact_tool_input is None or "tool_input" not in payload:
            return None
        return self._redact_tool_input(json.dumps(payload["tool_input"], ensure_ascii=False, default=str))

    async def _fire(
        self, event: str, current: dict[str, Any], specs: list[HookSpec], event_id: str, recorded: list[anyio.Event]
    ) -> EventOutcome:
        # An untrusted hook keeps its place as a skipped result; nothing of it runs.
        untrusted = {
            id(s): HookResult.for_spec(s, HookStatus.SKIPPED, error=why)
            for s in specs
            if (why := self.trust.reason(s)) is not None
        }
        if self.debug:
            log.info("fire %s payload=%s", event, json.dumps(current, default=str)[:4000])
        results: list[HookResult] = []
        # One hook needs no task group: parallel and sequential are the same then.
        if len(specs) > 1 and self.order_for(event) == "parallel":
            slots: list[HookResult | None] = [None] * len(specs)

            async def one(i: int, spec: HookSpec) -> None:
                slots[i] = await self._run_hook(spec, current)

            async with anyio.create_task_group() as tg:
                for i, spec in enumerate(specs):
                    if id(spec) in untrusted:
                        slots[i] = untrusted[id(spec)]
                    elif spec.run_async:
                        slots[i] = self._start_background(spec, current, event_id, i, recorded)
                    else:
                        tg.start_soon(one, i, spec)
            results = [r for r in slots if r is not None]
        else:
            stop = is_blocking_event(event)
            for i, spec in enumerate(specs):
                if id(spec) in untrusted:
                    results.append(untrusted[id(spec)])
                    continue
                if spec.run_async:
                    results.append(self._start_background(spec, current, event_id, len(results), recorded))
                    continue
                result = await self._run_hook(spec, current)
                results.append(result)
                if result.updated_input is not None and result.status is not HookStatus.TIMEOUT:
                    # The next hook sees the updated tool_input (design.md "Order").
                    current = {**current, "tool_input": result.updated_input}
                if stop and result.decision in BLOCKING_DECISIONS:
                    results += [
                        HookResult.for_spec(s, HookStatus.SKIPPED, error="an earlier hook blocked")
                        for s in specs[i + 1 :]
                    ]
                    break
        outcome = EventOutcome.combine(event, results)
        outcome.env_files = [r.env_file for r in results if r.env_file]
        return outcome

    def _start_background(
        self, spec: HookSpec, payload: dict[str, Any], event_id: str, position: int, recorded: list[anyio.Event]
    ) -> HookResult:
        if self._tg is None:
            # aclose() ran while an earlier hook of this event was still running.
            return failed_result(spec, HookStatus.ERROR, "async: the runner was closed; the hook was not started")
        if self.ledger is not None and not recorded:
            recorded.append(anyio.Event())
        self._tg.start_soon(self._run_background, spec, payload, event_id, position, recorded[0] if recorded else None)
        return HookResult.for_spec(spec, HookStatus.SKIPPED, error="async: runs in the background, result ignored")

    async def _run_background(
        self, spec: HookSpec, payload: dict[str, Any], event_id: str, position: int, recorded: anyio.Event | None
    ) -> None:
        """Run an ``async: true`` hook; its result replaces its placeholder in the ledger
        (an error result when the runner closes first)."""

        async def record(result: HookResult) -> None:
            if self.ledger is not None and recorded is not None:
                await recorded.wait()  # the event's own record first
                await self.ledger.record_result(event_id, position, result)

        try:
            result = await self._run_hook(spec, payload)
        except BaseException:
            with anyio.CancelScope(shield=True), anyio.move_on_after(1.0):
                await record(
                    failed_result(
                        spec,
                        HookStatus.ERROR,
                        "async: the runner closed before the hook finished (its process tree was ended)",
                    )
                )
            raise
        await record(result)

    # -- one hook ----------------------------------------------------------
    async def _run_hook(self, spec: HookSpec, payload: dict[str, Any]) -> HookResult:
        # The hook's span is the current span while it runs: _env() passes it on as
        # TRACEPARENT, and the result lands on the span and in the metrics.
        with self._telemetry.hook_span(spec, payload) as span:
            result = await self._run_hook_timed(spec, payload)
            self._telemetry.hook_done(span, result)
        return result

    async def _run_hook_timed(self, spec: HookSpec, payload: dict[str, Any]) -> HookResult:
        started = time.time()
        t0 = time.perf_counter()
        try:
            result = await self._dispatch(spec, payload)
        except HookError:
            raise
        except Exception as exc:  # a hook must never break its siblings or the host
            result = failed_result(
                spec, HookStatus.ERROR, f"{type(exc).__name__}: {exc}", stderr=traceback.format_exc(limit=5)
            )
        result.started_at = started
        result.duration_ms = (time.perf_counter() - t0) * 1000.0
        self._log(result, payload)
        return result

    async def _dispatch(self, spec: HookSpec, payload: dict[str, Any]) -> HookResult:
        if spec.kind == "callback":
            return await self._run_callback(spec, payload)
        if spec.kind == "builtin":
            return run_builtin(spec, payload, self.config.genesis_actors, self.evidence)
        if spec.kind == "http":
            headers: dict[str, str] = {}
            self._telemetry.inject_headers(headers)  # W3C trace context (traceparent) of the hook's span
            return await self._http.run(spec, payload, _payload_json(payload), headers)
        if spec.kind == "prompt":
            return await run_prompt_hook(spec, payload, self.prompt_evaluator)
        return await self._run_command(spec, payload)

    async def _run_callback(self, spec: HookSpec, payload: dict[str, Any]) -> HookResult:
        assert spec.callback is not None
        value: Any = None
        with anyio.move_on_after(spec.timeout) as scope:
            try:
                value = await spec.callback(dict(payload))
            except Exception as exc:
                return failed_result(
                    spec,
                    HookStatus.ERROR,
                    f"{type(exc).__name__}: {exc}",
                    exit_code=1,
                    stderr=traceback.format_exc(limit=5),
                )
        if scope.cancelled_caught:
            return timeout_result(spec)
        if value is None:
            stdout = ""
        elif isinstance(value, str):
            stdout = value
        elif isinstance(value, Mapping):
            stdout = json.dumps(dict(value), default=str)
        else:
            return failed_result(
                spec, HookStatus.ERROR, f"callback returned {type(value).__name__}; expected dict, str or None"
            )
        return interpret_output(spec, payload, 0, stdout, "")

    def _cwd(self, spec: HookSpec, payload: Mapping[str, Any]) -> str:
        if spec.cwd_mode == "hooks_dir":
            hooks_dir = self.project_dir / ".claude" / "hooks"
            return str(hooks_dir if hooks_dir.is_dir() else self.project_dir)
        if spec.cwd_mode == "session":
            cwd = payload.get("cwd")
            if isinstance(cwd, str) and os.path.isdir(cwd):
                return cwd
        return str(self.project_dir)

    def _env(
        self, spec: HookSpec, payload: Mapping[str, Any], payload_json: str, cwd: str
    ) -> tuple[dict[str, str], str | None]:
        env = dict(self._base_env)
        session = str(payload.get("session_id") or "")
        env.update(
            CLAUDE_PROJECT_DIR=str(self.project_dir),
            HOOK_EVENT=spec.event,
            SESSION_ID=session,
            CLAUDE_CODE_SESSION_ID=session,
            CLAUDECODE="1",
            CLAUDE_PID=str(os.getpid()),
            PWD=cwd,
            HOOK_TIMEOUT=str(int(spec.timeout * 1000)),
        )
        effort = payload.get("effort")
        if isinstance(effort, Mapping) and isinstance(effort.get("level"), str):
            # Claude Code sets it where the payload carries `effort` (tool events, Stop).
            env["CLAUDE_EFFORT"] = effort["level"]
        if len(payload_json) <= _MAX_ENV_PAYLOAD:
            env["HOOK_PAYLOAD"] = payload_json
            env.pop("HOOK_PAYLOAD_TRUNCATED", None)
        else:
            env.pop("HOOK_PAYLOAD", None)
            env["HOOK_PAYLOAD_TRUNCATED"] = "1"
        self._telemetry.inject_env(env)  # TRACEPARENT of this hook's span
        env_file = None
        if spec.event == "SessionStart":
            if self._env_dir is None:
                self._env_dir = tempfile.mkdtemp(prefix="agent-server-env-")
            env_file = os.path.join(self._env_dir, f"{uuid.uuid4().hex}.env")
            Path(env_file).touch()
            env["CLAUDE_ENV_FILE"] = env_file
        return env, env_file

    async def _execute(self, spec: HookSpec, stdin: bytes, env: dict[str, str], cwd: str) -> ProcessResult:
        """Run the hook's process. (Python hooks get a warm worker here when enabled.)"""
        assert spec.argv is not None
        # A free slot is taken without a trip through the event loop (the common case).
        try:
            self._limiter.acquire_nowait()
        except anyio.WouldBlock:
            await self._limiter.acquire()
        try:
            pool = self._pool
            if pool is not None and spec.kind == "python" and spec.warm is not False and pool.handles(spec.argv):
                return await pool.run_argv(spec.argv, stdin=stdin, env=env, cwd=cwd, timeout=spec.timeout)
            return await run_process(
                spec.argv,
                stdin=stdin,
                env=env,
                cwd=cwd,
                timeout=spec.timeout,
                grace=self.kill_grace,
                output_limit=self.output_limit,
                marker=os.urandom(16).hex(),  # (uuid4() costs five times as much)
                launch=self._forks.launcher(spec, cwd),
            )
        finally:
            self._limiter.release()

    async def _run_command(self, spec: HookSpec, payload: dict[str, Any]) -> HookResult:
        payload_json = _payload_json(payload)
        cwd = self._cwd(spec, payload)
        env, env_file = self._env(spec, payload, payload_json, cwd)
        proc = await self._execute(spec, (payload_json + "\n").encode(), env, cwd)
        stdout = proc.stdout.decode("utf-8", errors="replace")
        stderr = proc.stderr.decode("utf-8", errors="replace")
        truncated = proc.stdout_truncated or proc.stderr_truncated
        if proc.spawn_error is not None:
            return failed_result(spec, HookStatus.ERROR, proc.spawn_error)
        if proc.timed_out:
            # Output of a timed-out hook is discarded (contract §7); stderr kept for the log.
            return timeout_result(spec, exit_code=proc.exit_code, stderr=stderr, truncated=truncated)
        result = interpret_output(spec, payload, proc.exit_code, stdout, stderr)
        result.truncated = truncated
        if proc.pid is not None:
            result.extra["pid"] = proc.pid  # (the span's process.pid)
        result.env_file = env_file
        return result

    def _log(self, result: HookResult, payload: Mapping[str, Any]) -> None:
        if log.isEnabledFor(logging.INFO):
            log.info(
                "hook run name=%r event=%s status=%s exit=%s start=%s duration_ms=%.1f",
                result.name,
                result.event,
                result.status.value,
                result.exit_code,
                time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(result.started_at)),
                result.duration_ms,
            )
        if result.status in (HookStatus.ERROR, HookStatus.TIMEOUT):
            tail = result.stderr.strip()[-800:]
            log.warning(
                "hook failed name=%r event=%s: %s%s",
                result.name,
                result.event,
                result.error,
                f"\nstderr tail:\n{tail}" if tail else "",
            )
        if self.debug:
            log.info("hook output name=%r stdout=%r stderr=%r", result.name, result.stdout[:4000], result.stderr[:4000])
