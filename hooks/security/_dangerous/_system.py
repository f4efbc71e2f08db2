"""Rule family: the system. Security switched off (firewall, security services, TLS checks
user-wide, sshd/sudoers/database authentication, login and audit logs erased) and persistence:
cron jobs, start-up files, git hooks and units (their Exec lines judged as one script) that
download and run code, load code into every process (LD_PRELOAD, NODE_OPTIONS --require) or run
what would be refused now. Accounts: an account put in an administrator group or given uid 0,
an empty or guessable administrator password, and removing packages the system stands on (sudo,
openssh, systemd, the kernel, libc, the package manager) are denied; ``userdel -r``, lingering
user services and sshd stopped are asked."""

from __future__ import annotations

import fnmatch
import itertools
import os
import re
import shlex

import _shell
from _common import Finding
from _shell import Cmd, Ctx, Word, lazy_compile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    # The hook's dispatch, passed in (not imported) so the families do not import their caller.
    Check = Callable[[str, Ctx], list[Finding]]


SECURITY_SERVICES = frozenset({
    "firewalld", "ufw", "nftables", "iptables", "ip6tables", "apparmor", "auditd", "fail2ban",
    "selinux", "clamav-daemon", "falcon-sensor", "crowdstrike", "osqueryd", "wazuh-agent",
    # the system's logging and intrusion detection: stopping them hides what happens next
    "rsyslog", "syslog-ng", "systemd-journald", "crowdsec", "sshguard", "suricata", "snort", "aide",
    # automatic security updates and virus signatures: off, every later hole stays open
    "unattended-upgrades", "apt-daily-upgrade", "apt-daily", "dnf-automatic", "dnf-automatic-install",
    "yum-cron", "clamav-freshclam", "freshclam", "wuauserv", "windefend",
    # Windows: the firewall, Security Center, Defender for Endpoint, the event log
    "mpssvc", "wscsvc", "sense", "eventlog",
})  # fmt: skip
# Packages whose removal switches such a service off for good.
_SECURITY_PACKAGES = frozenset({
    "unattended-upgrades", "dnf-automatic", "yum-cron", "ufw", "firewalld", "fail2ban", "apparmor",
    "auditd", "audit", "clamav", "clamav-daemon", "crowdsec", "sshguard", "aide", "selinux-policy",
    "selinux-policy-targeted", "rkhunter", "wazuh-agent", "osquery",
})  # fmt: skip
_MAC_UPDATE_KEYS = lazy_compile(
    r"(?i)^(?:AutomaticCheckEnabled|AutomaticDownload|AutomaticallyInstallMacOSUpdates|CriticalUpdateInstall|"
    r"ConfigDataInstall)$"
)


def _tls_off_everywhere(name: str, lits: list[str]) -> bool:
    """A user-wide setting that stops checking TLS certificates (``git config --global
    http.sslVerify false``, ``npm config set strict-ssl false``): every later download may be
    tampered with. ``curl -k`` once, against a known host, is left alone."""
    low = [a.lower() for a in lits]
    if name == "git" and "config" in low and ({"--global", "--system"} & set(low)):
        return "http.sslverify" in low and any(a in ("false", "0", "no", "off") for a in low)
    if name in ("npm", "pnpm", "yarn") and "config" in low and "set" in low:
        return any(a.startswith("strict-ssl") for a in low) and any(a.endswith("false") for a in low)
    if name == "conda" and "config" in low and "ssl_verify" in low:
        return any(a in ("false", "no", "0") for a in low)
    if name == "pip" and "config" in low and "set" in low:
        return any(a.endswith(".trusted-host") for a in low)
    return False


_EVERY_PORT = lazy_compile(r"(?:0|1):65535(?:/\w+)?")
_IPTABLES_MATCH = frozenset({
    "-p", "--protocol", "-s", "--source", "-d", "--destination", "-i", "--in-interface", "-o",
    "--out-interface", "-m", "--match", "--dport", "--sport", "--destination-port", "--source-port",
})  # fmt: skip


def _accepts_everything(lits: list[str]) -> bool:
    """``iptables -I INPUT -j ACCEPT``: a rule with no match at all lets every packet in."""
    adds = {"-A", "--append", "-I", "--insert"} & set(lits)
    jump = any(a in ("-j", "--jump") and b == "ACCEPT" for a, b in itertools.pairwise(lits))
    chain = any(
        a in ("-A", "--append", "-I", "--insert") and b in ("INPUT", "FORWARD") for a, b in itertools.pairwise(lits)
    )
    return bool(adds) and jump and chain and not (_IPTABLES_MATCH & {a.partition("=")[0] for a in lits})


def _edits_in_place(name: str, lits: list[str]) -> bool:
    """A command that rewrites configuration (``sed -i``, ``perl -pi``, boot-entry editors), as
    opposed to one that only searches it (``grep SELINUX= /etc/selinux/config``)."""
    if name in ("grubby", "grub2-editenv", "kernelstub", "rpm-ostree"):
        return True
    return name in ("sed", "perl", "gsed") and any(re.fullmatch(r"-\w*i\S*|--in-place\S*", a) for a in lits)


# The system's record of logins and commands (not rotated copies such as auth.log.1).
_AUDIT_LOG = lazy_compile(
    r"^/var/log/(?:auth\.log|secure|wtmp|btmp|lastlog|faillog|syslog|messages|audit/audit\.log|audit/?"
    r"|journal/?)$|^/var/run/utmp$|^~?/?(?:root/)?\.bash_history$"
)

# journalctl --vacuum-time=1s / --vacuum-size=1K / --vacuum-files=1: keeps (almost) nothing;
# --vacuum-time=2weeks, --vacuum-size=500M are ordinary housekeeping.
_VACUUM_ALL = lazy_compile(
    r"--vacuum-time=\d+(?:s|sec|seconds?|m|min|minutes?|ms|us)?|--vacuum-size=\d+[KkBb]?|--vacuum-size=[1-9]M"
    r"|--vacuum-files=1"
)


def _erased_logs(cmd: Cmd, name: str, lits: list[str]) -> str:
    """The login/audit log a command empties or deletes: ``truncate -s 0 /var/log/auth.log``,
    ``shred -u /var/log/wtmp``, ``rm /var/log/secure``, ``: > /var/log/btmp``; ``auditctl -D``
    (every audit rule)."""
    if name == "auditctl" and "-D" in lits:
        return "every kernel audit rule"
    if name == "find":
        return _found_logs_erased(lits)
    if name == "journalctl" and any(_VACUUM_ALL.fullmatch(a) for a in lits):
        return "the systemd journal (vacuumed down to nothing)"
    paths = [r.target.literal() or "" for r in cmd.redirects if r.op in (">", ">|") and r.target is not None]
    if name in ("truncate", "shred", "rm", "unlink", "srm", "wipe") or (
        name == "tee" and not {"-a", "--append"} & set(lits)
    ):
        paths += [a for a in lits if not a.startswith("-")]
    logs = [p for p in paths if _AUDIT_LOG.match(p.rstrip("*")) and not p.endswith(".bash_history")]
    if name == "truncate" and not any(a in ("-s0", "--size=0") or a == "0" for a in lits):
        return ""
    return logs[0] if logs else ""


