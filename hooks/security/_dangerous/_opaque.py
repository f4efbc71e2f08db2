"""Opaque execution with a visible danger sign: the fallback for code the parser cannot follow.

``eval`` of a substitution or a variable, ``sh -c "$x"``, a substitution as the command word,
awk's ``system()``/``| getline`` and interpreter code that calls ``system``/``exec``/
``subprocess``/backticks run a command that is only assembled when it runs (``eval $(printf …)``,
``"rm -rf " ENVIRON["HOME"]``). When the other rules cannot resolve it, the text it is built
from is still there: if that text carries a strong sign of danger (a recursive delete of the
home folder, the root or a system folder; mkfs/dd/wipefs onto a disk device; a private key,
cloud credentials or the password hashes being read or sent; a download piped into a shell; a
``/dev/tcp`` socket) the command is denied, whatever its exact assembly. Ordinary uses of the
same mechanisms (``eval "$(ssh-agent -s)"``, ``awk '{system("echo " $1)}'``,
``subprocess.run(["make", "test"])``) carry no such sign and pass.
"""

from __future__ import annotations

import re

import _shell
from _common import Finding
from _shell import Cmd, Word

_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})

# Calls that run a command from interpreter code, in the languages agents write one-liners in.
_CODE_EXEC = _shell.lazy_compile(
    r"\b(?:system|exec[lv]?[pe]?|popen[23]?|spawn(?:Sync)?|execSync|execFileSync|execFile|subprocess|check_output|"
    r"check_call|getoutput|shell_exec|passthru|proc_open|pcntl_exec|IO\.popen|Open3|capture[23]e?|"
    r"os\.execute|Command)\b|%x[({\[|]|\bqx[({\[|/]|`"
)
_AWK_EXEC = _shell.lazy_compile(r"\bsystem\s*\(|\|\s*getline|\|\s*\"[^\"]*\"|print[^;}]*\|\s*\"")

# A recursive delete: rm's flag cluster holding r/R (or --recursive), possibly spread over
# list elements ("rm", "-rf", …) or concatenated strings ("rm -rf " + …), and the tree deleters.
_RM_RECURSIVE = _shell.lazy_compile(
    r"\brm[\"'\s,]+((?:-[\w-]+[\"'\s,]+)+)(?P<rest>.{0,80})|"
    r"\b(?:rmtree|rm_rf|rm_r|remove_tree|RemoveAll|remove_dir_all|rmSync|rimraf)\s*\(\s*(?P<call>.{0,80})",
    re.S,
)
_RECURSIVE_FLAG = _shell.lazy_compile(r"(?:^|[\"'\s,])-(?:[a-zA-Z]*[rR][a-zA-Z]*|-recursive)\b")
# What the delete is given: the home folder in any spelling, the root, or a top-level system folder.
_HOME = (
    r"~|\$HOME\b|\$\{HOME\}|\$ENV\{\s*[\"']?HOME[\"']?\s*\}|ENVIRON\[\s*\"HOME\"\s*\]|"
    r"os\.environ(?:\.get\(|\[)\s*[\"']HOME[\"']\s*[\])]|(?:os\.)?getenv\(\s*[\"']HOME[\"']\s*\)|ENV\[\s*[\"']HOME[\"']\s*\]|"
    r"process\.env(?:\.HOME\b|\[\s*[\"']HOME[\"']\s*\])|(?:require\(\s*[\"']os[\"']\s*\)\.|[A-Za-z_$][\w$]*\.)?homedir\(\)|Path\.home\(\)|Dir\.home\b|"
    r"expanduser\(\s*[\"']~[\"']\s*\)|\$env:(?:USERPROFILE|HOME)\b|\$USERPROFILE\b"
)
_SYSTEM = r"/(?:etc|usr|var|bin|sbin|boot|lib|lib64|home|root|opt|srv|sys|proc|dev|Users|System|Library)?"
# Between the flags and the target: quotes, concatenation, and a placeholder filled after the
# string ("rm -rf %s" % p, "rm -rf {}".format(h), printf 'rm -rf %s' "$HOME").
_FILLED = r"(?:(?:%s|\{\w*\})[\"']\s*(?:%|\.format\()?\s*\(?)?"
_TARGET = _shell.lazy_compile(
    _FILLED
    + r"[\s\"'+.,(\\]*(?:--no-preserve-root[\s\"',]+)?(?:"
    + _HOME
    + "|"
    + _SYSTEM
    + r")/?\*?(?=[\s\"'`);\]},\\]|$)"
)

