"""Rule family: commands written into files that tools run on their own (``Write``/``Edit`` of a
manifest): lifecycle scripts of ``package.json`` (``preinstall``, ``postinstall``, ``prepare`` …),
Composer's ``post-install-cmd`` and friends, a dev container's ``postCreateCommand``, and the
Python code of ``setup.py`` / ``hatch_build.py`` (run by every ``pip install``). Each command is
judged by the Bash rules (the hook's ``check``) as if it were run now, because it will be, on
the next install, by whoever installs; a deny there is a deny here. Ordinary scripts (``husky
install``, ``npm run build``, ``patch-package``) pass.
"""

from __future__ import annotations

import json
import os
import re
import shlex

import _shell
from _common import Finding
from _shell import lazy_compile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from _shell import Ctx

# Scripts that run without anyone asking for them: on install, on publish, on container creation.
_LIFECYCLE_KEYS = frozenset({
    # npm / pnpm / yarn / bun
    "preinstall", "install", "postinstall", "prepare", "preprepare", "postprepare", "prepublish", "prepack",
    "postpack", "dependencies",
    # Composer
    "pre-install-cmd", "post-install-cmd", "pre-update-cmd", "post-update-cmd", "pre-autoload-dump",
    "post-autoload-dump", "post-root-package-install", "post-create-project-cmd",
    # dev containers
    "initializecommand", "oncreatecommand", "updatecontentcommand", "postcreatecommand", "poststartcommand",
    "postattachcommand",
})  # fmt: skip
_MANIFESTS = frozenset({"package.json", "composer.json", "devcontainer.json", ".devcontainer.json"})
# Code run by an install or build, by the interpreter that runs it: setup.py, hatch's build hook,
# poetry's build script, conan recipes; a gem's native-extension script.
_BUILD_CODE = {"setup.py": "python3", "hatch_build.py": "python3", "build.py": "python3", "conanfile.py": "python3",
               "extconf.rb": "ruby"}  # fmt: skip
# Build files in other languages, run by every build (cargo's build.rs, Gradle scripts, CMake's
# configure step): judged by their text, a download piped into a shell.
_BUILD_TEXT = frozenset({
    "build.rs", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "CMakeLists.txt",
})  # fmt: skip

_JSON_STRING = r'"(?:[^"\\]|\\.)*"'
_SCRIPT_ENTRY = lazy_compile(
    r'"(?P<key>[\w:-]+)"\s*:\s*(?P<value>' + _JSON_STRING + r"|\[\s*(?:" + _JSON_STRING + r"\s*,?\s*)*\])"
)
_STRING = lazy_compile(_JSON_STRING)


def _scripts(text: str) -> list[tuple[str, str]]:
    """The (key, command) pairs of lifecycle scripts in manifest text (whole or a fragment)."""
    found: list[tuple[str, str]] = []
    for m in _SCRIPT_ENTRY.finditer(text):
        if m.group("key").lower() not in _LIFECYCLE_KEYS:
            continue
        for literal in _STRING.findall(m.group("value")):
            try:
                command = json.loads(literal)
            except ValueError:
                command = literal[1:-1]
            if isinstance(command, str) and command.strip():
                found.append((m.group("key"), command))
    return found


def rule_manifest(
    path: str, texts: list[str], ctx: Ctx, check: Callable[[str, Ctx], list[Finding]], found: list[Finding]
) -> None:
    """A lifecycle script (or install-time Python) written into a manifest that the Bash rules
    deny: it would run on every install without anyone seeing it."""
    base = os.path.basename(path)
    jobs: list[tuple[str, str]] = []
    if base in _MANIFESTS:
        jobs = [(f'{base}\'s "{key}" script', command) for t in texts for key, command in _scripts(t)]
    elif base in _BUILD_CODE and not re.search(r"(?:^|/)(?:tests?|docs?|examples?)/", path):
        flag = "-e" if _BUILD_CODE[base] == "ruby" else "-c"
        jobs = [
            (f"{base} (run by every install or build)", f"{_BUILD_CODE[base]} {flag} {shlex.quote(t)}") for t in texts
        ]
    elif base in _BUILD_TEXT and any(_shell.fetches_and_runs(t) for t in texts):
        found.append(
            (
                "deny",
                f"{base} would download and run remote code on every build. Keep build scripts to local "
                "steps; vendor or pin what they need.",
            )
        )
        return
    for where, command in jobs:
        # The text is only parsed by the Bash rules, never run.
        denied = [reason for level, reason in check(command, ctx) if level == "deny"]
        if denied and not denied[0].startswith("rule parse:"):
            found.append(
                (
                    "deny",
                    f"{where} would run on its own at the next install: {denied[0]} "
                    "Keep lifecycle scripts to local build steps (husky install, npm run build).",
                )
            )
            return