def _aslr_written_off(cmd: Cmd, name: str, lits: list[str]) -> bool:
    """``echo 0 > /proc/sys/kernel/randomize_va_space``, ``echo 0 | sudo tee …``: the sysctl
    written through /proc; anything but the default 2 (or a value the call does not show)."""
    knob = "/proc/sys/kernel/randomize_va_space"
    targets = [r.target.literal() or "" for r in cmd.redirects if r.op in (">", ">|", ">>") and r.target is not None]
    if name == "tee":
        targets += [a for a in lits if not a.startswith("-")]
    if knob not in targets:
        return False
    text = cmd.stdin_text if name == "tee" else _shell.printed_text(cmd)
    return text is None or text.strip() != "2"


# The login and audit logs by file name, as a find -name pattern may select them.
_AUDIT_LOG_NAMES = ("auth.log", "secure", "wtmp", "btmp", "lastlog", "faillog", "syslog", "messages", "audit.log")


def _found_logs_erased(lits: list[str]) -> str:
    """``find /var/log -name 'auth.log*' -exec truncate -s0 {} +``, ``find /var/log/audit -delete``:
    a find over the login/audit log folders that empties, shreds or deletes what it selects, and
    selects a current login/audit log (no -name, or one matching such a log; no ``-mtime +N`` age
    test, which leaves the live log alone)."""
    starts = [
        a for a in lits[: next((i for i, a in enumerate(lits) if a.startswith("-") or a in ("(", "!")), len(lits))]
    ]
    if not any(a.rstrip("/") in ("/var/log", "/var/log/audit", "/var/log/journal") for a in starts):
        return ""
    execs = [lits[i + 1] for i, a in enumerate(lits[:-1]) if a in ("-exec", "-execdir")]
    truncates = "truncate" in execs and any(a in ("-s0", "--size=0") or a == "0" for a in lits)
    erases = "-delete" in lits or truncates or any(e in ("rm", "shred", "unlink") for e in execs)
    aged = any(
        a in ("-mtime", "-mmin", "-ctime", "-cmin", "-atime", "-amin") and lits[i + 1].startswith("+")
        for i, a in enumerate(lits[:-1])
    )
    if not erases or aged:
        return ""
    names = [lits[i + 1] for i, a in enumerate(lits[:-1]) if a in ("-name", "-iname")]
    if names and not any(fnmatch.fnmatch(log, n) for n in names for log in _AUDIT_LOG_NAMES):
        return ""
    return f"the logs under {starts[0]}"


def rule_security_off(cmd: Cmd, found: list[Finding]) -> None:
    """Turning off the firewall or a security service."""
    lits = [(w.literal() or "") for w in cmd.args]
    name = cmd.name
    what = ""
    ops = [a for a in lits if not a.startswith("-")]
    if name == "ufw" and ops[:1] in (["disable"], ["reset"]):
        what = "turns the firewall off"
    elif name == "ufw" and ops[:2] == ["default", "allow"]:
        what = "makes the firewall accept everything"
    elif (name == "ufw" and "allow" in ops[:2] and any(_EVERY_PORT.fullmatch(a) for a in ops)) or (
        name == "firewall-cmd" and any(re.fullmatch(r"--add-port=(?:0|1)-65535/\w+", a) for a in lits)
    ):
        what = "opens every port of the firewall"
    elif name == "firewall-cmd" and any(re.fullmatch(r"--set-default-zone=(?:trusted|public-open)", a) for a in lits):
        what = "makes the firewall trust every connection"
    elif name in ("iptables", "ip6tables") and _accepts_everything(lits):
        what = "adds a firewall rule that accepts every packet"
    elif name in ("iptables", "ip6tables") and (
        any(a in ("-F", "--flush", "-X") for a in lits) or (("-P" in lits or "--policy" in lits) and "ACCEPT" in lits)
    ):
        what = "flushes the firewall rules (or opens its policy)"
    elif name == "nft" and lits[:2] in (["flush", "ruleset"], ["delete", "table"]):
        what = "removes the firewall rules"
    elif name in ("systemctl", "service", "rc-service", "sc", "sc.exe", "net", "stop-service", "set-service") and any(
        a.lower().removesuffix(".service").removesuffix(".timer") in SECURITY_SERVICES for a in lits
    ):
        low = [a.lower() for a in lits]
        if (
            any(a in ("stop", "disable", "mask", "kill", "teardown", "disabled", "delete") for a in low)
            or name == "stop-service"
        ):
            what = "stops a firewall/security service (or automatic security updates)"
    elif _removes_packages(name, lits) and any(
        a.split(":")[0] in _SECURITY_PACKAGES for a in lits if not a.startswith("-")
    ):
        what = "uninstalls a firewall/security service (or automatic security updates)"
    elif name == "softwareupdate" and "--schedule" in lits and "off" in [a.lower() for a in lits]:
        what = "turns automatic macOS updates off"
    elif (
        name == "defaults"
        and "write" in lits
        and any("SoftwareUpdate" in a for a in lits)
        and any(_MAC_UPDATE_KEYS.match(a) for a in lits)
        and lits[-1].lower() in ("false", "0", "no")
    ):
        what = "turns automatic macOS security updates off"
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
    elif (
        name == "sysctl" and any(re.fullmatch(r"kernel\.randomize_va_space=0", a) for a in lits)
    ) or _aslr_written_off(cmd, name, lits):
        what = "turns address-space randomisation off"
    elif name == "passwd" and ({"-d", "--delete"} & set(lits)):
        what = "removes an account's password, so anyone may log in as it"
    elif name == "socketfilterfw" and any(a.startswith("--setglobalstate") for a in lits) and "off" in lits:
        what = "turns the macOS application firewall off"
    elif name == "pfctl" and "-d" in lits:
        what = "turns the pf firewall off"
    elif name == "defaults" and "write" in lits and any("com.apple.alf" in a for a in lits) and "0" in lits:
        what = "turns the macOS application firewall off"
    elif name.lower() == "set-netfirewallprofile" and any(re.fullmatch(r"(?i)\$?false", a) for a in lits):
        what = "turns the Windows firewall off"
    elif name == "auditctl" and lits[:2] == ["-e", "0"]:
        what = "turns kernel auditing off"
    elif name == "vault" and ops[:2] in (["auth", "disable"], ["secrets", "disable"], ["audit", "disable"]):
        what = {
            "auth": "turns a Vault login method off (every token it issued is revoked)",
            "secrets": "unmounts a Vault secrets engine, deleting every secret stored in it",
            "audit": "turns a Vault audit device off (access to secrets goes unrecorded)",
        }[ops[0]]
    elif name == "vault" and ops[:2] == ["policy", "write"] and _vault_grants_everything(cmd, ops):
        what = 'writes a Vault policy that opens every path (path "*") with sudo or write rights'
    elif _edits_in_place(name, lits) and any(
        re.search(r"(?i)\bSELINUX=(?:disabled|permissive)\b|\b(?:selinux|apparmor)=0\b", _written_part(a)) for a in lits
    ):
        what = "switches SELinux/AppArmor off from the next boot"
    elif (
        _edits_in_place(name, lits)
        and any(_AUTH_OFF.search(_written_part(a)) for a in lits)
        and any(_AUTH_CONFIG.search(a) for a in lits)
    ):
        what = "switches a server's authentication off (trust logins, root or empty-password logins)"
    elif _tls_off_everywhere(name, lits):
        what = "turns TLS certificate checks off for every future download of the tool"
    erased = _erased_logs(cmd, name, lits)
    if erased and not what:
        found.append(
            (
                "deny",
                f"`{cmd.display}` erases {erased}, the record of who logged in and what ran (covering "
                "tracks). Leave the system's logs to logrotate; read or copy them instead.",
            )
        )
        return
    if what:
        found.append(
            (
                "deny",
                f"`{cmd.display}` {what}, leaving the machine unprotected. Ask the user to change "
                "security settings; open a single port or add a rule instead if that is the goal.",
            )
        )


