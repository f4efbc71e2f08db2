"""Rule family: Windows programs run from WSL, Git Bash or PowerShell (``cmd.exe /c``, ``reg``,
``schtasks``, ``icacls``, ``bcdedit``, ``vssadmin``, ``wevtutil``, Defender cmdlets …).

Their switches start with a slash and their paths use backslashes, so the POSIX rules read them
poorly; this module reads their words as Windows text (backslashes kept, quotes dropped) and
judges each class with its own rule name:

* ``rm`` — ``rd /s``, ``del /s`` or a wildcard, ``Remove-Item -Recurse`` of a drive root, the
  Windows or Program Files folders, ``C:\\Users``, a user's profile or one of its top folders;
* ``devices`` — ``format X:``, ``diskpart``; ``bcdedit`` changing the boot configuration;
* ``backups`` — shadow copies and system backups deleted (``vssadmin delete shadows``, ``wmic
  shadowcopy delete``, ``wbadmin delete``);
* ``history-wipe`` — event logs cleared or switched off (``wevtutil cl``, ``Clear-EventLog``);
* ``persistence`` — scheduled tasks and autostart registry values (``schtasks /create``,
  ``reg add …\\CurrentVersion\\Run``, ``Register-ScheduledTask``): denied when what they run
  fetches code from the network or hides it (``-EncodedCommand``), else asked (settled: a
  program registered to start at logon is warn);
* ``security-off`` — Defender, UAC, SmartScreen or automatic updates switched off through the
  registry or ``Set-MpPreference``, Defender exclusions (asked; of a drive, the profile or a
  system folder denied), the old ``netsh firewall`` opmode off;
* ``chmod`` — ``icacls … /grant Everyone:F`` (write rights for every user) and ``takeown /r``:
  denied on system or profile folders and recursive grants, asked on one file;
* ``registry`` — ``reg delete`` of a hive's top keys (denied) or another machine-wide key (asked);
  ``reg save`` of the SAM/SECURITY/SYSTEM hives (password hashes) is denied.

Reading commands (``dir``, ``type``, ``where``, ``reg query``, ``schtasks /query``, ``icacls
FILE``, ``bcdedit /enum``, ``vssadmin list``, ``wevtutil qe``) pass.
"""

from __future__ import annotations

import re

import _common
import _shell
from _common import Finding
from _shell import Cmd, lazy_compile

# Text that fetches code from the network or hides it: what a task or autostart value must not run.
_REMOTE_CODE = lazy_compile(
    r"(?i)\b(?:iex|invoke-expression)\b|downloadstring|downloadfile|net\.webclient|\b(?:iwr|irm|invoke-webrequest"
    r"|invoke-restmethod|start-bitstransfer|curl|wget)\b|\bcertutil\b.*-urlcache|\bbitsadmin\b.*/transfer"
    r"|\b(?:mshta|regsvr32|rundll32)\b.*(?:https?:|javascript:|vbscript:)|(?:^|\s)[-/](?:e|ec|enc\w*)\s+[A-Za-z0-9+/=]{4,}"
    r"|(?:^|\s)-w(?:indowstyle)?\s+hidden\b"
    r"|\\\\[\w.-]+@?\w*\\|https?://"
)
# Where downloaded droppers live: a task or autostart value running from there is a strong sign.
_DROP_FOLDER = lazy_compile(r"(?i)%temp%|%tmp%|\\temp\\|\\appdata\\|\\users\\public\\|\$env:temp|/tmp/")

