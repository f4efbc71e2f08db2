"""Command knowledge: program families, option parsing, wrappers that run another program
(``sudo``, ``env``, ``xargs``, ``ssh`` …), how a shell gets its script, what ``echo`` prints."""

from __future__ import annotations

import os
import re
import shlex

from ._expand import Ctx, brace_expand, expand, var_values
from ._lazy_re import lazy_compile
from ._model import Lit, Part, Redirect, Var, Word
from ._parser import decode_escapes

SHELLS = frozenset({
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh", "rbash",
    "nu", "xonsh", "elvish", "osh", "ysh", "oil", "murex", "ion",
})  # fmt: skip
INTERPRETERS = frozenset({
    "python", "perl", "ruby", "node", "nodejs", "php", "deno", "bun", "osascript", "pwsh", "lua",
    "rscript", "julia", "elixir", "tclsh", "matlab", "octave", "octave-cli",
})  # fmt: skip
DOWNLOADERS = frozenset({
    "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET",
    # PowerShell's download cmdlets and their aliases (pwsh runs on Linux and macOS too).
    "iwr", "irm", "invoke-webrequest", "invoke-restmethod", "start-bitstransfer",
})  # fmt: skip
POWERSHELLS = frozenset({"pwsh", "powershell"})
DECODERS = frozenset({"base64", "base32", "xxd", "uudecode", "openssl", "gunzip", "zcat", "rev", "tr"})


def prog_name(word: Word, ctx: Ctx) -> str:
    """The program a word names: basename, lowercased, ``python3.11`` → ``python``."""
    values = expand(word, ctx)
    if not values:
        return ""
    name = os.path.basename(values[0].rstrip("/")).lower().removesuffix(".exe")
    if re.fullmatch(r"python[0-9.]*", name) or name in ("pypy", "pypy3"):
        return "python"
    if re.fullmatch(r"(perl|ruby|php|lua)[0-9.]*", name):
        return re.sub(r"[0-9.]+$", "", name)
    if name.startswith("busybox"):
        return "busybox"
    return name


def is_assignment(word: Word) -> bool:
    """``NAME=value`` (the name part unquoted)."""
    first = word.parts[0] if word.parts else None
    return (
        isinstance(first, Lit) and not first.quoted and re.match(r"[A-Za-z_][A-Za-z0-9_]*\+?=", first.text) is not None
    )


def split_assignment(word: Word) -> tuple[str, Word]:
    """Split ``NAME=value`` into the name and the value word."""
    first = word.parts[0]
    assert isinstance(first, Lit)
    name, _, rest = first.text.partition("=")
    value_parts: list[Part] = ([Lit(rest, False)] if rest else []) + word.parts[1:]
    return name.rstrip("+"), Word(value_parts, word.raw.partition("=")[2])