_VAULT_EVERY_PATH = lazy_compile(r'(?s)path\s+"\*"\s*\{[^}]*\b(?:sudo|create|update|delete)\b')


def _vault_grants_everything(cmd: Cmd, ops: list[str]) -> bool:
    """``vault policy write NAME FILE|-``: the policy text (stdin, a here-doc, or a file written
    earlier in the line) grants rights on every path."""
    source = cmd.args[[w.literal() for w in cmd.args].index(ops[3])] if len(ops) > 3 and ops[3] != "-" else None
    text = cmd.stdin_text if source is None else cmd.ctx.written(source)
    return bool(text and _VAULT_EVERY_PATH.search(text))


def rule_persistence(cmd: Cmd, earlier: list[Cmd], check: Check, found: list[Finding]) -> None:
    """A cron job, shell start-up line, git hook or unit that downloads and runs code (``check``
    judges what the job would run: the hook's own dispatch)."""
    text = _shell.printed_text(cmd)
    if text is None and cmd.name == "tee":
        text = cmd.stdin_text  # echo '…' | sudo tee /etc/cron.d/job: tee writes what it reads
    if cmd.name in ("crontab", "at", "batch"):
        flags, positionals, _vals = _shell.split_options(cmd.args, frozenset({"-u", "-f", "-q"}))
        if cmd.name == "crontab" and "r" in flags:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes every cron job of the user, with no copy kept. Remove the one "
                    "job meant with `crontab -l | grep -v PATTERN | crontab -`, or ask the user.",
                )
            )
            return
        if cmd.name == "crontab" and ({"l", "e", "i"} & set(flags) or "list" in flags):
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
        risk = _job_risk(content, cmd.ctx) if content is not None else None
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
        elif risk is not None:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` installs a scheduled job that {risk} (persistence). Do not schedule "
                    "it; ask the user if a job is needed.",
                )
            )
        elif cmd.name == "crontab" and not _keeps_cron_table(cmd, earlier):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` replaces the user's whole cron table: every existing job is lost. "
                    "Append instead: `(crontab -l; echo 'JOB') | crontab -`, or ask the user.",
                )
            )
        elif cmd.name == "crontab" and _only_removes_cron_lines(cmd, earlier):
            return  # crontab -l | grep -v 'old job' | crontab -: drops one job, adds none
        elif cmd.name == "crontab":
            found.append(("ask", f"`{cmd.display}` adds jobs to the user's cron table (persistence); confirm them."))
        return
    if cmd.name == "systemd-run" or _kube_workload(cmd):
        _rule_scheduled_command(cmd, check, found)
        return
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name == "systemctl" and "edit" in lits and cmd.stdin_text:
        # systemctl edit --full --force x.service <<< '[Service]…': the input becomes the unit
        # (or a drop-in of it), which runs at every start.
        script = _unit_script(cmd.stdin_text)
        fetched = _shell.fetches_and_runs(script)
        later = None if fetched else _runs_later(script, cmd.ctx, check, cron=False)
        risk = None if fetched or later else _job_risk(script, cmd.ctx)
        if fetched or later is not None or risk is not None:
            what = (
                "downloads and runs remote code" if fetched else (f"would be refused now ({later})" if later else risk)
            )
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` writes a service unit that {what}; it runs at every start, with "
                    "nobody watching (persistence). Do not install it; ask the user.",
                )
            )
        return
    if cmd.name == "husky" and lits[:1] in (["add"], ["set"]) and len(cmd.args) > 2:
        # npx husky add .husky/pre-push "CMD": CMD runs at every push, with nobody watching.
        hook_text = " ".join(" ".join(cmd.values(w) or [w.text]) for w in cmd.args[2:])
        later = None if _shell.fetches_and_runs(hook_text) else _runs_later(hook_text, cmd.ctx, check, cron=False)
        if _shell.fetches_and_runs(hook_text) or later is not None:
            what = "downloads and runs remote code" if later is None else f"would be refused now ({later})"
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` adds a git hook that {what}; it runs at every matching git command "
                    "(persistence). Do not add it; ask the user.",
                )
            )
        return
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
        _rule_decoded_into_autorun(cmd, found)
        _rule_unseen_login_keys(cmd, found)
        return
    targets = [r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>") and r.target is not None]
    if cmd.name == "tee":
        targets += [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    written = text
    for word in targets:
        for value in cmd.values(word) or [_shell.expand_pattern(word, cmd.ctx)]:
            path = _shell.normalize(value, cmd.ctx.cwd) or value
            text = written
            access = _grants_access(path, text)
            if access:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` writes into {path}: {access}. Do not change who may log in "
                        "or use sudo; ask the user.",
                    )
                )
                continue
            if _TLS_OFF_LINE.search(text) and (_shell.autorun_path(path) or _TOOL_RC.search(path)):
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` writes a setting into {path} that turns TLS certificate checks off "
                        "for every later download. Fix the certificate (CA bundle) instead, or ask the user.",
                    )
                )
                continue
            if _PACKAGE_SOURCE.search(path) and _UNSIGNED_LINE.search(text):
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` writes a package source into {path} whose packages are installed "
                        "without checking their signatures (tampered packages run as root). Add the "
                        "repository's signing key instead, or ask the user.",
                    )
                )
                continue
            if not _shell.autorun_path(path) and not _startup_pth(path, text):
                continue
            # /etc/crontab and /etc/cron.d/*: a schedule and a user name before each command.
            system_cron = _SYSTEM_CRON.search(path) is not None
            text = _unit_script(text) if _UNIT_FILE.search(path) else text
            if path.endswith(".pth"):
                # Its import lines are Python run at start-up: judged as python -c of them.
                code = "\n".join(line for line in text.splitlines() if line.lstrip().startswith("import"))
                text = "python3 -c " + shlex.quote(code) if code else text
            later = (
                None
                if _shell.fetches_and_runs(text)
                else _runs_later(text, cmd.ctx, check, cron=system_cron, user_field=system_cron)
            )
            risk = _job_risk(text, cmd.ctx, user_field=system_cron)
            if _shell.fetches_and_runs(text) or later is not None or risk is not None:
                what = "downloads and runs remote code"
                if later is not None:
                    what = f"would be refused now ({later})"
                elif risk is not None and not _shell.fetches_and_runs(text):
                    what = risk
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` writes a line that {what} into "
                        f"{path}, which runs automatically later (persistence). Do not add it; "
                        "document the install step for the user instead.",
                    )
                )