_HIVES = {
    "hklm": "hklm", "hkey_local_machine": "hklm", "hkcu": "hkcu", "hkey_current_user": "hkcu", "hku": "hku",
    "hkey_users": "hku", "hkcr": "hkcr", "hkey_classes_root": "hkcr", "hkcc": "hkcc", "hkey_current_config": "hkcc",
}  # fmt: skip
# Registry keys whose values run a program at logon or boot (or in place of another program).
_AUTOSTART_KEY = lazy_compile(
    r"(?i)\\CurrentVersion\\(?:Run|RunOnce|RunOnceEx|RunServices|RunServicesOnce|Policies\\Explorer\\Run)$"
    r"|\\Winlogon$|\\Image File Execution Options\\|\\Environment$|\\Windows NT\\CurrentVersion\\Windows$"
    r"|\\Explorer\\Shell Folders$|\\Command Processor$"
)
_AUTOSTART_VALUE = frozenset({"shell", "userinit", "debugger", "appinit_dlls", "userinitmprlogonscript", "autorun"})
# Registry values that switch a protection off when set (Disable…=1, Enable…=0 of these).
_ENABLE_PROTECTION = lazy_compile(r"(?i)^enable(?:lua|firewall|smartscreen|virtualizationbasedsecurity|defender)$")
_UPDATES_OFF = frozenset({"noautoupdate", "donotconnecttowindowsupdateinternetlocations"})

_WRITE_RIGHTS = lazy_compile(r"(?i)(?:^|[(,)])(?:F|M|W|GA|GW|WD|AD|WDAC|WO|D|DC)(?:[),]|$)")
_EVERYONE = frozenset({
    "everyone", "*s-1-1-0", "users", "builtin\\users", "*s-1-5-32-545", "authenticated users", "*s-1-5-11",
    "guest", "guests", "anonymous logon", "*s-1-5-7", "nt authority\\authenticated users", "todos", "jeder",
    "tout le monde",
})  # fmt: skip

_DEL_SWITCHES = frozenset({"/s", "/q", "/f", "/p", "/a"})


def _win_text(word: _shell.Word) -> str:
    """A word as Windows reads it: its outer quotes dropped, backslashes kept (bash would eat
    them), PowerShell's $name as written (the walked -Command text spells it ${name})."""
    raw = _BRACED_VAR.sub(r"$\1", word.raw)
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    return raw.replace('"', "").replace("'", "")


_BRACED_VAR = lazy_compile(r"\$\{([\w:]+)\}")


def _win_words(cmd: Cmd) -> list[str]:
    return [_win_text(w) for w in cmd.args]


def _shown(cmd: Cmd) -> str:
    """The command as written (backslashes kept), shortened."""
    text = " ".join(_win_text(w) for w in cmd.argv)
    return text if len(text) <= 120 else text[:117] + "..."


# %VAR% and PowerShell names for the profile and system folders, as plain paths.
_ENV_FOLDERS = {
    "%userprofile%": "c:\\users\\you", "%homedrive%%homepath%": "c:\\users\\you", "%homepath%": "c:\\users\\you",
    "$env:userprofile": "c:\\users\\you", "$home": "c:\\users\\you", "${env:userprofile}": "c:\\users\\you",
    "%systemroot%": "c:\\windows", "%windir%": "c:\\windows", "$env:systemroot": "c:\\windows",
    "$env:windir": "c:\\windows",
    "%programfiles%": "c:\\program files", "%programfiles(x86)%": "c:\\program files (x86)",
    "$env:programfiles": "c:\\program files", "%programdata%": "c:\\programdata", "$env:programdata": "c:\\programdata",
    "%systemdrive%": "c:", "$env:systemdrive": "c:", "%appdata%": "c:\\users\\you\\appdata",
    "$env:appdata": "c:\\users\\you\\appdata", "%localappdata%": "c:\\users\\you\\appdata",
    "$env:localappdata": "c:\\users\\you\\appdata",
}  # fmt: skip
_ENV_REF = lazy_compile(r"(?i)%[\w()]+%(?:%[\w()]+%)?|\$\{?env:\w+\}?|\$home\b")
_SYSTEM_FOLDERS = frozenset({
    "windows", "program files", "program files (x86)", "programdata", "boot", "recovery", "system volume information",
    "$recycle.bin", "perflogs",
})  # fmt: skip
_MATCH_ALL = frozenset({"*", "*.*"})
# A drive seen from WSL (/mnt/c, /mnt/c/…) or Git Bash (/c/…); a bare /c is a cmd switch.
_WSL_DRIVE = lazy_compile(r"^/(?:mnt/([a-z])(?=/|$)|([a-z])(?=/))")


