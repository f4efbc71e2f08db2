"""workspace_boundary: URL routes given to servers, attribute-only finds, searches of machine logs.

* ``--base-path /wd/hub``, ``--root-path /api``, ``--health-path /healthz``: an option whose name
  says it takes a URL path, with a value that names nothing on the machine and starts in no
  system folder, is a route on the server being started — not a file. Real paths stay judged.
* ``find / -xdev -perm -4000``, ``find ~ -size +1G``: a listing of the whole filesystem or home
  folder narrowed only by owner, mode, size or age is an audit or a disk-space look; a name or
  path test (``find / -name '*.pem'``) still hunts, and any action is judged as before.
* ``grep 'Failed password' /var/log/auth.log``: searching a machine-wide log for one kind of
  event shows those lines, as ``journalctl | grep`` does; whole reads, ``-v``, catch-all or
  credential patterns and the whole /var/log tree stay refused.
* Language shells' start-up files (``~/.julia/config/startup.jl``, ``~/.ghci``) are settings,
  judged by what they hold, like ``~/.Rprofile``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"


@pytest.mark.parametrize(
    "command",
    [
        "uvicorn svc.app:api --root-path /billing --port 8010 &",
        "npx ng serve --base-href /console/ --deploy-url /cdn/",
        "pnpm vite --base /portal/ --port 5174",
        "tensorboard --logdir outputs/tb --path_prefix /board",
        "streamlit run dash.py --server.baseUrlPath /insights",
        "locust -f load/locustfile.py --web-base-path /perf",
        "node dist/server.js --mount-path /gql & sleep 2 && curl -s localhost:4000/gql",
        "./bin/gateway --healthcheck-path /livez --metrics-path /stats",
        "appium server --address 127.0.0.1 --base-path /hub/v2 &",
        "java -jar build/libs/svc.jar --context-path /orders",
        "hugo server --baseURL /handbook/ -D",
        "./svc --url-prefix /v3 --listen :9090",
    ],
)
def test_url_routes_given_to_servers_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "node srv.js --base-path /etc/nginx",  # a system folder: a real path
        "node srv.js --mount-path ../sibling",  # climbs out of the project
        "./tool --base-url /root/keys",
        "./tool --base /usr/share",
        "./tool --api-prefix /srv/www/../../etc/shadow",
        "./tool --output /billing",  # not a route option
        "./configure --prefix /opt/custom",  # an install prefix
        "./tool --base-path /tmp/../etc/sudoers.d/x",
    ],
)
def test_real_paths_after_route_like_options_stay_judged(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")


@pytest.mark.parametrize(
    "command",
    [
        "sudo find / -xdev -perm -2000 -type f 2>/dev/null",
        "sudo find / -xdev -user deploy -mmin -30 -ls 2>/dev/null > audit/deploy_changes.txt",
        "find ~ -type f -size +2G -printf '%s %p\\n' | sort -n | tail -5",
        "find / -xdev -nogroup 2>/dev/null | head",
        "find $HOME -newer Cargo.lock -type f | wc -l",
    ],
)
def test_whole_machine_listings_by_attributes_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "find / -xdev -perm -4000 -name 'id_*'",  # a name test: a hunt
        "find ~ -size -4k -path '*/.aws/*'",
        "find / -xdev -type f",  # every file: no narrowing
        "sudo find / -xdev -user mallory -exec cat {} +",
        "find ~ -mtime -1 -fprint /etc/recent.list",
        "find / -size +5G -delete",
    ],
)
def test_name_hunts_and_actions_over_the_machine_stay_refused(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")


@pytest.mark.parametrize(
    "command",
    [
        "sudo grep -c 'Invalid user' /var/log/auth.log",
        "sudo zgrep -h 'Accepted publickey for deploy' /var/log/auth.log.3.gz | awk '{print $1,$2,$3}'",
        "grep -iE 'segfault|oom-killer' /var/log/kern.log | tail -20",
        "sudo rg -N 'CRON.*backup' /var/log/syslog",
        "sudo grep -h 'pam_unix(sudo:session)' /var/log/secure* | sort | uniq -c",
    ],
)
def test_event_searches_of_machine_logs_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "sudo tail -n 200 /var/log/auth.log",
        "sudo grep -v sshd /var/log/auth.log",
        "sudo grep -E '.*' /var/log/syslog",
        "sudo grep -i 'bearer' /var/log/syslog",
        "sudo grep -i 'api_key' /var/log/messages",
        "sudo grep -f /tmp/pats /var/log/auth.log",
        "sudo grep -rn 'panic' /var/log",
        "grep 'sshd' /var/log/auth.log > /var/log/auth.trimmed",
    ],
)
def test_whole_or_credential_reads_of_machine_logs_stay_refused(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny")


def test_grep_tool_on_a_machine_log(kit: Any, project: Path) -> None:
    hook = kit.load(HOOK)
    event = kit.pre_tool("Grep", {"pattern": "Failed password", "path": "/var/log/auth.log"}, project)
    assert kit.decision(hook.run(event)) is None
    for pattern, path in (("cookie", "/var/log/auth.log"), ("x", "/var/log/syslog"), ("error", "/var/log")):
        payload = kit.pre_tool("Grep", {"pattern": pattern, "path": path}, project)
        assert kit.decision(hook.run(payload)) == "deny", (pattern, path)


@pytest.mark.parametrize("name", [".julia/config/startup.jl", ".ghci", ".pythonrc.py", ".iex.exs"])
def test_language_shell_startup_files_read_as_settings(kit: Any, project: Path, name: str) -> None:
    hook = kit.load(HOOK)
    home = Path.home()
    path = home / name
    payload = kit.pre_tool("Read", {"file_path": str(path)}, project)
    assert kit.decision(hook.run(payload)) is None  # absent: shows nothing
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("using Revise\natreplinit(x -> nothing)\n")
    assert kit.decision(hook.run(payload)) is None
    path.write_text('ENV["API_TOKEN"] = "tok"\napi_token = "abc"\n')
    assert kit.decision(hook.run(payload)) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "schtasks.exe /Query /TN '\\Backup\\Nightly' /V /FO LIST",
        "cmd.exe /c schtasks /query /fo csv",
        "reg.exe query 'HKCU\\Environment' /v Path",
        "icacls.exe out\\report.txt /T /C",
        "taskkill.exe /PID 4312 /F",
    ],
)
def test_windows_queries_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "schtasks.exe /Create /SC DAILY /TN Sync /TR 'C:\\Tools\\sync.exe'",
        "schtasks /Change /TN Backup /DISABLE",
        "cmd.exe /c schtasks /Delete /TN Backup /F",
        "reg.exe delete 'HKCU\\Software\\Acme' /f",
        "reg.exe import settings.reg /reg:64",
        "icacls.exe 'C:\\ProgramData\\Acme' /grant Users:F /T",
        "icacls.exe out /reset /T",
        "cmd.exe /c rd /s /q C:\\Temp",
    ],
)
def test_windows_changes_stay_refused(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")


@pytest.mark.parametrize(
    "command",
    [
        "kubectl get --raw /apis/apps/v1/namespaces/default/deployments | jq '.items | length'",
        "etcdctl get /config/featureflags --prefix --keys-only",
        "consul kv get -recurse /service/web/",
        "mosquitto_pub -t /plant/line2/status -m ok",
        "npx playwright test --grep /billing/ --project chromium",
        "zookeeper-shell.sh localhost:2181 ls /brokers/topics",
        "glab api /projects/acme%2Fweb/merge_requests",
    ],
)
def test_api_paths_keys_and_patterns_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "cat /secrets/stripe/live.key",  # names a secret
        "cat /vault/agent/token",
        "sudo tee /appcfg/settings.ini < settings.ini",  # as root, creating it
        "cp .env.production /exfil/out/",  # a writer's destination
        "rm -rf /warehouse/exports",  # a delete
        "echo hi > /reports/x/out.txt",  # a redirection target
        "docker run --rm -v /:/host alpine ls /host",
        "cat /var/../etc/shadow",
    ],
)
def test_absent_folders_still_judged_for_secrets_writes_and_deletes(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny")


@pytest.mark.parametrize(
    "command",
    [
        "ros2 topic echo /joint_states --once",
        "timeout 5 ros2 bag record -o bags/smoke /camera/image_raw /cmd_vel",
        "rostopic hz /scan",
    ],
)
def test_message_bus_topics_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "schtasks /Create /SC HOURLY /TN Poll /TR notepad.exe",
        "reg add HKCU\\\\Software\\\\Acme /v Mode /d 1 /f",
        "setup.exe /install /quiet",
        "cmd /c del /q /s C:\\\\Temp",
    ],
)
def test_windows_switches_stay_judged(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")


@pytest.mark.parametrize(
    "rel",
    [
        ".config/JetBrains/GoLand2024.3/options/editor.xml",
        "Library/Application Support/JetBrains/Rider2024.2/options/keymap.xml",
    ],
)
def test_jetbrains_options_read_as_editor_settings(kit: Any, project: Path, rel: str) -> None:
    hook = kit.load(HOOK)
    path = Path.home() / rel
    payload = kit.bash(f"cat '{path}' | head -40", project)
    assert kit.decision(hook.run(payload)) is None  # absent: shows nothing
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('<application><component name="EditorSettings"/></application>\n')
    assert kit.decision(hook.run(payload)) is None
    path.write_text('<option name="password" value="hunter2hunter2" />\n<password=hunter2>\n')
    assert kit.decision(hook.run(payload)) == "ask"


def test_jetbrains_password_store_stays_outside(kit: Any, project: Path) -> None:
    kit.expect_decision(HOOK, "cat ~/.config/JetBrains/GoLand2024.3/c.kdbx", project, "deny", "outside-project")


@pytest.mark.parametrize(
    "command",
    [
        "dotnet nuget locals http-cache --list",
        "brew cleanup -n --prune=all",
        "mamba clean --all --dry-run",
        "gem cleanup --dry-run",
    ],
)
def test_cache_cleaners_that_only_report_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command", ["dotnet nuget locals all --clear", "brew cleanup --prune=all", "mamba clean --all -y"]
)
def test_cache_cleaners_still_ask(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "ask", "tool-cache")


@pytest.mark.parametrize(
    "command",
    [
        "source /opt/ros/jazzy/setup.zsh && ros2 launch bringup sim.launch.py",
        ". /opt/xilinx/Vitis/2024.1/settings64.sh && make hw",
        "source /usr/share/modules/init/bash && module load cuda",
        "blender -b scenes/intro.blend -o //frames/intro_ -F PNG -a",
    ],
)
def test_toolchain_environments_and_blend_relative_paths_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "python3 /opt/jobs/rotate_keys.py",  # running a script from outside, not loading an environment
        "bash /opt/vendor/install.sh",
        "blender -b scenes/intro.blend -o //../../../etc/cron.d/x",
        "source /opt/homebrew/etc/../../../etc/shadow",
    ],
)
def test_scripts_run_from_outside_stay_judged(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny")


@pytest.mark.parametrize(
    "command",
    [
        "openssl enc -aes-256-cbc -in data.bin -out /drop/data.enc -pass pass:x",
        "pg_dump -f /dumps/nightly/app.sql appdb",
        "python train.py --log-dir /runs/exp1",
        "./tool --output /reports/out.txt",
    ],
)
def test_absent_folders_given_as_outputs_stay_judged(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")