class Cmd:
    """One command that would run, after wrappers were stripped."""

    name: str
    argv: list[Word]
    redirects: list[Redirect]
    ctx: Ctx
    origin: str
    stage: int
    stage_names: list[set[str]]
    prev: Cmd | None
    xargs: bool
    stdin_text: str | None
    wrappers: list[str]
    env: dict[str, str]

    def __init__(
        self,
        name: str,
        argv: list[Word],
        redirects: list[Redirect],
        ctx: Ctx,
        origin: str = "top",
        stage: int = 0,
        stage_names: list[set[str]] | None = None,
        prev: Cmd | None = None,
        xargs: bool = False,
        stdin_text: str | None = None,
        wrappers: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.argv = argv
        self.redirects = redirects
        self.ctx = ctx
        self.origin = origin
        self.stage = stage
        self.stage_names = [] if stage_names is None else stage_names
        self.prev = prev
        self.xargs = xargs
        self.stdin_text = stdin_text
        self.wrappers = [] if wrappers is None else wrappers
        self.env = {} if env is None else env  # NAME=value words before the command
        # Programs whose output reaches stdin through ``< <(…)`` (pipes are in stage_names).
        self.stdin_sources: set[str] = set()
        self.replace: str | None = None  # xargs -I R: R stands for each input line
        # Commands that must have succeeded for this one to run: earlier ones joined to it by
        # "&&", an if's condition for its branch (test -z "$(git status --porcelain)" && …).
        self.guards: list[Cmd] = []
        # The pipeline that must have failed for this one to run (a || b; ! a && b).
        self.unless: list[Cmd] = []
        # ssh -R [bind:]port:host:hostport specs of the call (its argv is the remote command).
        self.forwards: list[str] = []

    @property
    def args(self) -> list[Word]:
        """Arguments after the program name."""
        return self.argv[1:]

    def values(self, word: Word) -> list[str] | None:
        """Candidate values of ``word`` in this command's context."""
        return expand(word, self.ctx)

    @property
    def display(self) -> str:
        """The command in display form, shortened."""
        text = " ".join(w.text for w in self.argv)
        return text if len(text) <= 120 else text[:117] + "..."


class OptSpec:
    """Options of a wrapper or tool: which take a value, and where commands start."""

    with_value: frozenset[str]
    positional_before_cmd: int

    def __init__(
        self,
        with_value: frozenset[str] = frozenset(),
        positional_before_cmd: int = 0,
    ) -> None:
        self.with_value = with_value
        self.positional_before_cmd = positional_before_cmd


def split_options(
    args: list[Word], with_value: frozenset[str] | set[str] = frozenset(), stop_at_first: bool = False
) -> tuple[list[str], list[Word], dict[str, list[Word]]]:
    """GNU-style option split.

    Returns (flags, positionals, values): short clusters are expanded (``-rf`` → ``r``,
    ``f``), long options keep their name (``recursive``), options in ``with_value`` take
    the next word (or ``=value``). ``--`` ends options. With ``stop_at_first`` the first
    positional ends option parsing (as for wrappers).
    """
    flags: list[str] = []
    positionals: list[Word] = []
    values: dict[str, list[Word]] = {}
    i = 0
    ended = False
    while i < len(args):
        word = args[i]
        text = word.literal()
        if ended or text is None or not text.startswith("-") or text == "-":
            positionals.append(word)
            i += 1
            if stop_at_first:
                positionals.extend(args[i:])
                break
            continue
        if text == "--":
            ended = True
            i += 1
            continue
        if text.startswith("--"):
            name, eq, val = text[2:].partition("=")
            flags.append(name)
            if eq:
                values.setdefault(name, []).append(Word([Lit(val, True)], val))
            elif "--" + name in with_value and i + 1 < len(args):
                values.setdefault(name, []).append(args[i + 1])
                i += 1
            i += 1
            continue
        cluster = text[1:]
        for j, ch in enumerate(cluster):
            flags.append(ch)
            if "-" + ch in with_value:
                rest = cluster[j + 1 :]
                if rest:
                    values.setdefault(ch, []).append(Word([Lit(rest, True)], rest))
                elif i + 1 < len(args):
                    values.setdefault(ch, []).append(args[i + 1])
                    i += 1
                break
        i += 1
    return flags, positionals, values


# Options of cluster launchers (Slurm srun/salloc/sbatch, Open MPI/MPICH, LSF bsub) that take a
# value as the next word; the rest are flags or --opt=value.
_LAUNCHER_VALUES = frozenset({
    "-N", "-n", "-c", "-p", "-t", "-A", "-J", "-o", "-e", "-i", "-q", "-w", "-x", "-G", "-W",
    "-R", "-M", "-P", "-np", "-npernode", "-ppn", "-hostfile", "-machinefile", "-host", "-H",
    "-wdir", "-env", "--nodes", "--ntasks", "--cpus-per-task", "--partition", "--time",
    "--account", "--job-name", "--output", "--error", "--qos", "--mem", "--gres", "--constraint",
    "--nodelist", "--exclude", "--chdir", "--hostfile", "--host", "--map-by", "--bind-to",
    "--mca", "--ntasks-per-node", "--gpus", "--gpus-per-node", "--mem-per-cpu",
})  # fmt: skip
_WRAPPERS: dict[str, OptSpec] = {
    "sudo": OptSpec(
        frozenset(
            {
                "-u",
                "-g",
                "-p",
                "-C",
                "-D",
                "-h",
                "-r",
                "-t",
                "-T",
                "-U",
                "--user",
                "--group",
                "--prompt",
                "--close-from",
                "--chdir",
                "--host",
                "--role",
                "--type",
                "--command-timeout",
                "--other-user",
            }
        )
    ),
    "doas": OptSpec(frozenset({"-u", "-C"})),
    "nice": OptSpec(frozenset({"-n", "--adjustment"})),
    "nohup": OptSpec(),
    # systemd-run [--on-calendar=… --user …] CMD: CMD runs as a transient unit, now or later.
    "systemd-run": OptSpec(
        frozenset(
            {
                "-u",
                "--unit",
                "-p",
                "--property",
                "-E",
                "--setenv",
                "-M",
                "--machine",
                "-H",
                "--host",
                "--description",
                "--slice",
                "--uid",
                "--gid",
                "--nice",
                "--working-directory",
                "--service-type",
                "--on-active",
                "--on-boot",
                "--on-startup",
                "--on-unit-active",
                "--on-unit-inactive",
                "--on-calendar",
                "--timer-property",
                "--path-property",
                "--socket-property",
            }
        )
    ),
    "builtin": OptSpec(),
    "exec": OptSpec(frozenset({"-a"})),
    "time": OptSpec(frozenset({"-f", "--format", "-o", "--output"})),
    "stdbuf": OptSpec(frozenset({"-i", "-o", "-e", "--input", "--output", "--error"})),
    "ionice": OptSpec(frozenset({"-c", "-n", "-t", "--class", "--classdata"})),
    "timeout": OptSpec(frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "chroot": OptSpec(frozenset({"--userspec", "--groups"}), 1),
    "setsid": OptSpec(),
    "taskset": OptSpec(frozenset(), 1),
    "chrt": OptSpec(frozenset(), 1),
    "unbuffer": OptSpec(),
    "caffeinate": OptSpec(frozenset({"-t", "-w"})),
    "busybox": OptSpec(),
    "proxychains": OptSpec(frozenset({"-f"})),
    "proxychains4": OptSpec(frozenset({"-f"})),
    "torsocks": OptSpec(),
    "strace": OptSpec(frozenset({"-o", "-e", "-p", "-s", "-u"})),
    "ltrace": OptSpec(frozenset({"-o", "-e", "-p", "-s", "-u"})),
    "npx": OptSpec(frozenset({"-p", "--package"})),
    "pnpx": OptSpec(frozenset({"-p", "--package"})),
    "bunx": OptSpec(frozenset({"-p", "--package"})),
    "shx": OptSpec(),  # shx rm -rf …: ShellJS's portable Unix commands, run as themselves
    # HPC launchers run their command on cluster nodes (srun -N 2 ./solver, mpirun -np 8 cmd).
    "srun": OptSpec(_LAUNCHER_VALUES),
    "salloc": OptSpec(_LAUNCHER_VALUES),
    "mpirun": OptSpec(_LAUNCHER_VALUES),
    "mpiexec": OptSpec(_LAUNCHER_VALUES),
    "bsub": OptSpec(_LAUNCHER_VALUES),
    "then": OptSpec(),
    "do": OptSpec(),
    "else": OptSpec(),
    "elif": OptSpec(),
    "if": OptSpec(),
    "while": OptSpec(),
    "until": OptSpec(),
    "!": OptSpec(),
}
_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!"})
_XARGS_VALUE = frozenset(
    {
        "-I",
        "-n",
        "-P",
        "-d",
        "-L",
        "-s",
        "-a",
        "-E",
        "-e",
        "--max-args",
        "--max-procs",
        "--delimiter",
        "--arg-file",
        "--replace",
        "--max-lines",
        "--eof",
        "--max-chars",
        "--process-slot-var",
    }
)
_ENV_VALUE = frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})
_SSH_VALUE = frozenset(
    {
        "-b",
        "-c",
        "-D",
        "-E",
        "-e",
        "-F",
        "-I",
        "-i",
        "-J",
        "-L",
        "-l",
        "-m",
        "-O",
        "-o",
        "-p",
        "-Q",
        "-R",
        "-S",
        "-W",
        "-w",
        "-B",
    }
)
_SU_VALUE = frozenset(
    {"-c", "--command", "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"}
)
_DOCKER_EXEC_VALUE = frozenset(
    {"-e", "--env", "-u", "--user", "-w", "--workdir", "--env-file", "--detach-keys", "--index"}
)
# "uv run CMD", "bundle exec CMD": tools whose subcommand runs another program.
_RUNNERS = {
    "uv": "run",
    "poetry": "run",
    "pipenv": "run",
    "pdm": "run",
    "hatch": "run",
    "rye": "run",
    "bundle": "exec",
    "pnpm": "exec",
    "conda": "run",
    "npm": "exec",
    "yarn": "exec",
    "bun": "x",
}
# Their other subcommands that run a program (pnpm dlx rimraf …, npm x …).
_RUNNER_ALSO = {"pnpm": ("dlx",), "yarn": ("dlx",), "npm": ("x",)}
# Options a runner takes before its subcommand, with a value (pnpm --filter @acme/db exec …,
# pnpm -C apps/web exec …, conda -n env run …); other leading options are flags (pnpm -r exec).
_RUNNER_LEAD_VALUE = frozenset({
    "--filter", "-F", "-C", "--dir", "--workspace-concurrency", "--reporter", "--loglevel",
    "-w", "--workspace", "--cwd", "-n", "--name", "-p", "--prefix", "--project", "--directory",
})  # fmt: skip