def windows_critical(text: str) -> str | None:
    """Why deleting (or opening to everyone) the Windows path ``text`` is catastrophic, or None:
    a drive root, C:\\Users, a profile or one of its top folders, the system folders. ``X:\\*``
    and ``X:\\*.*`` are judged as the folder they empty. WSL (/mnt/c/…) and Git Bash (/c/…) drive
    paths are read the same way."""
    low = text.strip().lower()
    wsl = _WSL_DRIVE.match(low)
    if wsl:
        low = (wsl.group(1) or wsl.group(2)) + ":" + low[wsl.end() :]
    low = _ENV_REF.sub(lambda m: _ENV_FOLDERS.get(m.group(0), m.group(0)), low).replace("/", "\\")
    m = re.match(r"^([a-z]):(.*)$", low)
    if m is None:
        return None
    comps = [c for c in m.group(2).split("\\") if c not in ("", ".")]
    while comps and comps[-1] in _MATCH_ALL:
        comps.pop()
    if ".." in comps or any("*" in c or "?" in c for c in comps[:-1]):
        return f"{text} (climbs or matches across folders)" if ".." in comps else None
    drive = m.group(1).upper() + ":"
    if any(c in ("temp", "tmp") for c in comps):
        return None  # C:\\Windows\\Temp, a profile's AppData\\Local\\Temp: scratch, cleaned routinely
    if not comps:
        return f"the whole drive {drive}"
    if comps[0] == "users":
        if len(comps) <= 3:
            return f"{text} (every profile, a user's profile or one of its top folders)"
        if comps[2] == "appdata" and len(comps) <= 4:
            return f"{text} (a profile's application data)"
        if comps[2].startswith("."):
            # C:\Users\dev\.ssh, .aws\credentials: a profile's keys, logins and tool settings.
            return f"{text} (a profile's keys or login settings)"
        return None
    if comps[0] in _SYSTEM_FOLDERS and len(comps) <= 3:
        return f"{text} (a system folder)"
    return None


def _drive_letter(text: str) -> bool:
    return re.fullmatch(r"[A-Za-z]:\\?", text) is not None


def _tagged(rule: str, decision: str, reason: str) -> Finding:
    found: list[Finding] = [(decision, reason)]
    _common.tag_rule(rule, found)
    return found[0]