def _startup_pth(path: str, text: str) -> bool:
    """A ``.pth`` file with an ``import`` line, wherever it is written (``{}/x.pth`` after
    ``python -m site --user-site | xargs``): Python runs such lines at every start-up once the
    file sits in a site folder, which the command may pick when it runs."""
    return path.endswith(".pth") and any(line.lstrip().startswith("import") for line in text.splitlines())


def _decodes(cmd: Cmd) -> bool:
    """``base64 -d``, ``base32 --decode``, ``xxd -r``, ``uudecode``, ``openssl enc -d``: the
    command prints text decoded from an encoding nobody reads."""
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name in ("base64", "base32"):
        return any(a in ("-d", "-D", "--decode") or re.fullmatch(r"-[a-zA-Z]*d[a-zA-Z]*", a) for a in lits)
    if cmd.name == "xxd":
        return any(re.fullmatch(r"-[a-z]*r[a-z]*", a) for a in lits)
    return cmd.name == "uudecode" or (cmd.name == "openssl" and "-d" in lits)


def _rule_decoded_into_autorun(cmd: Cmd, found: list[Finding]) -> None:
    """``echo … | base64 -d >> ~/.zshrc``, ``… | xxd -r -p | sudo tee /etc/cron.d/x``: decoded
    text written into a file that runs later is hidden code (persistence nobody can review)."""
    decoded = _decodes(cmd) or (cmd.name == "tee" and cmd.prev is not None and _decodes(cmd.prev))
    if not decoded:
        return
    targets = [r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>") and r.target is not None]
    if cmd.name == "tee":
        targets += [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    for word in targets:
        for value in cmd.values(word) or []:
            path = _shell.normalize(value, cmd.ctx.cwd) or value
            if _shell.autorun_path(path):
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` writes decoded (hidden) text into {path}, which runs automatically "
                        "later (persistence nobody can review). Write the plain lines, or ask the user.",
                    )
                )
                return


_UNIT_FILE = lazy_compile(r"/systemd/.*(?:\.(?:service|timer|socket|path|mount)|\.d/[^/]+\.conf)$")
_EXEC_LINE = lazy_compile(r"(?m)^\s*Exec\w*\s*=\s*[-@+!:]*(?P<cmd>.+)$")


def _unit_script(text: str) -> str:
    """The commands a systemd unit runs (``ExecStartPre=``, ``ExecStart=``, …) as one shell line,
    in order, so that a download in one line and running the file in the next are judged
    together; the unit's text itself when it has no Exec lines."""
    commands = [m.group("cmd").strip() for m in _EXEC_LINE.finditer(text)]
    return " ; ".join(commands) if commands else text


_CRON_SCHEDULE = lazy_compile(r"^\s*(?:@\w+|(?:\S+\s+){5})")
_later_depth = [0]


_SYSTEM_CRON = lazy_compile(r"^/etc/cron(?:tab$|\.d/)")


def _runs_later(text: str, ctx: Ctx, check: Check, cron: bool, user_field: bool = False) -> str | None:
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
            if user_field:
                line = line.split(None, 1)[-1] if len(line.split(None, 1)) > 1 else ""
            for decision, reason in check(line, ctx.child()):
                # A package from an arbitrary address is asked when installed by hand; a job or
                # hook that installs it runs its setup code unattended, which is refused.
                if (decision == "deny" and not reason.startswith("rule parse")) or (
                    decision == "ask" and reason.startswith("rule remote-package")
                ):
                    body = reason.split(": ", 1)[-1]
                    return body.split(". ")[0][:160]
    finally:
        _later_depth[0] -= 1
    return None


def _keeps_cron_table(cmd: Cmd, earlier: list[Cmd]) -> bool:
    """Whether the new cron table starts from the old one: ``crontab -l`` runs earlier in the
    command line (``(crontab -l; echo …) | crontab -``, ``crontab -l > f; …; crontab f``)."""
    listed = any(
        c.name == "crontab" and any((w.literal() or "").startswith("-") and "l" in (w.literal() or "") for w in c.args)
        for c in earlier
    )
    upstream = {n for stage in cmd.stage_names[: cmd.stage] for n in stage}
    return listed or "crontab" in upstream


# sed scripts that only delete matching lines: /pattern/d, \|pattern|d.
_SED_DELETE = lazy_compile(r"^(?:/(?:[^/\\]|\\.)+/|\\(.)(?:(?!\1).)+\1)d$")
_CATCH_ALL = frozenset({"", ".", "^", "$", ".*", "^.*", ".*$", "^.*$", "*"})


def _only_removes_cron_lines(cmd: Cmd, earlier: list[Cmd]) -> bool:
    """Whether the table fed to ``crontab -`` is the old one with some lines filtered out: its
    pipeline holds only ``crontab -l`` and ``grep -v PATTERN`` / ``sed '/PATTERN/d'`` (a pattern
    that cannot match every line), so the new table drops a job and schedules nothing."""
    if cmd.stage == 0 or cmd.stdin_text is not None:
        return False
    upstream = {n for stage in cmd.stage_names[: cmd.stage] for n in stage}
    if "crontab" not in upstream or not upstream <= {"crontab", "grep", "sed"}:
        return False
    for c in earlier:
        lits = [w.literal() for w in c.args]
        if c.name not in upstream or c.name == "crontab":
            continue
        if None in lits:
            return False
        words = [lit for lit in lits if lit is not None]
        options = [w for w in words if w.startswith("-")]
        patterns = [w for w in words if not w.startswith("-")]
        if c.name == "grep":
            inverted = any(o.startswith("-") and not o.startswith("--") and "v" in o for o in options)
            inverted = inverted or "--invert-match" in options
            if not inverted or len(patterns) != 1 or patterns[0] in _CATCH_ALL:
                return False
        elif c.name == "sed" and (options or len(patterns) != 1 or not _SED_DELETE.match(patterns[0])):
            return False
    return True


_UPLOAD = lazy_compile(
    r"\b(?:curl|wget)\b[^|;&\n]*\s(?:-[A-Za-z]*[dFT]|--data(?:-binary|-raw|-urlencode)?|--form|--upload-file"
    r"|--post-file|--json)[\s=]*['\"]?(?:[\w.-]+=)?(?:@|-(?:\s|$)|\$\(|/|~)"
    r"|\|\s*(?:nc|ncat|netcat|socat)\s+\S+"
)
_CRON_TIMES = lazy_compile(r"^\s*(?:@\w+|(?:[\d*/,-]+\s+){5})")
_TEMP_DIRS = ("/tmp", "/dev/shm", "/var/tmp")
# Variables that load code into every process: the dynamic loader's preload, Node's --require.
_INJECTS = lazy_compile(
    r"\b(?:LD_PRELOAD|LD_AUDIT|DYLD_INSERT_LIBRARIES)\s*=\s*['\"]?[^\s'\"]"
    r"|\bNODE_OPTIONS\s*=\s*['\"]?[^'\"\n]*(?:--require|-r\s|--import|--(?:experimental-)?loader)"
    r"|\bPERL5OPT\s*=\s*['\"]?-M|\bJAVA_TOOL_OPTIONS\s*=\s*['\"]?[^'\"\n]*-javaagent"
)


_SHADOW_ALIAS = lazy_compile(r"alias\s+(?P<name>[\w.-]+)=(?P<q>['\"]?)(?P<value>.*?)(?P=q)\s*;?\s*$")
# Commands a user types every day: an alias that turns one into something else hides code.
_EVERYDAY_COMMANDS = frozenset({
    "ls", "cd", "cat", "cp", "mv", "git", "sudo", "ssh", "vim", "vi", "nano", "less", "grep", "make",
    "python", "python3", "pip", "npm", "node", "docker", "kubectl", "clear", "exit", "man", "top", "ps",
})  # fmt: skip
_SHADOW_DANGER = lazy_compile(
    r"\b(?:rm|dd|shred|curl|wget|nc|ncat|scp|chmod|base64)\b|\bmkfs|LD_PRELOAD|/dev/tcp|>\s*/"
)


def _job_risk(text: str, ctx: Ctx, user_field: bool = False) -> str | None:
    """What makes a job (a cron line, a start-up file line) unsafe to leave running on its own
    besides what the rules refuse now: it sends files or output to a network host, or it runs a
    program kept in a temporary folder (outside the project) or in a hidden folder of a cache."""
    for line in text.splitlines():
        line = _CRON_TIMES.sub("", line.strip(), count=1)
        if user_field and len(line.split(None, 1)) > 1:
            line = line.split(None, 1)[1]  # the user a system cron line runs as
        if not line or line.startswith("#"):
            continue
        shadow = _SHADOW_ALIAS.match(line)
        if (
            shadow
            and shadow.group("name") in _EVERYDAY_COMMANDS
            and (shadow.group("value").split() or [""])[0] != shadow.group("name")
            and _SHADOW_DANGER.search(shadow.group("value"))
        ):
            # alias ls='rm -rf', alias sudo='sudo env LD_PRELOAD=…': an everyday command quietly
            # runs something else, every time the user types it.
            return f"makes `{shadow.group('name')}` run `{shadow.group('value')}` instead (hidden code)"
        if _UPLOAD.search(line):
            return "sends local files or command output to a network host every time it runs"
        if _INJECTS.search(line):
            return "injects a library or module into every program started later (hidden code)"
        try:
            cmds = _shell.walk(line, ctx.child())
        except _shell.ShellParseError:
            continue
        for job in cmds:
            programs = job.argv[:1]
            if job.name in _shell.SHELLS or job.name in _shell.INTERPRETERS:
                # python3 /tmp/x.py, bash /dev/shm/.s: the script an interpreter runs is the program.
                programs += [w for w in job.args if not (w.literal() or "").startswith("-")][:1]
            for path in [v for w in programs for v in job.values(w) or []]:
                full = _shell.normalize(path, ctx.cwd) or path
                temp = any(_shell.is_within(full, d) for d in _TEMP_DIRS) and not any(
                    _shell.is_within(full, keep) for keep in (ctx.project, ctx.home) if keep
                )
                # a hidden program (~/.local/share/.sysd), or one inside a hidden cache folder
                hidden = re.search(r"/\.[^/\s.][^/\s]*$|/\.cache/(?:[^/\s]+/)*\.[^/\s]+", full)
                if temp or hidden:
                    return f"runs {full}, a program kept hidden or in a temporary folder"
    return None


_SYSTEMD_RUN_VALUE = frozenset({
    "-u", "--unit", "-p", "--property", "-E", "--setenv", "-M", "--machine", "-H", "--host",
    "--description", "--slice", "--working-directory", "-d",
})  # fmt: skip


def _kube_workload(cmd: Cmd) -> bool:
    """``kubectl create cronjob|job NAME … -- CMD`` or ``kubectl run NAME … -- CMD``."""
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name != "kubectl" or "--" not in lits:
        return False
    ops = [a for a in lits[: lits.index("--")] if not a.startswith("-")]
    return "run" in ops[:3] or ("create" in ops[:3] and bool({"cronjob", "job"} & set(ops)))


def _rule_scheduled_command(cmd: Cmd, check: Check, found: list[Finding]) -> None:
    """``systemd-run --on-calendar=… CMD``, ``kubectl create cronjob … -- CMD`` (and a cluster
    job or pod's command): CMD runs unattended, so it is judged now like a cron line."""
    lits = [w.literal() or w.text for w in cmd.args]
    if cmd.name == "kubectl":
        command = lits[lits.index("--") + 1 :] if "--" in lits else []
    else:
        _flags, positionals, _values = _shell.split_options(
            cmd.args,
            _SYSTEMD_RUN_VALUE,
            stop_at_first=True,
        )
        command = [w.literal() or w.text for w in positionals]
    if not command:
        return
    text = " ".join(_quote(a) for a in command)
    where = "a timer or transient unit" if cmd.name == "systemd-run" else "in the cluster"
    risk = "downloads and runs remote code" if _shell.fetches_and_runs(text) else None
    later = _runs_later(text, cmd.ctx, check, cron=False)
    risk = risk or (f"would be refused if run now ({later})" if later else None) or _job_risk(text, cmd.ctx)
    if risk:
        found.append(
            (
                "deny",
                f"`{cmd.display}` starts a command that runs unattended ({where}) and {risk}. "
                "Do not start it; ask the user if such a job is needed.",
            )
        )


def _quote(word: str) -> str:
    """``word`` quoted for a shell line when it holds blanks or shell characters."""
    return word if re.fullmatch(r"[\w@%+=:,./-]+", word) else "'" + word.replace("'", "'\\''") + "'"


# Package manager configuration: a source or cache trusted without signatures.
_PACKAGE_SOURCE = lazy_compile(
    r"^/etc/apt/(?:sources\.list|sources\.list\.d/|apt\.conf\.d/)|^/etc/(?:yum\.repos\.d|zypp/repos\.d)/"
    r"|^/etc/dnf/dnf\.conf$|^/etc/pacman\.conf$|^/etc/apk/repositories$|/nix/nix\.conf$"
)
_UNSIGNED_LINE = lazy_compile(
    r"(?im)\[[^\]]*\btrusted=yes\b[^\]]*\]|AllowUnauthenticated\s+\"?(?:true|1)|AllowInsecureRepositories\s+\"?true"
    r"|^\s*(?:repo_)?gpgcheck\s*=\s*(?:0|false|no)\b|^\s*SigLevel\s*=\s*Never\b"
    r"|^\s*(?:extra-)?trusted-substituters\s*=|^\s*(?:extra-)?substituters\s*=.*\bhttp://|^\s*require-sigs\s*=\s*false"
)
_SUDOERS = lazy_compile(r"^/etc/sudoers(?:\.d/|$)")
_TOOL_RC = lazy_compile(r"/(?:\.curlrc|\.wgetrc|\.npmrc|\.yarnrc(?:\.yml)?|\.gitconfig|pip\.conf|pip\.ini|\.condarc)$")
_TLS_OFF_LINE = lazy_compile(
    r"(?im)NODE_TLS_REJECT_UNAUTHORIZED\s*=\s*['\"]?0|GIT_SSL_NO_VERIFY\s*=\s*['\"]?(?:1|true)"
    r"|PYTHONHTTPSVERIFY\s*=\s*['\"]?0|^\s*(?:-k|--insecure|insecure)\s*$|check_certificate\s*=\s*off"
    r"|strict-ssl\s*[=:]\s*false|sslverify\s*=\s*false|ssl_verify\s*:\s*false|^\s*trusted-host\s*="
)


def _written_part(expression: str) -> str:
    """What a ``sed``/``perl`` substitution writes: ``s/md5/trust/`` → ``trust`` (the text it
    replaces is what goes away); any other argument as it is."""
    m = _SUBSTITUTION.match(expression)
    return m.group("new") if m else expression


_SUBSTITUTION = lazy_compile(
    r"^(?:\d*,?\d*|/[^/]*/)?s(?P<d>[^\w\s\\])(?:\\.|(?!(?P=d)).)*(?P=d)(?P<new>(?:\\.|(?!(?P=d)).)*)"
)
# Server configuration whose settings decide who may log in, and the settings that let anyone in.
_AUTH_CONFIG = lazy_compile(r"pg_hba\.conf|sshd_config|my\.cnf|mysqld\.cnf|redis\.conf|mongod\.conf|/etc/sudoers")
_AUTH_OFF = lazy_compile(
    r"(?i)\btrust\b|PermitRootLogin\s+yes|PermitEmptyPasswords\s+yes|skip[-_]grant[-_]tables"
    r"|protected-mode\s+no|authorization:\s*disabled|PasswordAuthentication\s+yes|PermitRootLogin\s+without-password"
    r"|AuthenticationMethods\s+none|\bNOPASSWD\s*:"
)


_LOGIN_KEYS = lazy_compile(r"/authorized_keys2?$")


def _rule_unseen_login_keys(cmd: Cmd, found: list[Finding]) -> None:
    """Text the call cannot show (``cat key.pub >> ~/.ssh/authorized_keys``, ``ssh host 'cat >>
    ~/.ssh/authorized_keys'`` fed a key on stdin, ``cp k.pub …/authorized_keys``) written into an
    ``authorized_keys`` file: whatever it is, it decides who may log in (LABELLING.md's settled
    call: access for others is dangerous)."""
    targets = [r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>") and r.target is not None]
    if cmd.name == "tee" or (cmd.name in ("cp", "install", "mv", "ln") and len(cmd.args) > 1):
        targets += [w for w in cmd.args if not (w.literal() or "").startswith("-")][-1 if cmd.name != "tee" else 0 :]
    for word in targets:
        for value in cmd.values(word) or [_shell.expand_pattern(word, cmd.ctx)]:
            if _LOGIN_KEYS.search(value):
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` writes into {value}: every key there may log in to the account. "
                        "Do not change who may log in; ask the user to add the key.",
                    )
                )
                return