_DISK = r"/dev/(?:sd[a-z]|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z]|mmcblk\d|disk\d|md\d|mapper/)"
_DEVICE_WRITE = _shell.lazy_compile(
    r"\bof="
    + _DISK
    + r"|\b(?:mkfs(?:\.\w+)?|mke2fs|wipefs|shred|fdisk|sfdisk|sgdisk|parted|blkdiscard)\b[^|;&]{0,80}"
    + _DISK
    + r"|>\s*"
    + _DISK
)
# Private keys, cloud credentials, password hashes, in path or joined-string form.
_SECRET = _shell.lazy_compile(
    r"\.ssh[/\"',\s]+id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\b(?!\.pub)|\.aws[/\"',\s]+credentials\b|/etc/g?shadow\b|"
    r"\.git-credentials\b|\.netrc\b|\.pgpass\b|\.docker/config\.json\b|\.kube/config\b|\.config/gh/hosts\.yml\b"
)
# …and something that reads or sends it (loading a key into an agent is not a leak).
_READS = _shell.lazy_compile(
    r"\b(?:cat|less|more|head|tail|base64|xxd|od|strings|curl|wget|nc|ncat|socat|scp|rsync|cp|mail|sendmail|"
    r"open|read|readFileSync|readFile|File\.read|IO\.read|file_get_contents|slurp|print|puts|echo|printf|gpg|tar|zip)\b"
)
_REMOTE = _shell.lazy_compile(
    r"\b(?:curl|wget|fetch|iwr|irm)\b[^|;&]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da|k|fi|c)?sh\b|/dev/(?:tcp|udp)/|"
    r"\b(?:nc|ncat|netcat)\b[^|;&]{0,80}\s-[ec]\s"
)


# A variable the code sets to the home folder (h = Dir.home, my $d = $ENV{HOME}, const h =
# os.homedir()): its later uses ("rm -rf $d", `rm -rf #{h}`, "rm -rf " + h) name the home folder.
_HOME_VAR = _shell.lazy_compile(
    r"(?:^|[;{(\s])(?:my\s+|local\s+|const\s+|let\s+|var\s+)?\$?(?P<name>[A-Za-z_]\w*)\s*=\s*"
    r"(?:[\"']?(?P<home>" + _HOME + r")|[\"'](?P<root>" + _SYSTEM + r")[\"'])"
)


def _home_vars_as_tilde(text: str) -> str:
    """``text`` with uses of variables that hold the home folder written as ``~`` (and those
    that hold the root or a system folder written as that path)."""
    for m in list(_HOME_VAR.finditer(text)):
        n = re.escape(m.group("name"))
        value = "~" if m.group("home") is not None else m.group("root")
        text = re.sub(r"\$\{" + n + r"\}|#\{" + n + r"\}|\$" + n + r"\b|\{" + n + r"\}", value, text)
        # Concatenation: + (Python, JS, Ruby), . (Perl, PHP), a string followed by it (awk),
        # a placeholder's filling (% p, .format(p)).
        text = re.sub(r"(?P<op>[+.%]\s*|\.format\(\s*|[\"']\s+)" + n + r"\b", r"\g<op>" + value, text)
    return text


def _calls(pattern: _shell.LazyPattern, code: str) -> bool:
    """Whether ``pattern`` (a call that runs a command) occurs in ``code`` outside its string
    literals: "system(\\"rm -rf ~\\")" printed or measured as a string runs nothing."""
    return any(not _shell.only_in_literals(code, *m.span()) for m in pattern.finditer(code))