def _judge(name: str, args: list[str], shown: str, found: list[Finding], cwd: str = "") -> None:
    """Judge one Windows command ``name`` with its arguments as Windows text (relative operands
    of deletes taken from ``cwd``, a folder an earlier ``cd`` of the same cmd line chose)."""
    low = [a.lower() for a in args]
    operands = [a for a in args if not a.startswith("/") or _WSL_DRIVE.match(a.lower())]
    if cwd:
        operands = [a if re.match(r"^(?:[A-Za-z]:|[\\/%$~])", a) else cwd.rstrip("\\") + "\\" + a for a in operands]
    if name in ("rd", "rmdir") and "/s" in low:
        for target in operands:
            why = windows_critical(target)
            if why:
                found.append(
                    _tagged(
                        "rm",
                        "deny",
                        f"`{shown}` deletes {why} with everything in it. Delete the one folder "
                        "inside the project you mean (rd /s /q build), or ask the user.",
                    )
                )
                return
    if name in ("del", "erase"):
        recursive = "/s" in low
        for target in operands:
            why = windows_critical(target)
            wild = "*" in target or "?" in target
            if why and (recursive or wild or "\\windows\\" in target.lower()):
                found.append(
                    _tagged(
                        "rm",
                        "deny",
                        f"`{shown}` deletes the files of {why}. Delete the project's own files by "
                        "name or pattern inside the project instead, or ask the user.",
                    )
                )
                return
    if name == "wsl" and any(a in ("--unregister", "--unregister-all") for a in low):
        found.append(
            _tagged(
                "rm",
                "deny",
                f"`{shown}` deletes a whole WSL distribution with every file in it (its home folders "
                "included). Export it first (wsl --export) and ask the user.",
            )
        )
        return
    if name in ("format-volume", "clear-disk", "remove-partition", "initialize-disk"):
        found.append(_tagged("devices", "deny", f"`{shown}` erases a disk or volume. Ask the user to do this."))
        return
    if (name == "auditpol" and any(a in ("/clear", "/remove") or a.endswith(":disable") for a in low)) or (
        name == "fsutil" and "usn" in low and "deletejournal" in low
    ):
        found.append(
            _tagged(
                "history-wipe",
                "deny",
                f"`{shown}` erases or switches off Windows' record of what happens (audit policy, change "
                "journal). Leave it on.",
            )
        )
        return
    if name in ("uninstall-windowsfeature", "remove-windowsfeature", "disable-windowsoptionalfeature") and any(
        "defender" in a for a in low
    ):
        found.append(_tagged("security-off", "deny", f"`{shown}` removes Windows Defender. Leave it installed."))
        return
    if name == "format" and any(_drive_letter(a) for a in args):
        found.append(
            _tagged("devices", "deny", f"`{shown}` formats a whole drive, erasing it. Ask the user to do this.")
        )
    elif name == "diskpart":
        found.append(
            _tagged(
                "devices",
                "ask",
                f"`{shown}` runs the Windows disk partitioner, which can erase disks (clean, format, "
                "delete partition). Show the script and confirm with the user.",
            )
        )
    elif name == "bcdedit" and any(a in ("/set", "/delete", "/deletevalue", "/import", "/bootsequence") for a in low):
        found.append(
            _tagged(
                "devices",
                "deny",
                f"`{shown}` changes the Windows boot configuration (the machine may not start, or "
                "start with protections off). Only read it (bcdedit /enum); ask the user to change it.",
            )
        )
    elif (
        (name == "vssadmin" and low[:1] in (["delete"], ["resize"]))
        or (name == "wmic" and "shadowcopy" in low and "delete" in low)
        or (name == "wbadmin" and low[:1] == ["delete"])
    ):
        found.append(
            _tagged(
                "backups",
                "deny",
                f"`{shown}` deletes the machine's shadow copies or system backups, the only way back "
                "after a loss. Leave them; list them (vssadmin list shadows) if needed.",
            )
        )
    elif (name == "wevtutil" and (low[:1] in (["cl"], ["clear-log"]) or (low[:1] == ["sl"] and "/e:false" in low))) or (
        name in ("clear-eventlog", "remove-eventlog", "limit-eventlog")
    ):
        found.append(
            _tagged(
                "history-wipe",
                "deny",
                f"`{shown}` clears or switches off a Windows event log, the record of what happened; "
                "no task needs it. Query it (wevtutil qe) instead.",
            )
        )
    elif name == "schtasks" and "/create" in low:
        _scheduled_task(args, low, shown, found)
    elif name == "reg":
        _registry(args, low, shown, found)
    elif name in ("icacls", "cacls", "xcacls", "takeown"):
        _access(name, args, low, shown, found)
    elif name in ("set-mppreference", "add-mppreference"):
        _defender(name, args, low, shown, found)
    elif (
        name == "netsh" and "firewall" in low and "opmode" in low and any(a in ("disable", "mode=disable") for a in low)
    ):
        found.append(_tagged("security-off", "deny", f"`{shown}` turns the Windows firewall off. Leave it on."))
    elif name == "net" and low[:1] in (["user"], ["users"]) and "/add" in low:
        found.append(
            _tagged(
                "accounts",
                "ask",
                f"`{shown}` creates a Windows account on this machine; confirm with the user.",
            )
        )
    elif name in ("register-scheduledtask", "new-scheduledtask"):
        _autostart(" ".join(args), shown, "registers a scheduled task", found)
    elif name in ("new-itemproperty", "set-itemproperty") and _AUTOSTART_KEY.search(
        next((a.rstrip("\\") for a in args if re.match(r"(?i)^(?:HK\w+:|Registry::)", a)), "")
    ):
        _autostart(" ".join(args), shown, "adds a program started at every logon (registry Run key)", found)