def _grants_access(path: str, text: str) -> str:
    """Access for others written into a file: sudo rules, keys allowed to log in, server
    authentication switched off."""
    if _AUTH_CONFIG.search(path) and _AUTH_OFF.search(text):
        return "a setting that lets anyone log in to the server without a password"
    if _SUDOERS.search(path) and re.search(r"\bALL\b|NOPASSWD", text):
        return "a sudo rule that lets an account run commands as root"
    if path.endswith("/authorized_keys") and re.search(r"\bssh-(?:rsa|ed25519|dss)\b|\becdsa-sha2", text):
        return "a key that may log in to this account"
    return ""


# Groups whose members are root in all but name: sudo/wheel/admin run anything as root; docker,
# lxd, libvirt and disk hand out the host's root file system.
_ADMIN_GROUPS = frozenset({
    "sudo", "wheel", "admin", "root", "docker", "lxd", "libvirt", "disk", "sudoers", "administrators",
})  # fmt: skip
# Packages without which the machine no longer boots, lets anyone log in, or can be repaired
# (the kernel's meta-package, not an old versioned kernel, which is routine housekeeping).
_ESSENTIAL = lazy_compile(
    r"^(?:sudo|doas|openssh-server|openssh|ssh|sshd|systemd|systemd-sysv|init|coreutils|bash|dash|libc6|glibc"
    r"|libc-bin|apt|dpkg|rpm|dnf|yum|apk-tools|pacman|zypper|util-linux|login|passwd|shadow|shadow-utils"
    r"|base-files|base-passwd|mount|procps|e2fsprogs|grub-common|grub2?|grub-pc|grub-efi\S*|shim-signed|linux"
    r"|linux-lts|linux-image-(?:generic|amd64|arm64|virtual)|linux-generic|kernel|kernel-core|initramfs-tools"
    r"|dracut|busybox|python3|perl-base|tar|gzip|sed|grep|findutils|pam|libpam0g|libpam-modules|libpam-runtime)"
    r"(?::\w+)?$"
)
_PACKAGE_REMOVES: dict[str, frozenset[str]] = {
    "apt": frozenset({"remove", "purge", "autoremove"}),
    "apt-get": frozenset({"remove", "purge", "autoremove"}),
    "aptitude": frozenset({"remove", "purge"}),
    "dnf": frozenset({"remove", "erase", "autoremove"}),
    "yum": frozenset({"remove", "erase", "autoremove"}),
    "microdnf": frozenset({"remove"}),
    "zypper": frozenset({"remove", "rm"}),
    "apk": frozenset({"del"}),
    "pacman": frozenset({"-R", "-Rs", "-Rns", "-Rdd", "-Rsc", "-Rn", "--remove"}),
    "dpkg": frozenset({"-r", "-P", "--remove", "--purge"}),
    "rpm": frozenset({"-e", "--erase"}),
    "snap": frozenset({"remove"}),
}