def _runner_rest(name: str, rest: list[Word]) -> list[Word] | None:
    """The words after a runner's subcommand (``pnpm -r --filter web exec rm -rf dist`` →
    ``rm -rf dist``), None if the call is not that runner's run subcommand."""
    i = 0
    while i < len(rest):
        lit = rest[i].literal()
        if lit is None:
            return None
        if lit == _RUNNERS[name] or lit in _RUNNER_ALSO.get(name, ()):
            return rest[i + 1 :]
        if not lit.startswith("-"):
            return None
        i += 2 if lit in _RUNNER_LEAD_VALUE else 1
    return None


_SHELL_VALUE = frozenset({"-o", "-O", "+O", "+o", "--rcfile", "--init-file"})
_WATCH_VALUE = frozenset({"-n", "--interval", "-q", "--equexit"})


# Options that take a value, per tool, so a value is not mistaken for a file argument.
VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "tail": frozenset({"-n", "-c", "--lines", "--bytes", "-s"}),
    "grep": frozenset(
        {
            "-e",
            "-f",
            "-m",
            "-A",
            "-B",
            "-C",
            "--regexp",
            "--file",
            "--max-count",
            "--include",
            "--exclude",
            "--label",
            "-d",
            "-D",
        }
    ),
    "rg": frozenset(
        {
            "-e",
            "-f",
            "-g",
            "--glob",
            "-t",
            "--type",
            "-T",
            "-m",
            "-A",
            "-B",
            "-C",
            "--regexp",
            "--file",
            "-r",
            "--replace",
            "-j",
            "-M",
        }
    ),
    "sed": frozenset({"-e", "-f", "-l", "--expression", "--file"}),
    "awk": frozenset({"-f", "-v", "-F"}),
    "gawk": frozenset({"-f", "-v", "-F"}),
    "cut": frozenset({"-d", "-f", "-c", "-b"}),
    "sort": frozenset({"-k", "-t", "-o", "-S"}),
    "tar": frozenset({"-f", "-C", "--file", "--directory", "-T", "-X", "--exclude"}),
    "make": frozenset({"-C", "--directory", "-f", "--file", "-j", "--jobs", "-I", "-o", "-W"}),
    "xxd": frozenset({"-l", "-s", "-c", "-g"}),
    "base64": frozenset({"-w", "--wrap"}),
    "cp": frozenset({"-t", "--target-directory", "-S", "--suffix"}),
    "install": frozenset({"-t", "--target-directory", "-m", "-o", "-g"}),
    "scp": frozenset({"-i", "-P", "-o", "-F", "-c", "-l", "-J", "-S"}),
    "rsync": frozenset({"-e", "--exclude", "--include", "--rsh", "-f", "--filter"}),
    "jq": frozenset({"--arg", "--argjson", "-f", "--from-file", "--indent"}),
    "split": frozenset({"-l", "-b", "-n", "-a"}),
    "diff": frozenset({"-U", "-C", "-x", "-X"}),
}
VALUE_OPTIONS["egrep"] = VALUE_OPTIONS["fgrep"] = VALUE_OPTIONS["grep"]
VALUE_OPTIONS["ag"] = VALUE_OPTIONS["ack"] = VALUE_OPTIONS["rg"]
VALUE_OPTIONS["mawk"] = VALUE_OPTIONS["awk"]
# Tools whose first positional is a pattern/program unless -e/-f gives it.
PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "jq", "yq"})


class _Unwrapped:
    argv: list[Word]
    wrappers: list[str]
    xargs: bool
    scripts: list[tuple[str, str, bool]]  # origin, text, remote
    remote: bool

    def __init__(
        self,
        argv: list[Word],
        wrappers: list[str] | None = None,
        xargs: bool = False,
        scripts: list[tuple[str, str, bool]] | None = None,
        remote: bool = False,
    ) -> None:
        self.argv = argv
        self.wrappers = [] if wrappers is None else wrappers
        self.xargs = xargs
        self.scripts = [] if scripts is None else scripts
        self.remote = remote
        self.replace: str | None = None  # xargs -I R: R stands for each input line
        self.forwards: list[str] = []  # ssh -R specs: ports of this machine opened on the remote one


_ANSIBLE_VALUE = frozenset({
    "-m", "--module-name", "-a", "--args", "-i", "--inventory", "-u", "--user", "-e",
    "--extra-vars", "-f", "--forks", "-l", "--limit", "-t", "--tree", "-B", "--background",
    "-P", "--poll", "-M", "--module-path", "--become-user", "--become-method", "-c",
    "--connection", "-T", "--timeout", "--private-key", "--key-file", "--vault-id",
})  # fmt: skip
_ANSIBLE_SHELL_MODULES = frozenset({"shell", "command", "raw", "script"})


def _fleet_command(name: str, rest: list[Word], ctx: Ctx) -> str | None:
    """The shell command a fleet tool runs on remote hosts, or None (not such a call)."""
    if name == "ansible":
        _flags, _pos, values = split_options(rest, _ANSIBLE_VALUE)
        modules = [words_text([w], ctx) for w in values.get("m", []) + values.get("module-name", [])]
        module = (modules[-1] if modules else "command").rsplit(".", 1)[-1]
        args = values.get("a", []) + values.get("args", [])
        if module in _ANSIBLE_SHELL_MODULES and args:
            return words_text(args[-1:], ctx)
        return None
    if name in ("salt", "salt-ssh"):
        lits = [w.literal() for w in rest]
        for i, lit in enumerate(lits):
            if lit in ("cmd.run", "cmd.shell", "cmd.run_all", "cmd.script") and i + 1 < len(rest):
                return words_text(rest[i + 1 : i + 2], ctx)
        return None
    if name in ("pdsh", "pssh", "parallel-ssh", "clush"):
        value_opts = frozenset({"-w", "-x", "-g", "-h", "-H", "-l", "-p", "-t", "-O", "-o", "-e", "-R", "-f"})
        _flags, positionals, _values = split_options(rest, value_opts, stop_at_first=True)
        return words_text(positionals, ctx) if positionals else None
    return None


_TMUX_NEW = frozenset({"new", "new-session", "new-window", "neww", "split-window", "splitw", "respawn-pane"})
_TMUX_VALUE = frozenset({"-s", "-n", "-t", "-c", "-e", "-x", "-y", "-F", "-l"})


_DOCKER_RUN_VALUE = frozenset({
    "-a", "--attach", "-c", "--cpu-shares", "--cidfile", "--cpus", "--cpuset-cpus", "--device",
    "--dns", "--entrypoint", "-e", "--env", "--env-file", "--expose", "--gpus", "-h", "--hostname",
    "--health-cmd", "--ip", "--ipc", "-l", "--label", "--label-file", "--log-driver", "--log-opt",
    "-m", "--memory", "--mount", "--name", "--network", "--net", "--network-alias", "-p", "--publish",
    "--pid", "--platform", "--pull", "--restart", "--runtime", "--security-opt", "--shm-size",
    "--stop-signal", "--stop-timeout", "--tmpfs", "-u", "--user", "--ulimit", "--userns", "--uts",
    "-v", "--volume", "--volumes-from", "-w", "--workdir", "--add-host", "--cap-add", "--cap-drop",
    "--group-add", "--memory-swap", "--cgroupns", "--init-path", "--isolation", "--mac-address",
})  # fmt: skip