def _autostart(what_runs: str, shown: str, action: str, found: list[Finding]) -> None:
    """A program registered to run later: denied when it fetches or hides code, else asked."""
    if _REMOTE_CODE.search(what_runs) or _DROP_FOLDER.search(what_runs):
        found.append(
            _tagged(
                "persistence",
                "deny",
                f"`{shown}` {action} that runs code fetched from the network, hidden, or kept in a "
                "temporary/profile folder: persistence. Run the project's own script by hand instead.",
            )
        )
    else:
        found.append(
            _tagged(
                "persistence",
                "ask",
                f"`{shown}` {action}: it keeps running after this session. Confirm with the user "
                "(or run the command directly).",
            )
        )


def _value_after(args: list[str], low: list[str], *switches: str) -> str:
    for i, a in enumerate(low[:-1]):
        if a in switches:
            return args[i + 1]
    return ""


def _scheduled_task(args: list[str], low: list[str], shown: str, found: list[Finding]) -> None:
    _autostart(_value_after(args, low, "/tr"), shown, "registers a scheduled task", found)


def _registry(args: list[str], low: list[str], shown: str, found: list[Finding]) -> None:
    if len(args) < 2:
        return
    op = low[0]
    key = args[1].rstrip("\\")
    hive, _sep, rest = key.partition("\\")
    hive = _HIVES.get(hive.lower().removeprefix("\\\\").split("\\")[-1], "")
    depth = len([c for c in rest.split("\\") if c])
    value = _value_after(args, low, "/v").lower()
    data = _value_after(args, low, "/d")
    if op == "add" and hive:
        if _AUTOSTART_KEY.search(key) or value in _AUTOSTART_VALUE:
            _autostart(data, shown, "adds a program started at every logon (autostart registry value)", found)
        elif (value.startswith("disable") and data.strip().lower() in ("1", "0x1", "0x00000001")) or (
            (_ENABLE_PROTECTION.match(value) and data.strip().lower() in ("0", "0x0", "0x00000000"))
            or (value in _UPDATES_OFF and data.strip() == "1")
            or (value == "fdenytsconnections" and data.strip() in ("0", "0x0"))
        ):
            found.append(
                _tagged(
                    "security-off",
                    "deny",
                    f"`{shown}` switches a Windows protection off through the registry ({value}). "
                    "Leave it on; ask the user if a tool really needs it.",
                )
            )
    elif op == "delete" and hive:
        if depth <= 1 or "\\currentcontrolset" in key.lower() or rest.lower().startswith("system"):
            found.append(
                _tagged(
                    "registry",
                    "deny",
                    f"`{shown}` deletes a top registry key ({key}) that Windows and every program rely "
                    "on. Delete only the one value or key your program created.",
                )
            )
        elif hive in ("hklm", "hkcr", "hku") and "/v" not in low:
            found.append(
                _tagged(
                    "registry",
                    "ask",
                    f"`{shown}` deletes a machine-wide registry key ({key}); confirm it belongs to the "
                    "program being removed.",
                )
            )
    elif op == "save" and hive == "hklm" and rest.lower().split("\\")[0] in ("sam", "security", "system"):
        found.append(
            _tagged(
                "registry",
                "deny",
                f"`{shown}` copies a registry hive that holds the accounts' password hashes. Do not export it.",
            )
        )


