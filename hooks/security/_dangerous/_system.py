"""Rule family: the system. Security switched off (firewall, security services, TLS checks
user-wide) and persistence: cron jobs, start-up files, git hooks and units that download and run
code or run what would be refused now."""

from __future__ import annotations

import re

import _shell
from _common import Finding
from _shell import Cmd, Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    # The hook's dispatch, passed in (not imported) so the families do not import their caller.
    Check = Callable[[str, Ctx], list[Finding]]


SECURITY_SERVICES = frozenset({
    "firewalld", "ufw", "nftables", "iptables", "ip6tables", "apparmor", "auditd", "fail2ban",
    "selinux", "clamav-daemon", "falcon-sensor", "crowdstrike", "osqueryd", "wazuh-agent",
})  # fmt: skip


def _tls_off_everywhere(name: str, lits: list[str]) -> bool:
    """A user-wide setting that stops checking TLS certificates (``git config --global
    http.sslVerify false``, ``npm config set strict-ssl false``): every later download may be
    tampered with. ``curl -k`` once, against a known host, is left alone."""
    low = [a.lower() for a in lits]
    if name == "git" and "config" in low and ({"--global", "--system"} & set(low)):
        return "http.sslverify" in low and any(a in ("false", "0", "no", "off") for a in low)
    if name in ("npm", "pnpm", "yarn") and "config" in low and "set" in low:
        return any(a.startswith("strict-ssl") for a in low) and any(a.endswith("false") for a in low)
    if name == "pip" and "config" in low and "set" in low:
        return any(a.endswith(".trusted-host") for a in low)
    return False


def rule_security_off(cmd: Cmd, found: list[Finding]) -> None:
    """Turning off the firewall or a security service."""
    lits = [(w.literal() or "") for w in cmd.args]
    name = cmd.name
    what = ""
    if name == "ufw" and lits[:1] in (["disable"], ["reset"]):
        what = "turns the firewall off"
    elif name == "ufw" and lits[:2] == ["default", "allow"]:
        what = "makes the firewall accept everything"
    elif name in ("iptables", "ip6tables") and (
        any(a in ("-F", "--flush", "-X") for a in lits) or (("-P" in lits or "--policy" in lits) and "ACCEPT" in lits)
    ):
        what = "flushes the firewall rules (or opens its policy)"
    elif name == "nft" and lits[:2] in (["flush", "ruleset"], ["delete", "table"]):
        what = "removes the firewall rules"
    elif name in ("systemctl", "service", "rc-service") and any(
        a.removesuffix(".service") in SECURITY_SERVICES for a in lits
    ):
        if any(a in ("stop", "disable", "mask", "kill") for a in lits):
            what = "stops a firewall/security service"
    elif name == "setenforce" and lits[:1] in (["0"], ["permissive"], ["Permissive"]):
        what = "switches SELinux off"
    elif name == "spctl" and ("--master-disable" in lits or "--global-disable" in lits):
        what = "turns Gatekeeper off"
    elif name == "csrutil" and lits[:1] == ["disable"]:
        what = "turns System Integrity Protection off"
    elif name in ("aa-teardown",) or (name == "aa-disable"):
        what = "turns AppArmor off"
    elif name == "netsh" and "advfirewall" in [a.lower() for a in lits] and "off" in [a.lower() for a in lits]:
        what = "turns the Windows firewall off"
    elif name.lower() == "set-mppreference" and any(re.match(r"(?i)-disable", a) for a in lits):
        what = "turns Windows Defender protection off"
    elif name == "sysctl" and any(re.fullmatch(r"kernel\.randomize_va_space=0", a) for a in lits):
        what = "turns address-space randomisation off"
    elif name == "passwd" and ({"-d", "--delete"} & set(lits)):
        what = "removes an account's password, so anyone may log in as it"
    elif _tls_off_everywhere(name, lits):
        what = "turns TLS certificate checks off for every future download of the tool"
    if what:
        found.append(
            (
                "deny",
                f"`{cmd.display}` {what}, leaving the machine unprotected. Ask the user to change "
                "security settings; open a single port or add a rule instead if that is the goal.",
            )
        )