def _awk_program(cmd: Cmd) -> str | None:
    """The program text of an awk call, after its -v assignments (``h="$HOME"; BEGIN{…}``: they
    are the program's variables); None when the program is not literal or is in a file."""
    parts = _shell.awk_parts(cmd)
    if parts is None:
        return None
    assigned, program = parts
    lit = program.literal()
    return None if lit is None else " ".join([*(w.raw + ";" for w in assigned), lit])


def _opaque_words(cmd: Cmd) -> tuple[str, list[Word]] | None:
    """What kind of opaque execution ``cmd`` is, and the words whose text it runs."""
    argv = cmd.argv
    if not argv:
        return None
    if argv[0].literal() is None and (argv[0].subs() or any(isinstance(p, _shell.Var) for p in argv[0].parts)):
        # "$@" after set -- …, $CMD: the words come from elsewhere in the line.
        return "a command word computed when it runs", [*argv, Word([_shell.Var("@")], "$@")]
    if cmd.name == "eval":
        if any(w.literal() is None for w in cmd.args):
            return "eval of text computed when it runs", cmd.args
        return None
    if cmd.name in _shell.SHELLS:
        script, _stdin, _file = _shell.shell_invocation(cmd.args)
        if script is not None and script.literal() is None:
            return "a shell running text computed when it runs", [script]
        return None
    if cmd.name in _AWKS:
        code = _awk_program(cmd)
        if code is not None and _calls(_AWK_EXEC, code):
            return "awk code that runs a shell command", [Word([_shell.Lit(code, True)], code)]
        return None
    if cmd.name in _shell.INTERPRETERS:
        codes = _shell.code_of(cmd)
        text = "\n".join(codes)
        if codes and _calls(_CODE_EXEC, text):
            return "interpreter code that runs a command", [Word([_shell.Lit(text, True)], text)]
    return None


def danger_sign(text: str) -> str | None:
    """The strong sign of danger in ``text`` (code about to be assembled and run), or None."""
    for m in _RM_RECURSIVE.finditer(text):
        if m.group("call") is not None:
            rest = m.group("call")
        elif _RECURSIVE_FLAG.search(" " + m.group(1)):
            rest = m.group("rest")
        else:
            continue
        if _TARGET.match(rest):
            return "a recursive delete of the home folder, the root or a system folder"
    if _DEVICE_WRITE.search(text):
        return "a disk device being formatted or overwritten"
    if _REMOTE.search(text):
        return "code fetched from the network piped into a shell, or a raw network socket"
    if _SECRET.search(text) and _READS.search(text):
        return "a private key, credentials file or password hashes being read"
    return None


def rule_opaque_exec(cmd: Cmd, line: str, found: list[Finding]) -> None:
    """Deny opaque execution (see the module docstring) whose text carries a strong danger sign.

    The text judged is the executed words' source; when they use a variable assigned in the
    same command line, the whole line too, since that is where the variable got its value."""
    got = _opaque_words(cmd)
    if got is None:
        return
    what, words = got
    text = " ".join(w.raw for w in words)
    if any(
        isinstance(p, _shell.Var) and (p.name == "@" or re.search(rf"\b{re.escape(p.name)}=", line))
        for w in words
        for p in w.parts
    ):
        text += "\n" + line  # the variable got its value in this line: its definition is code too
    sign = danger_sign(_home_vars_as_tilde(_shell.home_literals(text)))
    if sign is None:
        return
    found.append(
        (
            "deny",
            f"`{cmd.display}` runs {what}, and that text holds {sign}. Write the command out plainly "
            "(no eval, sh -c of a variable or system() wrapper), with the specific in-project paths it "
            "should touch, so it can be checked.",
        )
    )