def _access(name: str, args: list[str], low: list[str], shown: str, found: list[Finding]) -> None:
    operands = [a for a in args if not a.startswith("/") and ":" not in a[2:]] if name != "takeown" else []
    if name == "takeown":
        target = _value_after(args, low, "/f")
        why = windows_critical(target) if target else None
        if why and "/r" in low:
            found.append(
                _tagged(
                    "chmod",
                    "deny",
                    f"`{shown}` takes ownership of {why} and everything in it, breaking its protection. "
                    "Change only the project's own files.",
                )
            )
        return
    grants = [args[i + 1] for i, a in enumerate(low[:-1]) if a.startswith("/grant") or a in ("/g", "/e")] + [
        a for a in args if ":" in a[2:] and not a.startswith("/")
    ]
    broad = [
        g for g in grants if g.rpartition(":")[0].lower() in _EVERYONE and _WRITE_RIGHTS.search(g.rpartition(":")[2])
    ]
    if not broad:
        return
    target = next((a for a in operands if a.rpartition(":")[0].lower() not in _EVERYONE), "")
    why = windows_critical(target) if target else None
    recursive = "/t" in low or "(oi)" in " ".join(broad).lower() or "(ci)" in " ".join(broad).lower()
    if why or recursive:
        found.append(
            _tagged(
                "chmod",
                "deny",
                f"`{shown}` gives every user write access ({broad[0]}) to {why or target + ' and everything in it'}. "
                "Grant the one account that needs it, on the one file.",
            )
        )
    else:
        found.append(
            _tagged(
                "chmod",
                "ask",
                f"`{shown}` gives every user write access ({broad[0]}) to {target}; grant the one account "
                "that needs it instead, or confirm.",
            )
        )


def _defender(name: str, args: list[str], low: list[str], shown: str, found: list[Finding]) -> None:
    for i, a in enumerate(low):
        # the walked -Command text writes PowerShell's $false as ${false}
        value = low[i + 1].replace("{", "").replace("}", "") if i + 1 < len(low) else "$true"
        if name == "set-mppreference" and a.startswith("-disable") and value not in ("$false", "0", "false"):
            found.append(
                _tagged("security-off", "deny", f"`{shown}` turns Windows Defender protection off. Leave it on.")
            )
            return
        if a.startswith("-exclusion"):
            paths = args[i + 1].split(",") if i + 1 < len(args) else []
            bad = next((p for p in paths if windows_critical(p) or _DROP_FOLDER.search(p)), None)
            found.append(
                _tagged(
                    "security-off",
                    "deny" if bad or a == "-exclusionextension" else "ask",
                    f"`{shown}` excludes {bad or 'files'} from Windows Defender scanning, so malware "
                    "there goes unnoticed. Leave the scanner on; confirm with the user for one build folder.",
                )
            )
            return


# cmd.exe separates commands with &, && , || and |, outside double quotes.
_CMD_SPLIT = lazy_compile(r'&&|\|\||&|\||"[^"]*"')


def _cmd_segments(text: str) -> list[list[str]]:
    """``cmd /c`` text split into commands, each into words (double quotes group, backslashes kept)."""
    segments: list[list[str]] = []
    start = 0
    for m in _CMD_SPLIT.finditer(text):
        if m.group().startswith('"'):
            continue
        segments.append(re.findall(r'"[^"]*"|[^\s"]+', text[start : m.start()]))
        start = m.end()
    segments.append(re.findall(r'"[^"]*"|[^\s"]+', text[start:]))
    return [[w.replace('"', "") for w in seg] for seg in segments if seg]


def _program(word: str) -> str:
    return re.split(r"[\\/]", word)[-1].lower().removesuffix(".exe").removesuffix(".com")