def _container_command(name: str, rest: list[Word]) -> list[Word]:
    """The command ``docker run … IMAGE CMD`` or ``kubectl run|create … -- CMD`` starts in a
    container (empty when none is given: the image's own entry point runs)."""
    # Global options before the subcommand: docker --context prod run …, kubectl -n prod create ….
    _flags, rest, _values = split_options(rest, _CLI_GLOBAL_VALUE, stop_at_first=True)
    lits = [w.literal() for w in rest]
    if name in ("docker", "podman", "nerdctl") and lits[:1] == ["run"]:
        _flags, positionals, _values = split_options(rest[1:], _DOCKER_RUN_VALUE, stop_at_first=True)
        return positionals[1:]
    if name == "kubectl" and lits[:1] in (["run"], ["create"]) and "--" in lits:
        return rest[lits.index("--") + 1 :]
    return []


_CLI_GLOBAL_VALUE = frozenset({
    "-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server",
    "-H", "--host", "-c", "--config", "-l", "--log-level",
})  # fmt: skip


_PARALLEL_VALUE = frozenset({
    "-j", "--jobs", "-S", "--sshlogin", "--halt", "--joblog", "--results", "--delay", "--timeout",
    "-n", "-N", "--max-args", "--colsep", "-C", "-d", "--delimiter", "--tmpdir", "--workdir", "-a",
    "--arg-file", "--tag-string", "--retries", "--memfree", "--load",
})  # fmt: skip


def _session_command(name: str, rest: list[Word], ctx: Ctx) -> str | None:
    """The command line ``script``, ``screen``, ``tmux`` or ``parallel`` would start, or None."""
    if name == "script":
        _flags, _pos, values = split_options(rest, frozenset({"-c", "--command", "-T", "-O", "-I", "-B", "-E"}))
        scripts = values.get("c", []) + values.get("command", [])
        return words_text(scripts[-1:], ctx) if scripts else None
    if name == "screen":
        _flags, positionals, _values = split_options(
            rest, frozenset({"-S", "-c", "-e", "-h", "-L", "-Logfile", "-p", "-T", "-X"}), stop_at_first=True
        )
        # screen runs an argv, not a shell line: each word is quoted back as one word.
        return " ".join(shlex.quote(words_text([w], ctx)) for w in positionals) if positionals else None
    if name == "tmux" and rest and rest[0].literal() in _TMUX_NEW:
        _flags, positionals, _values = split_options(rest[1:], _TMUX_VALUE, stop_at_first=True)
        return words_text(positionals, ctx) if positionals else None
    if name == "parallel":
        lits = [w.literal() for w in rest]
        if ":::" in lits:
            at = lits.index(":::")
            _flags, template, _values = split_options(rest[:at], _PARALLEL_VALUE, stop_at_first=True)
            inputs = [words_text([w], ctx) for w in rest[at + 1 :] if w.literal() not in (":::", "::::")]
            if not template:
                # No command before ":::": every argument is a command line of its own.
                return " ; ".join(inputs)
            # parallel rm -rf {} ::: a b: the template once per input ({} replaced, else appended).
            line = " ".join(shlex.quote(words_text([w], ctx)) for w in template)
            return " ; ".join(
                line.replace("{}", shlex.quote(v)) if "{}" in line else f"{line} {shlex.quote(v)}" for v in inputs
            )
    return None


def words_text(words: list[Word], ctx: Ctx) -> str:
    out: list[str] = []
    for w in words:
        values = expand(w, ctx)
        out.append(values[0] if values else w.text)
    return " ".join(out)


def _split_unquoted(words: list[Word], ctx: Ctx) -> list[Word]:
    """Unquoted ``$X`` with one known value becomes the words it splits into, as bash does:
    ``X=rm; Y=-rf; $X $Y /`` runs ``rm -rf /``, so flags and programs hidden in variables count."""
    out: list[Word] = []
    for word in words:
        parts = word.parts
        pieces = _split_at_ifs(word, ctx)
        if pieces is not None:
            out.extend(pieces)
            continue
        if parts and not is_assignment(word) and all(isinstance(p, Lit) and not p.quoted for p in parts):
            # {rm,-rf,/}: unquoted brace expansion makes separate words, not alternatives.
            braced = brace_expand("".join(p.text for p in parts if isinstance(p, Lit)))
            if len(braced) > 1:
                out.extend(_tilde_word([Lit(b, True)], word.pos) for b in braced)
                continue
        if (
            len(parts) == 1
            and isinstance(parts[0], Var)
            # "$@" is one word per positional parameter, quoted or not
            and (not parts[0].quoted or (parts[0].name == "@" and not parts[0].op))
            and not is_assignment(word)
        ):
            known = var_values(parts[0], ctx)
            # the walker keeps the positional parameters blank-separated, whatever IFS says
            split_known: list[str] = (
                (known[0].split() if parts[0].name == "@" else _ifs_split(known[0], ctx)) if known else []
            )
            if known is not None and len(known) == 1 and split_known:
                out.extend(_tilde_word([Lit(w, True)], word.pos) for w in split_known)
                continue
        fields = _field_split(word, ctx)
        out.extend(fields if fields is not None else [word])
    return out


def _field_split(word: Word, ctx: Ctx) -> list[Word] | None:
    """Bash's field splitting of a word that glues expansions together: in
    ``x="chmod -R 777"; y=" /etc"; $x$y`` the blanks inside the unquoted values separate words, so
    it runs ``chmod -R 777 /etc``. Only the default IFS (blanks) is handled here; None when no
    unquoted known value holds a blank (the word stays as it is)."""
    if "IFS" in ctx.vars or is_assignment(word) or len(word.parts) < 2:
        return None
    fields: list[list[Part]] = [[]]
    split = False
    for part in word.parts:
        known = var_values(part, ctx) if isinstance(part, Var) and not part.quoted else None
        if known is None or len(known) != 1 or not any(c in known[0] for c in " \t\n"):
            fields[-1].append(part)
            continue
        split = True
        value = known[0]
        pieces = value.split()
        if value[:1].isspace() and fields[-1]:
            fields.append([])
        for i, piece in enumerate(pieces):
            if i:
                fields.append([])
            fields[-1].append(Lit(piece, True))
        if value[-1:].isspace():
            fields.append([])
    kept = [f for f in fields if f]
    if not split or not kept:
        return None
    return [_tilde_word(f, word.pos) for f in kept]