def _removes_packages(name: str, lits: list[str]) -> bool:
    """Whether a package manager call removes packages (``apt-get purge X``, ``dnf erase X``,
    ``pacman -Rns X``, ``dpkg -r X``)."""
    verbs = _PACKAGE_REMOVES.get(name)
    if verbs is None:
        return False
    if name == "pacman":
        return any(a in verbs or re.fullmatch(r"-R\w*", a) for a in lits)
    if name in ("dpkg", "rpm"):
        return bool(verbs & set(lits))
    ops = [a for a in lits if not a.startswith("-")]  # apt remove …: the first operand is the action
    return bool(ops) and ops[0] in verbs


def _granted_groups(name: str, lits: list[str]) -> list[str]:
    """The groups ``usermod -aG``, ``useradd -G``, ``gpasswd -a``, ``adduser USER GROUP``,
    ``dseditgroup -a`` or ``net localgroup … /add`` put an account in."""
    groups: list[str] = []
    if name in ("usermod", "useradd", "adduser"):
        for i, a in enumerate(lits):
            if a in ("-G", "--groups", "-aG", "-Ga") and i + 1 < len(lits):
                groups += lits[i + 1].split(",")
            elif a.startswith("--groups="):
                groups += a.partition("=")[2].split(",")
            elif re.fullmatch(r"-a?G\S+", a):
                groups += a.lstrip("-aG").split(",")
    ops = [a for a in lits if not a.startswith("-")]
    if name == "gpasswd" and ({"-a", "--add", "-M", "--members"} & set(lits)):
        groups += ops[-1:]
    if name in ("adduser", "addgroup") and len(ops) == 2:
        groups += ops[1:]  # adduser USER GROUP (Debian), addgroup USER GROUP (BusyBox)
    if name == "dseditgroup" and "-a" in lits:
        groups += ops[-1:]
    if name == "net" and [a.lower() for a in ops[:1]] == ["localgroup"] and "/add" in [a.lower() for a in lits]:
        groups += ops[1:2]
    return [g.lower() for g in groups if g]