# Programs that only show, search or store text: a script in their arguments is data.
_TEXT_TOOLS = frozenset({
    "echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "git", "gh", "glab", "jq",
    "yq", "tee", "cat", "less", "head", "tail", "wc", "sort", "diff", "comm", "cut", "tr", "base64",
})  # fmt: skip
# A key or option that carries a script for some other machine or service to run:
# commandToExecute, startup-script=, --user-data, commands=[…], ExecStart=, --script.
_CODE_KEY = _shell.lazy_compile(
    r"(?i)(?:^|[\s{,=\"'])(?:[\w-]*(?:command|script|exec|cmd|user[-_]?data|run)[\w-]*)[\"']?\s*[:=]|"
    r"^--?[\w-]*(?:command|script|exec|cmd|user-data)[\w-]*$"
)


def rule_code_argument(cmd: Cmd, found: list[Finding]) -> None:
    """A shell script handed over as an argument for a service or another machine to run (``az vm
    extension set --settings '{"commandToExecute": "…"}'``, ``gcloud compute instances
    add-metadata --metadata startup-script='…'``, ``aws ssm send-command --parameters
    commands=[…]``): the hooks cannot follow where it runs, so the script's own text is judged;
    a strong danger sign in it (download piped into a shell, recursive delete of home or root,
    a disk written, a secret read, a raw socket) is denied. Text tools' arguments stay data."""
    if cmd.name in _TEXT_TOOLS or cmd.name in _shell.SHELLS or cmd.name in _shell.INTERPRETERS or cmd.name == "eval":
        return  # shells, interpreters and eval are walked into; text tools only show text
    args = cmd.args
    for i, word in enumerate(args):
        text = " ".join(cmd.values(word) or [word.text])
        previous = (args[i - 1].literal() or "") if i else ""
        if not (_CODE_KEY.search(text) or _CODE_KEY.search(previous)):
            continue
        sign = danger_sign(_shell.home_literals(text))
        if sign is not None:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` hands over a script to run elsewhere (a VM, an instance's start-up, a "
                    f"remote agent), and that script holds {sign}. Do not send it; write the commands "
                    "the machine really needs, from files reviewed in the project.",
                )
            )
            return


# Folder names that say a file is a specimen under analysis, not the project's own code.
_SAMPLE_DIRS = frozenset({"malware", "malicious", "suspicious", "quarantine", "quarantined", "infected", "untrusted"})


def _names_sample(text: str) -> str | None:
    """The first path in ``text`` with a folder (or file stem) named like a malware specimen."""
    for token in re.split(r"[\s\"'=<>|;&()]+", text):
        comps = [c.lower() for c in token.split("/")]
        if len(comps) > 1 and any(c in _SAMPLE_DIRS for c in comps[:-1]):
            return token
    return None


def rule_runs_sample(cmd: Cmd, found: list[Finding]) -> None:
    """A shell or interpreter running a file kept as a suspicious specimen (``bash
    samples/suspicious/dropper.sh``, ``perl -e "$(cat quarantine/obf.pl)"``, ``node
    malware/loader.js``): analysts read, hash and diff specimens; running one runs the attack.
    A specimen passed as data to a program of the project's own (``python tools/scan.py
    samples/malware/x.bin``) passes."""
    if cmd.name not in _shell.SHELLS and cmd.name not in _shell.INTERPRETERS and cmd.name not in ("source", "."):
        return
    first = next((w for w in cmd.args if not (w.literal() or "").startswith("-")), None)
    code_words = [
        cmd.args[i + 1]
        for i, w in enumerate(cmd.args[:-1])
        if (w.literal() or "") in ("-c", "-e", "-E", "-r", "--eval", "-p", "--print")
    ]
    # Code given inline is judged only where it is made from a file ("$(cat x/obf.pl)"): code
    # that merely opens a specimen to read it is analysis.
    texts = [sub.source for w in code_words for sub in w.subs()]
    if first is not None and not code_words:
        texts.append(first.raw)
    sample = next((p for p in (_names_sample(t) for t in texts) if p), None)
    if sample is None:
        return
    found.append(
        (
            "ask",
            f"`{cmd.display}` runs {sample}, a file kept as a suspicious specimen. Analyse it without "
            "executing it (read, hash, strings, a disassembler), or run it only in a throwaway sandbox "
            "the user sets up.",
        )
    )