def rule_persistence(cmd: Cmd, earlier: list[Cmd], check: Check, found: list[Finding]) -> None:
    """A cron job, shell start-up line, git hook or unit that downloads and runs code (``check``
    judges what the job would run: the hook's own dispatch)."""
    text = _shell.printed_text(cmd)
    if text is None and cmd.name == "tee":
        text = cmd.stdin_text  # echo '…' | sudo tee /etc/cron.d/job: tee writes what it reads
    if cmd.name in ("crontab", "at", "batch"):
        flags, positionals, _vals = _shell.split_options(cmd.args, frozenset({"-u", "-f", "-q"}))
        if cmd.name == "crontab" and ({"l", "r", "e", "i"} & set(flags) or "list" in flags):
            return
        content = cmd.stdin_text
        if content is None and positionals:
            content = cmd.ctx.written(positionals[0])
        upstream = {n for stage in cmd.stage_names[: cmd.stage] for n in stage}
        if content is None and upstream & _shell.DOWNLOADERS:
            content = "curl | sh"
        if content is None and cmd.stage > 0:
            # (crontab -l; echo '…') | crontab -: what the earlier stages print.
            content = "\n".join(t for t in map(_shell.printed_text, earlier) if t)
        later = _runs_later(content, cmd.ctx, check, cron=True) if content is not None else None
        if content is not None and _shell.fetches_and_runs(content):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` installs a scheduled job that downloads and runs remote code "
                    "(persistence). Do not schedule downloads; ask the user if a job is needed.",
                )
            )
        elif later is not None:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` installs a scheduled job that would be refused if run now "
                    f"({later}). Do not schedule it; ask the user if a job is needed.",
                )
            )
        elif cmd.name == "crontab":
            found.append(("ask", f"`{cmd.display}` replaces the user's cron table; confirm the new jobs."))
        return
    lits = [w.literal() or "" for w in cmd.args]
    config_write = (cmd.name == "git" and "config" in lits) or (
        cmd.name in ("npm", "pnpm", "yarn") and ("set-script" in lits or lits[:2] == ["pkg", "set"])
    )
    if config_write and any(_shell.fetches_and_runs(" ".join(cmd.values(w) or [w.text])) for w in cmd.args):
        found.append(
            (
                "deny",
                f"`{cmd.display}` stores a command that downloads and runs remote code in a "
                "configuration that runs it later (persistence). Do not add it.",
            )
        )
        return
    if text is None:
        return
    targets = [r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>") and r.target is not None]
    if cmd.name == "tee":
        targets += [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    for word in targets:
        for value in cmd.values(word) or [_shell.expand_pattern(word, cmd.ctx)]:
            path = _shell.normalize(value, cmd.ctx.cwd) or value
            if not _shell.autorun_path(path):
                continue
            later = None if _shell.fetches_and_runs(text) else _runs_later(text, cmd.ctx, check, cron=False)
            if _shell.fetches_and_runs(text) or later is not None:
                what = "downloads and runs remote code" if later is None else f"would be refused now ({later})"
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` writes a line that {what} into "
                        f"{path}, which runs automatically later (persistence). Do not add it; "
                        "document the install step for the user instead.",
                    )
                )


_CRON_SCHEDULE = re.compile(r"^\s*(?:@\w+|(?:\S+\s+){5})")
_later_depth = [0]


def _runs_later(text: str, ctx: Ctx, check: Check, cron: bool) -> str | None:
    """The first denial the commands in ``text`` (a cron table or a file run later) would get
    if run now, shortened; None when every line would pass. A job runs the same rules later,
    with nobody watching, so what is refused now is refused as a job too."""
    if _later_depth[0] > 1:
        return None
    _later_depth[0] += 1
    try:
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#") or (cron and re.match(r"^\w+=", line)):
                continue
            if cron:
                line = _CRON_SCHEDULE.sub("", line, count=1)
            for decision, reason in check(line, ctx.child()):
                if decision == "deny" and not reason.startswith("rule parse"):
                    body = reason.split(": ", 1)[-1]
                    return body.split(". ")[0][:160]
    finally:
        _later_depth[0] -= 1
    return None