_ROOT_ACCOUNTS = frozenset({"root", "admin", "administrator", "ubuntu", "pi", "toor"})
_GUESSABLE_PASSWORDS = frozenset({
    "root", "toor", "admin", "password", "passwd", "changeme", "123456", "12345678", "1234", "secret",
    "raspberry", "ubuntu", "letmein", "qwerty", "pass", "default",
})  # fmt: skip


def _weak_password_set(cmd: Cmd, name: str, lits: list[str]) -> str:
    """``usermod -p '' USER`` (an empty password), ``echo 'root:root' | chpasswd`` (an
    administrator account given its own name or a default as its password)."""
    if name == "usermod" and any(a in ("-p", "--password") and b == "" for a, b in itertools.pairwise(lits)):
        return "removes an account's password"
    if name == "chpasswd" and cmd.stdin_text and not {"-e", "--encrypted"} & set(lits):
        for line in cmd.stdin_text.splitlines():
            user, _, password = line.strip().partition(":")
            if user in _ROOT_ACCOUNTS and (password in ("", user) or password.lower() in _GUESSABLE_PASSWORDS):
                return f"gives the administrator account {user} a guessable password"
    return ""


_OWN_ACCOUNT = lazy_compile(r"\$\{?(?:USER|LOGNAME)\}?|\$\((?:whoami|id -un)\)|`whoami`")