def _split_at_ifs(word: Word, ctx: Ctx) -> list[Word] | None:
    """``rm${IFS}-rf${IFS}/``: an unquoted ``$IFS`` (not reassigned) splits the word where it
    stands, so the pieces are separate words. A piece that starts with ``~`` is taken as the
    home folder, the way the writer of such a command means it. None when there is no ``$IFS``."""
    if "IFS" in ctx.vars or is_assignment(word):
        return None
    if not any(isinstance(p, Var) and p.name == "IFS" and not p.quoted and not p.op for p in word.parts):
        return None
    pieces: list[list[Part]] = [[]]
    for part in word.parts:
        if isinstance(part, Var) and part.name == "IFS" and not part.quoted and not part.op:
            pieces.append([])
        else:
            pieces[-1].append(part)
    return [_tilde_word(piece, word.pos) for piece in pieces if piece]


def _tilde_word(parts: list[Part], pos: int) -> Word:
    """A word made after splitting (``{rm,-rf,~}``, ``${IFS}~``, ``x='rm -rf ~'; $x``): a leading
    ``~`` or ``~/`` names the home folder. Bash expands it after brace expansion; after variable
    splitting it would stay a literal ``~``, but such a command means the home folder and is
    judged by that."""
    head = parts[0]
    if isinstance(head, Lit) and (head.text == "~" or head.text.startswith("~/")):
        rest: list[Part] = [Lit(head.text[1:], head.quoted)] if head.text[1:] else []
        parts = [Var("~"), *rest, *parts[1:]]
    return Word(parts, "".join(p.text if isinstance(p, Lit) else "$" for p in parts), pos)


def _ifs_split(value: str, ctx: Ctx) -> list[str]:
    """Field splitting with the IFS assigned earlier in the command (IFS=,; x=rm,-rf,/; $x)."""
    ifs = ctx.vars.get("IFS")
    if not ifs or ifs[0] is None or not ifs[0]:
        return value.split()
    return [w for w in re.split("[" + re.escape(ifs[0]) + "]+", value) if w]


def replace_in(words: list[Word], marker: str, value: str) -> list[Word]:
    """``words`` with ``marker`` replaced by ``value`` in their literal parts (xargs -I {})."""
    out: list[Word] = []
    for word in words:
        if marker not in word.raw:
            out.append(word)
            continue
        parts: list[Part] = [
            Lit(p.text.replace(marker, value), p.quoted) if isinstance(p, Lit) else p for p in word.parts
        ]
        out.append(Word(parts, word.raw.replace(marker, value), word.pos))
    return out


def unwrap(words: list[Word], ctx: Ctx) -> _Unwrapped:
    """Strip leading assignments and wrapper programs (sudo, env, nice, timeout, xargs…)."""
    result = _Unwrapped(_split_unquoted(words, ctx))
    argv = result.argv
    for _ in range(32):
        while argv and is_assignment(argv[0]):
            argv.pop(0)
        if not argv:
            return result
        first = argv[0].parts
        if len(first) == 1 and isinstance(first[0], Var) and not first[0].quoted:
            known = var_values(first[0], ctx)
            if known and len(_ifs_split(known[0], ctx)) > 1:
                # Unquoted $CMD is split into words: x='rm -rf /'; $x runs rm.
                argv[:1] = [_tilde_word([Lit(w, True)], argv[0].pos) for w in _ifs_split(known[0], ctx)]
        name = prog_name(argv[0], ctx)
        rest = argv[1:]
        if name in _WRAPPERS:
            spec = _WRAPPERS[name]
            if name == "sudo" and rest:
                flags, _pos, _vals = split_options(rest, spec.with_value, stop_at_first=True)
                if not _pos and ("s" in flags or "i" in flags or "shell" in flags):
                    argv[:] = [Word([Lit("sh", True)], "sh")]
                    result.wrappers.append(name)
                    continue
            if name == "nice" and rest and re.fullmatch(r"-\d+", rest[0].literal() or ""):
                rest = rest[1:]
            _flags, positionals, _vals = split_options(rest, spec.with_value, stop_at_first=True)
            if len(positionals) <= spec.positional_before_cmd and name not in _KEYWORDS:
                argv[:] = argv[:1]  # "sudo -v", "time": nothing wrapped, the tool itself runs
                return result
            argv[:] = positionals[spec.positional_before_cmd :]
            result.wrappers.append(name)
            continue
        if name == "command":
            flags, positionals, _vals = split_options(rest, frozenset(), stop_at_first=True)
            if "v" in flags or "V" in flags:
                argv[:] = []  # "command -v x" only looks x up
                return result
            argv[:] = positionals
            result.wrappers.append(name)
            continue
        if name == "env":
            flags, positionals, values = split_options(rest, _ENV_VALUE, stop_at_first=True)
            for split in values.get("S", []) + values.get("split-string", []):
                result.scripts.append(
                    ("env -S", words_text([split], ctx) + " " + words_text(positionals, ctx), ctx.remote)
                )
            if values.get("S") or values.get("split-string"):
                argv[:] = []
                return result
            if not positionals:
                argv[:] = argv[:1]  # bare "env" prints the environment
                return result
            argv[:] = positionals
            result.wrappers.append(name)
            continue
        if name == "xargs":
            flags, positionals, vals = split_options(rest, _XARGS_VALUE, stop_at_first=True)
            argv[:] = positionals or [Word([Lit("echo", True)], "echo")]
            result.xargs = True
            if vals.get("I"):
                result.replace = vals["I"][-1].literal()
            elif "i" in flags or "replace" in flags:
                result.replace = "{}"
            result.wrappers.append(name)
            continue
        if name == "sbatch":
            # sbatch --wrap 'CMD': the batch job runs CMD through sh; sbatch job.sh queues a script.
            _flags, _positionals, values = split_options(rest, frozenset({"--wrap"}) | _LAUNCHER_VALUES)
            if values.get("wrap"):
                for script in values["wrap"]:
                    result.scripts.append(("sbatch --wrap", words_text([script], ctx), ctx.remote))
                argv[:] = []
                return result
        if name in ("flock",):
            _flags, positionals, values = split_options(
                rest, frozenset({"-w", "-E", "-c", "--command", "--timeout"}), stop_at_first=True
            )
            for script in values.get("c", []) + values.get("command", []):
                result.scripts.append(("flock -c", words_text([script], ctx), ctx.remote))
            argv[:] = positionals[1:]
            result.wrappers.append(name)
            continue
        session = _session_command(name, rest, ctx)
        if session is not None:
            # script -c CMD, screen -dm CMD, tmux new -d 'CMD', parallel ::: CMDs: a terminal
            # multiplexer or runner starts CMD (often detached, so it outlives the call).
            result.scripts.append((name, session, ctx.remote))
            return result  # the tool's own words stay for the other rules (a device, a log file)
        if name == "watch":
            _flags, positionals, _vals = split_options(rest, _WATCH_VALUE, stop_at_first=True)
            result.scripts.append(("watch", words_text(positionals, ctx), ctx.remote))
            argv[:] = []
            return result
        if name in ("su", "runuser"):
            _flags, _pos, values = split_options(rest, _SU_VALUE)
            scripts = values.get("c", []) + values.get("command", [])
            for script in scripts:
                result.scripts.append((name + " -c", words_text([script], ctx), ctx.remote))
            argv[:] = [] if scripts else [Word([Lit("sh", True)], "sh")]
            if scripts:
                return result
            continue
        if name == "ssh":
            _flags, positionals, vals = split_options(rest, _SSH_VALUE, stop_at_first=True)
            result.forwards = [words_text([w], ctx) for w in vals.get("R", [])]
            if positionals:
                # The origin names the host ("ssh deploy@web-1.prod"): rules judge production hosts.
                # No remote command: the remote shell reads its commands from stdin.
                host = positionals[0].literal() or positionals[0].text
                result.scripts.append(("ssh " + host, words_text(positionals[1:], ctx), True))
            argv[:] = []
            return result
        remote_text = _fleet_command(name, rest, ctx)
        if remote_text is not None:
            # ansible -m shell -a '…', salt '*' cmd.run '…', pdsh -w hosts '…': the text is a
            # shell command run on every host of an inventory.
            result.scripts.append((name, remote_text, True))
            return result  # the tool's own call stays for the other rules (modules, inventories)
        container_cmd = _container_command(name, rest)
        if container_cmd:
            # docker run IMAGE CMD, kubectl run/create … -- CMD: CMD runs in a container. It is
            # walked on its own (as remote) and the docker/kubectl call stays for its own rules.
            result.scripts.append(
                (name + " run", " ".join(shlex.quote(words_text([w], ctx)) for w in container_cmd), True)
            )
            return result
        if name in ("docker", "podman") and rest and rest[0].literal() == "exec":
            _flags, positionals, _vals = split_options(rest[1:], _DOCKER_EXEC_VALUE, stop_at_first=True)
            argv[:] = positionals[1:]
            result.remote = True
            result.wrappers.append(name + " exec")
            continue
        compose = rest[1:] if name in ("docker", "podman") and rest and rest[0].literal() == "compose" else None
        if name == "docker-compose":
            compose = rest
        if compose is not None and compose and compose[0].literal() in ("exec", "run"):
            # docker compose exec SERVICE CMD: CMD runs in the service's container.
            _flags, positionals, _vals = split_options(compose[1:], _DOCKER_EXEC_VALUE, stop_at_first=True)
            argv[:] = positionals[1:]
            result.remote = True
            result.wrappers.append("compose " + (compose[0].literal() or ""))
            continue
        after = _runner_rest(name, rest) if name in _RUNNERS else None
        if after is not None:
            _flags, positionals, _vals = split_options(
                after, frozenset({"--with", "-p", "--python", "--env-file", "--package"}), stop_at_first=True
            )
            argv[:] = positionals
            result.wrappers.append(f"{name} {_RUNNERS[name]}")
            continue
        if name == "kubectl" and rest and rest[0].literal() == "exec":
            dash = next((i for i, w in enumerate(rest) if w.literal() == "--"), None)
            argv[:] = rest[dash + 1 :] if dash is not None else []
            result.remote = True
            result.wrappers.append("kubectl exec")
            continue
        return result
    return result


