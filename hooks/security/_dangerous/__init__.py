"""The rules of the ``dangerous_commands`` hook, one module per family (not a hook itself).

``dangerous_commands.py`` walks a Bash command with ``_shell`` and applies every family's rules
to each command that would run; each rule appends ``(decision, reason)`` findings:

* ``_paths`` — shared path judgements: :func:`critical` (root, home, project root, system
  folders), services' data folders, build output, match-all globs;
* ``_files`` — ``rm``, ``find -delete``, ``xargs rm``, ``mv``, ``chmod``/``chown``;
* ``_devices`` — ``dd``/``mkfs``/disk tools onto devices, shutdown/reboot, fork bombs;
* ``_git`` — force-push and deletion of protected branches, ``reset --hard``, lost work;
* ``_data`` — SQL (:func:`sql_findings`), Redis, hosted data, ORM and database consoles,
  framework tasks that reset a database, dumps sent over the network;
* ``_remote`` — download-and-run, code that runs fetched code, URL runners, hidden code,
  remote shells, HTTP ``DELETE``;
* ``_system`` — security switched off, persistence (cron, start-up files, units), accounts
  given root and essential packages removed;
* ``_opaque`` — the fallback for opaque execution (eval of a substitution, ``sh -c "$x"``,
  awk ``system()``, interpreter code running commands) whose text shows a strong danger sign;
* ``_cloud`` — cloud and data platforms: SQL sent through platform CLIs and jobs, production data
  deleted through cloud CLIs, networks opened to the world, code installed on machines;
* ``_manifests`` — lifecycle scripts written into manifests (``postinstall``, ``post-install-cmd``,
  ``postCreateCommand``, ``setup.py``), judged by the Bash rules;
* ``_windows`` — Windows programs run from WSL/Git Bash/PowerShell (``cmd /c``, ``reg``, ``schtasks``,
  ``icacls``, ``bcdedit``, ``vssadmin``, ``wevtutil``, Defender cmdlets), read as Windows text;
* ``_infra`` — ``kubectl``/``helm``/``terraform``, cloud CLIs, production targets and the
  other tools that ask, commands sent to fleets (ansible, salt, pssh, cloud run-command).

Standard library only, like every shipped hook.
"""

from __future__ import annotations

from ._cloud import rule_cloud_deletes, rule_machine_code, rule_platform_sql, rule_world_open
from ._data import rule_db_tasks, rule_dump_upload, rule_hosted_data, rule_orm, rule_sql, sql_findings
from ._devices import rule_devices, rule_fork_bomb, rule_power
from ._files import (
    TREE_REMOVERS,
    rule_build_clean,
    rule_chmod,
    rule_find,
    rule_mirror_empty,
    rule_mv,
    rule_rm,
    rule_rsync,
)
from ._git import rule_bfg, rule_gh, rule_git, rule_vcs_obliterate
from ._infra import rule_fleet, rule_warn_tools
from ._manifests import rule_manifest
from ._opaque import danger_sign, rule_code_argument, rule_opaque_exec, rule_runs_sample
from ._paths import critical
from ._remote import (
    rule_code_runs_fetched,
    rule_decoded_operand,
    rule_download_exec,
    rule_download_then_run,
    rule_filtered_text_run,
    rule_hidden_code,
    rule_http_delete,
    rule_powershell_line,
    rule_remote_shell,
    rule_runs_pr_code,
    rule_runs_url,
    rule_send_to_address,
    rule_url_package,
)
from ._system import rule_accounts, rule_history_wipe, rule_persistence, rule_security_off, rule_signing_keys
from ._windows import rule_windows, windows_critical

__all__ = [
    "TREE_REMOVERS",
    "critical",
    "danger_sign",
    "rule_accounts",
    "rule_bfg",
    "rule_build_clean",
    "rule_chmod",
    "rule_cloud_deletes",
    "rule_code_argument",
    "rule_code_runs_fetched",
    "rule_db_tasks",
    "rule_decoded_operand",
    "rule_devices",
    "rule_download_exec",
    "rule_download_then_run",
    "rule_dump_upload",
    "rule_filtered_text_run",
    "rule_find",
    "rule_fleet",
    "rule_fork_bomb",
    "rule_gh",
    "rule_git",
    "rule_hidden_code",
    "rule_history_wipe",
    "rule_hosted_data",
    "rule_http_delete",
    "rule_machine_code",
    "rule_manifest",
    "rule_mirror_empty",
    "rule_mv",
    "rule_opaque_exec",
    "rule_orm",
    "rule_persistence",
    "rule_platform_sql",
    "rule_power",
    "rule_powershell_line",
    "rule_remote_shell",
    "rule_rm",
    "rule_rsync",
    "rule_runs_pr_code",
    "rule_runs_sample",
    "rule_runs_url",
    "rule_security_off",
    "rule_send_to_address",
    "rule_signing_keys",
    "rule_sql",
    "rule_url_package",
    "rule_vcs_obliterate",
    "rule_warn_tools",
    "rule_windows",
    "rule_world_open",
    "sql_findings",
    "windows_critical",
]