# PowerShell deletes: Remove-Item and its aliases with -Recurse (any abbreviation), on the raw text.
_PS_REMOVE = lazy_compile(r"(?i)(?:^|[;|\n({])\s*(?:remove-item|ri|rm|rd|rmdir|del|erase)\b(?P<args>[^;|\n)}]*)")


_PS_REMOVERS = frozenset({"remove-item", "ri", "rm", "rd", "rmdir", "del", "erase"})


_PS_SHADOW_DELETE = lazy_compile(r"(?i)win32_shadowcopy.*(?:\.delete\(|remove-(?:cim|wmi)\w*)")
# Get-ChildItem X -Recurse | Remove-Item: the listing's folder is what gets deleted.
_PS_LISTED_REMOVE = lazy_compile(
    r"(?i)(?:^|[;\n])\s*(?:get-childitem|gci|ls|dir)\b(?P<args>[^;|\n]*)\|\s*(?:remove-item|ri|rm|del)\b"
)


def _powershell_deletes(text: str, shown: str, found: list[Finding]) -> None:
    if _PS_SHADOW_DELETE.search(text):
        found.append(
            _tagged(
                "backups",
                "deny",
                f"`{shown}` deletes the machine's shadow copies, the only way back after a loss. Leave them.",
            )
        )
        return
    for m in _PS_LISTED_REMOVE.finditer(text):
        words = re.findall(r'"[^"]*"|\'[^\']*\'|\S+', m.group("args"))
        why = next((w for w in (windows_critical(t.strip("\"'")) for t in words if not t.startswith("-")) if w), None)
        if why:
            found.append(
                _tagged(
                    "rm", "deny", f"`{shown}` lists {why} and deletes what it finds. Delete inside the project instead."
                )
            )
            return
    for m in _PS_REMOVE.finditer(text):
        words = re.findall(r'"[^"]*"|\'[^\']*\'|\S+', m.group("args"))
        if not any(re.match(r"(?i)^-r(?:e(?:c(?:u(?:r(?:s(?:e)?)?)?)?)?)?$", w) for w in words):
            continue
        targets = [w.strip("\"'") for w in words if not w.startswith("-")]
        why = next((w for w in map(windows_critical, targets) if w), None)
        if why:
            found.append(
                _tagged(
                    "rm",
                    "deny",
                    f"`{shown}` deletes {why} with everything in it. Delete the one folder inside the "
                    "project you mean, or ask the user.",
                )
            )
            return


def rule_windows(cmd: Cmd, found: list[Finding]) -> None:
    """Windows commands (also inside ``cmd /c`` and PowerShell ``-Command`` text) judged by class."""
    name = cmd.name.removesuffix(".com")
    if name in ("cmd", "command"):
        args = _win_words(cmd)
        low = [a.lower() for a in args]
        at = next((i for i, a in enumerate(low) if a in ("/c", "/k", "/r")), None)
        if at is not None:
            cwd = ""
            for seg in _cmd_segments(" ".join(args[at + 1 :])):
                program = _program(seg[0])
                if program in ("cd", "chdir", "pushd"):
                    cwd = next((a for a in seg[1:] if not a.startswith("/")), cwd)
                    continue
                _judge(program, seg[1:], _shown(cmd), found, cwd)
        return
    if name in _shell.POWERSHELLS:
        lits = [(w.literal() or "").lower() for w in cmd.args]
        at = next((i for i, a in enumerate(lits) if a in ("-c", "-command", "/c", "/command")), None)
        if at is not None:
            _powershell_deletes(" ".join(_win_words(cmd)[at + 1 :]), _shown(cmd), found)
        return
    if name in _PS_REMOVERS:
        # Remove-Item -Recurse $env:USERPROFILE\Desktop written as a bash line (PowerShell's syntax).
        _powershell_deletes(f"{name} " + " ".join(_win_words(cmd)), _shown(cmd), found)
    _judge(name, _win_words(cmd), _shown(cmd), found)