_PWSH_COMMAND = frozenset({"-c", "-command", "-com", "-comm", "-comma", "-comman", "/c", "/command"})
_PWSH_ENCODED = frozenset({"-e", "-ec", "-en", "-enc", "-encodedcommand", "-encoded", "/e", "/enc"})


# PowerShell names the home folder $env:USERPROFILE, $env:HOME or $HOME and separates with "\".
# In a delete statement (Remove-Item -Recurse $env:USERPROFILE\*) they are written "~" and "~/"
# so the rm rules judge the target; other statements keep them (reads are other hooks' business).
_PS_HOME = lazy_compile(r"(?i)\$(?:(?:env:(?:USERPROFILE|HOME)|HOME)\b|\{env:(?:USERPROFILE|HOME)\})")
_PS_HOME_SEP = lazy_compile(r"~\\")
_PS_DELETE = lazy_compile(r"(?i)(?:^|(?<=[;|\n({]))\s*(?:Remove-Item|ri|rm|rd|rmdir|del|erase)\b[^;|\n]*")


# PowerShell paths in a delete statement: "\\" separates (its escape is the backtick) and a drive's
# root reads as "/", so C:\\Users\\dev\\* is judged like /Users/dev/* (a user's home folder).
_PS_DRIVE = lazy_compile(r"(?<![\w$:])[A-Za-z]:[\\/]")


def _ps_home(m: re.Match[str]) -> str:
    statement = _PS_HOME_SEP.sub("~/", _PS_HOME.sub("~", m.group(0)))
    return _PS_DRIVE.sub("/", statement).replace("\\", "/")


def powershell_code(cmd: Cmd) -> tuple[list[str], bool]:
    """The script a ``pwsh``/``powershell`` call runs (``-Command`` text, parameter names in any
    case and abbreviation) and whether it runs a base64 ``-EncodedCommand`` nobody can read."""
    texts: list[str] = []
    encoded = False
    args = cmd.args
    for i, word in enumerate(args):
        lit = (word.literal() or "").lower()
        if lit in _PWSH_COMMAND and i + 1 < len(args):
            texts.append(_PS_DELETE.sub(_ps_home, words_text(args[i + 1 :], cmd.ctx)))
            break
        if lit in _PWSH_ENCODED:
            encoded = True
    return texts, encoded


def shell_invocation(args: list[Word]) -> tuple[Word | None, bool, Word | None]:
    """How ``bash ARGS`` gets its script: (inline -c word, reads stdin, script file word)."""
    has_c = False
    has_s = False
    i = 0
    while i < len(args):
        text = args[i].literal()
        if text is None or not text.startswith(("-", "+")) or text in ("-", "--"):
            break
        if text in _SHELL_VALUE:
            i += 2
            continue
        if not text.startswith("--"):
            has_c = has_c or "c" in text[1:]
            has_s = has_s or "s" in text[1:]
        i += 1
    if i < len(args) and args[i].literal() == "--":
        i += 1
    if has_c:
        return (args[i] if i < len(args) else None), False, None
    if has_s or i >= len(args) or args[i].literal() == "-":
        return None, True, None
    return None, False, args[i]