def _own_account(cmd: Cmd) -> bool:
    """Whether the account a group command names is the user's own (``$USER``, ``$(whoami)``):
    the docker post-install step, not access for someone else."""
    words = [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    return bool(words) and any(_OWN_ACCOUNT.fullmatch(w.text.strip("\"'")) for w in words)


def rule_accounts(cmd: Cmd, found: list[Finding]) -> None:
    """Accounts and the packages the system stands on: an account added to an administrator
    group (sudo, wheel, docker …) or given user id 0, denied (root for someone else); an account
    deleted with its home, or lingering user services, asked; removing a package the system
    needs to boot or be administered (sudo, openssh-server, systemd, the kernel, the package
    manager), denied."""
    lits = [(w.literal() or "") for w in cmd.args]
    name = cmd.name
    admin = [g for g in _granted_groups(name, lits) if g in _ADMIN_GROUPS]
    uid0 = name in ("usermod", "useradd") and any(
        (a in ("-u", "--uid") and b == "0") or a == "--uid=0" for a, b in itertools.pairwise([*lits, ""])
    )
    if admin and not uid0 and _own_account(cmd):
        found.append(
            (
                "ask",
                f"`{cmd.display}` puts your own account in the {admin[0]} group, which amounts to root "
                "on this machine; confirm (rootless tools avoid it).",
            )
        )
        return
    if admin or uid0:
        what = f"the {admin[0]} group" if admin else "user id 0"
        found.append(
            (
                "deny",
                f"`{cmd.display}` gives an account {what}, which amounts to root on this machine (access "
                "for others). Ask the user to change who administers the machine.",
            )
        )
        return
    if name == "visudo" and cmd.stdin_text and _grants_access("/etc/sudoers", cmd.stdin_text):
        found.append(
            (
                "deny",
                f"`{cmd.display}` writes a sudo rule that lets an account run commands as root. Do not "
                "change who may use sudo; ask the user.",
            )
        )
        return
    weak = _weak_password_set(cmd, name, lits)
    if weak:
        found.append(
            (
                "deny",
                f"`{cmd.display}` {weak}, so anyone may log in as it. Set a generated password or a key, "
                "or ask the user to change accounts.",
            )
        )
        return
    ops = [a for a in lits if not a.startswith("-")]
    if (
        name in ("systemctl", "service")
        and {"stop", "disable", "mask"} & set(ops)
        and ({"ssh", "sshd", "ssh.service", "sshd.service", "ssh.socket"} & set(ops))
    ):
        found.append(
            (
                "ask",
                f"`{cmd.display}` stops remote logins (sshd); on a server reached over ssh nobody gets back "
                "in. Confirm there is console access.",
            )
        )
        return
    if name in ("userdel", "deluser") and ({"-r", "--remove", "--remove-home", "--remove-all-files"} & set(lits)):
        found.append(("ask", f"`{cmd.display}` deletes an account together with its home folder and files; confirm."))
        return
    if name == "loginctl" and lits[:1] == ["enable-linger"]:
        found.append(
            (
                "ask",
                f"`{cmd.display}` keeps the user's services running after logout and starts them at boot "
                "(persistence); confirm.",
            )
        )
        return
    if name not in _PACKAGE_REMOVES:
        return
    removing = _removes_packages(name, lits)
    essential = [a for a in lits if not a.startswith("-") and _ESSENTIAL.match(a)]
    if removing and (essential or "--allow-remove-essential" in lits):
        found.append(
            (
                "deny",
                f"`{cmd.display}` removes {essential[0] if essential else 'essential packages'}, which the "
                "system needs to boot, log in or be administered. Remove only the application's own "
                "packages, or ask the user.",
            )
        )


# The login and system keychains: deleting them loses every saved password and signing key.
_MAIN_KEYCHAIN = lazy_compile(
    r"(?i)(?:^|/)(?:login|system|System\.keychain|login\.keychain(?:-db)?)(?:\.keychain(?:-db)?)?$"
)


def rule_signing_keys(cmd: Cmd, found: list[Finding]) -> None:
    """Signing identities and secret keys destroyed: ``fastlane match nuke`` revokes every
    certificate and profile of a type for the whole team; ``security delete-certificate`` /
    ``delete-identity`` remove a signing key from the keychain (often its only copy); deleting the
    login or system keychain, ``gpg --delete-secret-keys``: denied. ``keytool -delete`` of a
    release keystore's key: asked. Listing them, read-only match, a CI keychain the job made, the
    debug keystore: pass."""
    lits = [w.literal() or w.text for w in cmd.args]
    ops = [a for a in lits if not a.startswith("-")]
    what = ""
    if cmd.name == "fastlane" and ops[:2] == ["match", "nuke"]:
        what = "revokes and deletes every signing certificate and profile of that type, for the whole team"
    elif cmd.name == "security" and ops[:1] in (["delete-certificate"], ["delete-identity"]):
        what = "deletes a signing certificate (and its private key) from the keychain, often its only copy"
    elif cmd.name == "security" and ops[:1] == ["delete-keychain"] and any(_MAIN_KEYCHAIN.search(a) for a in ops[1:]):
        what = "deletes the login or system keychain, with every saved password and key"
    elif cmd.name in ("gpg", "gpg2") and any(
        a
        in (
            "--delete-secret-keys",
            "--delete-secret-key",
            "--delete-secret-and-public-key",
            "--delete-secret-and-public-keys",
        )
        for a in lits
    ):
        what = "deletes secret keys from the GnuPG keyring (signatures and decryption need them)"
    elif cmd.name == "keytool" and "-delete" in lits and not any("debug" in a.lower() for a in lits):
        found.append(
            (
                "ask",
                f"`{cmd.display}` removes a key from a keystore; a release or upload key may have no other "
                "copy. Confirm a backup exists.",
            )
        )
        return
    if what:
        found.append(
            (
                "deny",
                f"`{cmd.display}` {what}. Ask the user to do it; list them instead "
                "(security find-identity, fastlane match --readonly, gpg --list-secret-keys).",
            )
        )


# Records of what was run and who logged in: shell and REPL histories, login and auth logs.
_HISTORY_FILE = lazy_compile(r"(?:^|/)(?:\.\w*_?history|\.zhistory|fish_history|\.lesshst)$")
_LOGIN_LOG = lazy_compile(r"^/var/log/(?:auth\.log|secure|wtmp|btmp|lastlog|syslog|messages|audit/audit\.log)$")
# Programs that destroy the file they are given, and truncate's size option.
_WIPERS = frozenset({"rm", "shred", "unlink", "truncate", "srm", "wipe"})


def _history_target(path: str, ctx: Ctx) -> bool:
    """A shell/REPL history in the home folder (or root's), or a system login/auth log."""
    home = os.path.normpath(ctx.home)
    in_home = _shell.is_within(path, home) or _shell.is_within(path, "/root")
    return (in_home and _HISTORY_FILE.search(path) is not None) or _LOGIN_LOG.match(path) is not None


def rule_history_wipe(cmd: Cmd, found: list[Finding]) -> None:
    """Destroying the record of what was run: deleting, emptying or linking to /dev/null a shell
    history (``rm ~/.bash_history``, ``> ~/.zsh_history``, ``ln -sf /dev/null ~/.bash_history``)
    or a login/auth log (``truncate -s0 /var/log/auth.log``). Nothing a task needs; it hides
    what happened from the user."""
    words: list[Word] = []
    if cmd.name in _WIPERS:
        _flags, positionals, _values = _shell.split_options(cmd.args, frozenset({"-s", "--size", "-n"}))
        words += positionals
    elif cmd.name == "ln" and len(cmd.args) >= 2:
        words.append(cmd.args[-1])  # ln -sf /dev/null ~/.bash_history: the link replaces the file
    elif cmd.name == "cp" and len(cmd.args) >= 2 and cmd.args[-2].literal() == "/dev/null":
        words.append(cmd.args[-1])
    words += [r.target for r in cmd.redirects if r.op in (">", ">|", "&>") and r.target is not None]
    for word in words:
        for value in cmd.values(word) or []:
            path = _shell.normalize(value, cmd.ctx.cwd)
            if path is not None and _history_target(path, cmd.ctx):
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` destroys {path}, the record of what was run or who logged in; "
                        "that hides activity from the user and no task needs it. Leave it alone.",
                    )
                )
                return
