"""secrets_guard on language tools' settings files: start-up code (.Rprofile, Julia's startup.jl,
ipython_config.py, .irbrc) holds no login and is not a secret file; files that keep a login beside
the settings are judged by what the file on this machine holds — a package manager's rc (.npmrc,
.yarnrc) is a credentials file unless it holds no registry login, R's environment files and
Jupyter's server settings are asked unless they set no token or password — and an absent one is
never assumed clean. Files and values written for these tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def sg_read(kit: Any, project: Path, path: Path) -> str | None:
    """secrets_guard's own decision on a Read of ``path`` and on ``cat`` of it (they must agree)."""
    read = kit.security(kit.pre_tool("Read", {"file_path": str(path)}, project)).own["secrets_guard"]
    cat = kit.security(kit.bash(f"cat '{path}'", project)).own["secrets_guard"]
    assert read == cat, (path, read, cat)
    return read


def home(project: Path) -> Path:
    return project.parent / "home"


STARTUP_CODE = [
    (".julia/config/startup.jl", 'using OhMyREPL\nENV["JULIA_EDITOR"] = "nvim"\n'),
    (".Rprofile", "options(width = 120, digits = 4)\n"),
    (".ipython/profile_default/ipython_config.py", "c.TerminalIPythonApp.display_banner = False\n"),
    (".irbrc", "require 'irb/completion'\n"),
    (".pythonstartup.py", "import rlcompleter\n"),
]


@pytest.mark.parametrize(("rel", "text"), STARTUP_CODE)
def test_language_start_up_code_is_not_a_secret_file(kit: Any, project: Path, rel: str, text: str) -> None:
    path = home(project) / rel
    assert sg_read(kit, project, path) is None  # absent: start-up code, never a login
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    assert sg_read(kit, project, path) is None


@pytest.mark.parametrize(
    ("name", "clean", "login"),
    [
        (
            ".npmrc",
            "save-exact=true\n@acme:registry=https://npm.acme.example/\n",
            "//npm.acme.example/:_authToken=abcd1234efgh5678\n",
        ),
        (
            ".npmrc",
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n",
            "registry=https://ci:hunter2@npm.acme.example/\n",
        ),
        (
            ".yarnrc.yml",
            'nodeLinker: node-modules\nnpmAuthToken: "${NPM_TOKEN}"\n',
            'npmAuthToken: "npm_0123456789abcdef"\n',
        ),
    ],
)
def test_package_manager_rc_is_judged_by_its_registry_login(
    kit: Any, project: Path, name: str, clean: str, login: str
) -> None:
    path = home(project) / name
    if name == ".npmrc":
        assert sg_read(kit, project, path) == "deny"  # absent: may hold the login, as before
    path.write_text(clean)
    assert sg_read(kit, project, path) is None
    path.write_text(clean + login)
    assert sg_read(kit, project, path) == "deny"


@pytest.mark.parametrize(
    ("rel", "clean", "login"),
    [
        (".Renviron", "R_LIBS_USER=~/R/site-library\nR_MAX_VSIZE=16Gb\n", "GITHUB_PAT=abcdef0123456789abcdef\n"),
        ("Renviron.site", "TZ=UTC\n", "CONNECT_API_KEY=Zx81QpLm3Vt7\n"),
        (
            ".jupyter/jupyter_lab_config.py",
            "c.ServerApp.port = 8899\nc.ServerApp.token = ''\n",
            "c.ServerApp.password = 'argon2:$argon2id$v=19$m=10240'\n",
        ),
        (
            ".jupyter/jupyter_notebook_config.json",
            '{"NotebookApp": {"open_browser": false}}\n',
            '{"NotebookApp": {"token": "3f9a0c1d"}}\n',
        ),
    ],
)
def test_tool_settings_that_may_hold_a_login_are_asked_unless_clean(
    kit: Any, project: Path, rel: str, clean: str, login: str
) -> None:
    path = home(project) / rel
    # Absent: never assumed clean, except Jupyter's hand-written .py (generated all comments;
    # the password goes to the .json its password command writes).
    assert sg_read(kit, project, path) == (None if rel.endswith("_config.py") else "ask")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(clean)
    assert sg_read(kit, project, path) is None
    path.write_text(clean + login)
    assert sg_read(kit, project, path) == "ask"


def test_credential_files_of_the_family_stay_denied(kit: Any, project: Path) -> None:
    for name, text in ((".netrc", "machine h.example login u\n"), (".pypirc", "[distutils]\nindex-servers = pypi\n")):
        path = home(project) / name
        path.write_text(text)
        assert sg_read(kit, project, path) == "deny", name


def test_project_npmrc_is_judged_by_its_content_too(kit: Any, project: Path) -> None:
    (project / ".npmrc").write_text("engine-strict=true\nauto-install-peers=true\n")
    assert kit.security(kit.bash("cat .npmrc", project)).own["secrets_guard"] is None
    (project / ".npmrc").write_text("//npm.pkg.github.com/:_authToken=0a1b2c3d4e5f6a7b8c9d\n")
    assert kit.security(kit.bash("cat .npmrc", project)).own["secrets_guard"] == "deny"


@pytest.mark.parametrize("folder", ["android", "apps/mobile/android", "."])
def test_gradle_local_properties_judged_by_content(kit: Any, project: Path, folder: str) -> None:
    rel = f"{folder}/local.properties".removeprefix("./")
    command = f"cat {rel}"
    assert kit.security(kit.bash(command, project)).own["secrets_guard"] == "ask"  # absent: may hold keys
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("sdk.dir=/opt/android-sdk\nndk.dir=/opt/android-sdk/ndk/26.1\n")
    assert kit.security(kit.bash(command, project)).own["secrets_guard"] is None
    read = kit.pre_tool("Read", {"file_path": str(path)}, project)
    assert kit.security(read).own["secrets_guard"] is None
    path.write_text("sdk.dir=/opt/android-sdk\nMAPS_API_KEY=Zq3vX9kLm2Pn8Rt4\n")
    assert kit.security(kit.bash(command, project)).own["secrets_guard"] == "ask"
    assert kit.security(read).own["secrets_guard"] == "ask"


ONE_SETTING: list[tuple[str, str | None]] = [
    # A search for one named setting that is no credential shows that setting only.
    ("grep -n '^  adapter:' config/database.yml", None),
    ("cat config/database.yml | grep -c pool", None),
    ("rg -n 'sdk.dir|ndk.dir' android/local.properties", None),
    ("grep -i org.gradle.parallel ~/.gradle/gradle.properties", None),
    ("cat app/src/main/resources/application-prod.yml | grep -n max-pool-size", None),
    # Credential words, connection URLs and logins, context lines, inverted or match-all
    # patterns, or the whole file: may print a password, asked as before.
    ("grep -i passw config/database.yml", "ask"),
    ("grep -n url app/src/main/resources/application-prod.yml", "ask"),
    ("grep -B2 -A4 production config/database.yml", "ask"),
    ("grep -v '^#' android/local.properties", "ask"),
    ("cat ~/.gradle/gradle.properties | grep -i signing", "ask"),
    ("head -20 config/database.yml", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ONE_SETTING)
def test_search_for_one_setting_in_configuration_that_may_hold_passwords(
    kit: Any, project: Path, command: str, expected: str | None
) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)