# Folders that hold generated output: emptying them is ordinary clean-up.
BUILD_DIRS = frozenset({
    "build", "dist", "out", "target", "node_modules", ".next", ".nuxt", ".svelte-kit", ".turbo",
    "coverage", "htmlcov", ".cache", ".parcel-cache", "tmp", ".tmp", "__pycache__",
    "Binaries", "Intermediate", "DerivedDataCache",  # Unreal Engine's generated folders
    ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox", ".eggs", "_build", ".gradle",
    "obj", "site", "storybook-static", ".docusaurus", ".angular", ".expo", "public/build",
    # Logs, test and report output, virtual environments and other languages' build folders.
    "log", "logs", "test-results", "playwright-report", "blob-report", "allure-results",
    "allure-report", "artifacts", ".venv", "venv", ".nyc_output", ".sass-cache", ".dart_tool",
    ".stack-work", "dist-newstyle", "zig-cache", ".zig-cache", "zig-out", "CMakeFiles",
    "cmake-build-debug", "cmake-build-release", ".terraform", ".serverless", ".aws-sam",
    "elm-stuff", "bower_components", ".output", ".vite", "DerivedData", ".build", "_site",
    ".yarn/cache", ".pnpm-store",
    # Machine-learning run output: checkpoints, sweeps, experiment trackers' offline runs, trash.
    "outputs", "output", "wandb", "lightning_logs", ".trash",
    # Code generators' output folders (protobuf/OpenAPI/GraphQL clients, Relay): regenerated.
    "generated", "__generated__",
})  # fmt: skip


def build_output(path: str, project: str) -> bool:
    """Whether the absolute ``path`` is (inside) a generated-output folder of ``project``
    (``build/``, ``dist/``, ``node_modules/`` …), whose contents a build recreates."""
    project = os.path.normpath(project)
    if path == project or not path.startswith(project.rstrip("/") + "/"):
        return False
    parts = os.path.relpath(path, project).split("/")
    return any(part in BUILD_DIRS for part in parts) or "/".join(parts[:2]) in BUILD_DIRS


# openssl commands that parse a private key; with -noout they print nothing of it (rsa -check
# answers "RSA key ok", -modulus prints the public modulus), with -pubout only its public half.
_OPENSSL_KEY_TOOLS = frozenset({"rsa", "pkey", "ec", "dsa"})


def checked_key_words(cmd: Cmd) -> list[Word]:
    """The key files (``-in``/``-key`` words) that ``cmd`` only checks or takes the public half of:
    ``openssl rsa -in server.key -check -noout``, ``openssl rsa -noout -modulus -in key``,
    ``openssl pkey -in key -pubout``. Empty for anything that prints or writes the private key
    (``-text``, no ``-noout``/``-pubout``)."""
    lits = [w.literal() for w in cmd.args]
    if cmd.name != "openssl" or not lits or lits[0] not in _OPENSSL_KEY_TOOLS or None in lits:
        return []
    options = set(lits[1:])
    if "-text" in options or not {"-noout", "-pubout"} & options:
        return []
    return [cmd.args[i + 1] for i, lit in enumerate(lits[:-1]) if lit in ("-in", "-key")]


# Devices a developer talks to rather than stores data on (LABELLING.md's settled call: devices
# that are not disks are benign): serial and USB-serial ports (Linux ttyUSB/ttyACM/ttyS/ttyAMA…,
# macOS tty.*/cu.*, by-id links, Bluetooth rfcomm), a board's I2C, SPI and GPIO nodes, cameras and
# raw USB device nodes. Not hidraw: keyboards are HID devices, and one opened to everyone is a
# keylogger. Disks and memory are never in it.
_BOARD_DEVICE = lazy_compile(
    r"/dev/(?:tty(?:USB|ACM|S|AMA|THS|XRUSB|GS|LP|mxc|SAC)\d+|(?:tty|cu)\.[\w.-]+|serial/by-(?:id|path)/[^/]+|"
    r"rfcomm\d+|i2c-\d+|spidev\d+\.\d+|gpiochip\d+|gpiomem|video\d+|media\d+|bus/usb/\d+/\d+)"
)


def board_device(path: str) -> bool:
    """Whether the absolute ``path`` is a device to talk to (a serial port, a board's bus or GPIO
    node, a camera), which holds no data and whose modes reset when it is plugged in again."""
    return _BOARD_DEVICE.fullmatch(path) is not None


def chmod_tightens(mode: str) -> bool:
    """Whether a chmod ``mode`` protects a file: it grants nothing beyond the owner and leaves
    the owner able to read it: ``600``, ``0400``, ``go-rwx``, ``u+x``, ``og=`` (versus ``644``,
    ``777``, ``o+r``, ``a+rw``, and ``000`` or ``a-r``, which lock the owner out too)."""
    if re.fullmatch(r"0*[0-7]{3,4}", mode):
        bits = int(mode, 8)
        return bits & 0o077 == 0 and bits & 0o7000 == 0 and bits & 0o400 != 0
    clauses = mode.split(",")
    for clause in clauses:
        m = re.fullmatch(r"(?P<who>[ugoa]*)(?P<op>[-+=])(?P<perm>[rwxXst]*)", clause)
        if m is None:
            return False
        who, op, perm = m.group("who"), m.group("op"), m.group("perm")
        owner = not who or "u" in who or "a" in who
        if owner and ((op == "-" and "r" in perm) or (op == "=" and "r" not in perm)):
            return False  # the owner loses read access
        if op == "-":
            continue
        if who and set(who) <= {"u"} and "s" not in perm:
            continue  # the owner's own access
        if op == "=" and not perm and not owner:
            continue  # go= : no access at all
        return False
    return True


def chmod_closes_home(mode: str | None) -> bool:
    """Whether a chmod ``mode`` for a home folder itself keeps the owner's full access and gives
    others nothing, nor the group write access (``700``, ``750``, ``0710``, ``go-rwx``, ``o-rwx``,
    ``g-w,o-rwx``): closing it, not breaking it (``600`` locks the owner out of it, ``755`` opens it)."""
    if mode is None:
        return False
    octal = re.fullmatch(r"0?([0-7])([0-7])([0-7])", mode)
    if octal:
        owner, group, other = (int(d) for d in octal.groups())
        return owner == 7 and group in (0, 1, 5) and other == 0
    return all(re.fullmatch(r"[go]+-[rwx]+", clause) for clause in mode.split(","))


def chmod_grants(mode: str) -> set[str]:
    """What a chmod ``mode`` gives away: ``others`` (group or world gain any access),
    ``world-write`` and ``setid`` (setuid/setgid); empty for a mode that only narrows access.
    An unreadable mode counts as granting everything."""
    granted: set[str] = set()
    if re.fullmatch(r"0*[0-7]{3,4}", mode):
        bits = int(mode, 8)
        if bits & 0o077:
            granted.add("others")
        if bits & 0o002:
            granted.add("world-write")
        if bits & 0o6000:
            granted.add("setid")
        return granted
    for clause in mode.split(","):
        m = re.fullmatch(r"(?P<who>[ugoa]*)(?P<op>[-+=])(?P<perm>[rwxXst]*)", clause)
        if m is None:
            return {"others", "world-write", "setid"}
        who, op, perm = m.group("who") or "a", m.group("op"), m.group("perm")
        if op == "-" or not perm:
            continue
        if "s" in perm:
            granted.add("setid")
        if set(who) & {"g", "o", "a"} and set(perm) & {"r", "w", "x", "X"}:
            granted.add("others")
        if set(who) & {"o", "a"} and "w" in perm:
            granted.add("world-write")
    return granted


_AUTORUN_BASENAMES = frozenset({
    ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv",
    ".zlogin", ".kshrc", ".cshrc", ".tcshrc", "config.fish", ".envrc", "rc.local", "crontab",
    ".xprofile", ".xinitrc",
})  # fmt: skip
_FETCH_AND_RUN = lazy_compile(
    r"\b(?:curl|wget|fetch|aria2c|nc|ncat|socat)\b.*?(?:\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|\|\s*python|"
    r"\|\s*perl|\|\s*ruby|\|\s*node|;\s*(?:ba|z)?sh\s)"
    r"|\b(?:ba|z)?sh\s+(?:-c\s+)?[\"']?\$\(\s*(?:curl|wget)\b|\bsource\s+<\(\s*(?:curl|wget)\b"
    r"|/dev/tcp/"
    # Downloaded to a file (curl -o F / -Lo F, wget -O F / -qO F / --output-document=F), then run:
    # by a shell, sourced, or made executable and started (chmod +x F && F).
    r"|\b(?:curl|wget)\b[^|;&\n]*?(?:\s-[A-Za-z]*[oO]\s*|\s--output(?:-document)?[=\s]\s*)(?P<dl>[^\s;&|]+)"
    r"[^|;&\n]*(?:&&|;|\n)\s*(?:sudo\s+)?(?:(?:ba|z|da)?sh\b|source\s|\.\s"
    r"|chmod\s+[+\w]*x[+\w]*\s+(?P=dl)\s*(?:&&|;|\n)\s*(?:\./)?(?P=dl)\b)"
    # reverse shells: nc -e /bin/sh, socat exec:, bash -i >& …
    r"|\b(?:nc|ncat|netcat)\b[^|;&\n]*\s-[ec]\s*\S*sh\b|\bsocat\b[^\n]*\bexec:|\bbash\s+-i\s*>&",
    re.S,
)


def autorun_path(path: str) -> bool:
    """Files run automatically later: shell start-up files, cron tables, git hooks, units."""
    base = os.path.basename(path)
    return (
        base in _AUTORUN_BASENAMES
        or "/.git/hooks/" in path
        or "/.husky/" in path
        or "/.githooks/" in path
        # Cron tables are run from the system's spool and cron folders, not from wherever a
        # file named crontab.txt lies (a test fixture in the project runs nothing).
        or re.search(r"^/(?:etc|var/spool)/cron|/cron\.(?:d|daily|hourly|weekly|monthly)/|/crontabs/", path) is not None
        or "/systemd/" in path
        or "/autostart/" in path
        or "/LaunchAgents/" in path
        or "/LaunchDaemons/" in path
        or "/profile.d/" in path
        # BSD/macOS periodic jobs, anacron, SysV init scripts, fish's conf.d, ssh's per-login rc
        or re.search(r"^/etc/(?:periodic/|anacrontab$|init\.d/|rc\.d/)|/fish/conf\.d/|/\.ssh/rc$", path) is not None
        # Python runs these at every interpreter start-up
        or base in ("sitecustomize.py", "usercustomize.py")
        or (base.endswith(".pth") and "-packages/" in path)
    )


def fetches_and_runs(text: str) -> bool:
    """Whether ``text`` downloads code and runs it (``curl … | sh``, ``sh -c "$(wget …)"``,
    ``/dev/tcp/`` reverse shells)."""
    return _FETCH_AND_RUN.search(text) is not None


def _printf_text(fmt: str, args: list[str]) -> str:
    """What printf prints for ``%s``/``%b``/``%%`` formats: the format is reused while arguments
    remain (``printf '%s\\0' rm -rf x`` prints three NUL-ended words); ``%b`` decodes escapes."""
    pieces = re.split(r"(%[sb%])", fmt)
    takes = sum(p in ("%s", "%b") for p in pieces)
    rest = list(args)
    out: list[str] = []
    while True:
        for piece in pieces:
            if piece == "%%":
                out.append("%")
            elif piece in ("%s", "%b"):
                value = rest.pop(0) if rest else ""
                out.append(decode_escapes(value) if piece == "%b" else value)
            else:
                out.append(piece)
        if not takes or not rest:
            break
    return "".join(out)


# print("…"), puts '…', say "…", console.log("…"), echo '…'; — one string literal printed.
_PRINT_LITERAL = lazy_compile(
    r"""^\s*(?:print|puts|say|console\.log|echo)\s*\(?\s*(['"])((?:(?!\1).)*)\1\s*\)?\s*;?\s*$""", re.S
)
_ONE_LINER_FLAG = {"python": "-c", "ruby": "-e", "perl": "-e", "node": "-e", "php": "-r"}


def _one_liner_code(cmd: Cmd) -> str | None:
    """The code of ``python3 -c CODE``, ``ruby -e CODE``, ``perl -e``, ``node -e``, ``php -r``."""
    base = re.sub(r"[\d.]+$", "", cmd.name)
    flag = _ONE_LINER_FLAG.get(base)
    lits = [w.literal() for w in cmd.args]
    if flag is None or len(lits) != 2 or lits[0] != flag:
        return None
    return lits[1]


def printed_text(cmd: Cmd) -> str | None:
    """What an echo/printf (or cat/tee of a here-doc) prints, when it is literal."""
    if cmd.name == "echo":
        words = cmd.args
        escapes = False
        while words and (words[0].literal() or "").startswith("-") and len(words[0].raw) <= 4:
            escapes = escapes or "e" in (words[0].literal() or "")
            words = words[1:]
        text = words_text(words, cmd.ctx)
        return (decode_escapes(text) if escapes else text) + "\n"
    if cmd.name == "printf" and cmd.args:
        fmt = decode_escapes(words_text(cmd.args[:1], cmd.ctx))
        return _printf_text(fmt, [words_text([w], cmd.ctx) for w in cmd.args[1:]])
    code = _one_liner_code(cmd)
    if code is not None:
        m = _PRINT_LITERAL.match(code)
        # Only a plain literal: escapes and interpolation ($x, #{x}) would change the text.
        if m and "\\" not in m.group(2) and (m.group(1) == "'" or not re.search(r"[$#`]", m.group(2))):
            return m.group(2) + "\n"
    if cmd.name in ("cat", "tee"):
        for r in cmd.redirects:
            if r.op in ("<<", "<<-", "<<<") and r.body is not None:
                return r.body + "\n"
        if cmd.name == "cat" and cmd.args:
            parts = [cmd.ctx.written(w) for w in cmd.args]
            if all(p is not None for p in parts):
                return "".join(p for p in parts if p is not None)
    return None
