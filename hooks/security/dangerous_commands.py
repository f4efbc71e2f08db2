"""Block destructive shell commands before they run.

Hook: dangerous_commands
Event: PreToolUse
Matcher: Bash|Write|Edit|MultiEdit
Description: Denies catastrophic commands (rm -rf on /, ~, $HOME, .., the project root or
    system folders, also through find, fd/ls -d | xargs, rimraf/del-cli, package runners (pnpm -r
    exec, npx shx), rsync --delete and interpreter code (python/node/ruby/perl, deno eval, bun -e,
    Deno.remove, fs-extra); mirroring an empty folder onto any destination (rsync --delete, rclone
    sync, aws s3 sync --delete, gsutil rsync -d, mc mirror --remove); dd/mkfs onto devices, storage
    pools/volumes/LUKS destroyed (zpool/zfs destroy, lvremove, cryptsetup luksFormat), sysrq; fork
    bombs in any language's endless loop; curl|sh and other download-and-run (also via xargs, an
    unpacked downloaded archive, nix run github:, brew install URL), PowerShell's irm|iex included;
    chmod/chown -R on / (a server's application folders /var/www, /srv/*, /opt/* may take their
    service user); git push --force to main/master, rewriting every branch (filter-branch --all,
    filter-repo, BFG, git lfs migrate --everything), deleting the repository via gh api; git reset
    --hard without a backup ref or a clean-tree check; SQL DROP/TRUNCATE, DELETE/UPDATE without a
    real WHERE through database clients, framework consoles and ORMs (rails runner -e production
    CODE included); firewall off; cron jobs or start-up files that fetch and run remote code) and
    answers "ask" for destructive-but-sometimes-legitimate ones (git clean -f, docker system prune,
    find -delete and bulk rm inside the project outside build output (one extension of tool
    droppings such as *.retry or *.pid passes; code, data, keys, backups ask), force-push to other
    branches, a service restarted on a production host, a shell running text picked out of a file or
    a document…).
    Code that runs after all counts wherever it hides: a program spawned with an argument
    list in any language (Ruby/Perl system("rm", "-rf", …), Perl/Ruby quote-like and word-list
    literals (system q{…}, exec %(…), system qw(rm -rf …), IO.popen(%w[…])), Node
    spawnSync/execFileSync, Go
    exec.Command, Rust Command::new(…).args, PHP pcntl_exec, Python lists built from
    expanduser/Path.home()), a file written earlier in the line and run with go/deno/bun run
    (Go's os.RemoveAll is a recursive delete), PowerShell Remove-Item of $env:USERPROFILE.
    Anything written into an authorized_keys file (also on a host over ssh, the key fed on
    stdin) is denied: it decides who may log in. Production is read from hosts, connection
    strings (Server=sql-prod;…) and variable names ($PROD_DB_URL): SQL through Oracle/Hive/
    Trino/Impala shells, Kafka topic or record deletes, Argo CD app deletes, index deletes by
    name pattern (curl -X DELETE :9200/logs-*) are asked, denied on production; Vault auth/
    secrets/audit disable and a policy opening path "*" are denied.
    Opaque execution is judged by its text when the parser cannot assemble it: eval of a
    substitution or variable, sh -c "$x", a computed command word ("$@" after set --), awk
    system()/getline, interpreter code calling system/exec/subprocess/backticks, and a script
    handed over as an argument (commandToExecute, startup-script=, --user-data) are denied when
    that text shows a recursive delete of home/root/system folders, a disk device written, a
    private key or credentials read, a download piped into a shell or a /dev/tcp socket
    (eval "$(ssh-agent -s)", awk '{system("gzip " $1)}', subprocess.run(["make"]) pass).
    Also: destructive SQL given to a project's own admin tool (… sql "DELETE FROM t"), SQL files
    the call does not show run against production (asked), data posted to a bare public IP
    (asked), code run after checking out someone else's pull request (asked); publishing dry
    runs and test indexes, SQL on a database file in build output, emptying an in-project
    output/staging folder and xargs rm over ls of in-project files pass.
    Also: words glued from variables split at their blanks like bash splits them (x="chmod -R
    777"; y=" /etc"; $x$y runs chmod); a line that is PowerShell rather than bash (iex (iwr
    URL).Content, $s = iwr URL; iex $s) evaluating a download is denied when the iex stands
    outside quotes; SQL giving an account rights over every database from any host (GRANT … ON *.*
    TO 'x'@'%') is denied, server-administrator rights to one account (ON *.* to a named host,
    SUPERUSER, sysadmin) asked; forward schema migrations against production are asked.
    Automatic security updates switched off (unattended-upgrades, apt-daily*/dnf-automatic timers,
    wuauserv, softwareupdate --schedule off) deny like a firewall off; signing identities and
    secret keys destroyed (fastlane match nuke, security delete-certificate/-identity, the login
    keychain, gpg --delete-secret-keys) deny, keytool -delete of a release key asks; keys deleted
    by pattern on a production Redis deny; firestore:delete -r of one document passes (of a
    collection, denied); deploys to production (vercel/netlify --prod, firebase/fly/wrangler/sls/
    gcloud/eas with a production target) ask like changes to a production cluster. Positional
    parameters set with `set --` reach "$@"; R/Julia recursive deletes (unlink(…, recursive=TRUE),
    rm(…; recursive=true), fs::dir_delete) are read like rmtree; a whole repository deleted through
    a forge's REST API (DELETE /repos/OWNER/REPO, /api/v4/projects/ID) is denied; a cloud identity
    given administrator rights (AdministratorAccess, Action "*" on "*", Owner, roles/owner|editor)
    is asked. SQL inside framework consoles (rails runner/tinker/manage.py shell -c calling
    execute/statement/unprepared/exec_query), prisma db execute, and COPY … TO/FROM PROGRAM (a shell
    command on the database server, denied) are judged like psql -c. Disk tools asked only to show
    a disk (parted … print, sfdisk --dump, wipefs without -a or with --no-act, sgdisk -v) pass.
    npm/pnpm/yarn unpublish and gem yank ask like publishing. A package installed from a plain web
    address outside the registries and forges (pip install https://…/x.tar.gz, npm i -g URL.tgz)
    asks; written into a git hook or cron job it is denied. Settled warns are asked, not denied:
    redis-cli -n N FLUSHDB (N ≠ 0) on a local server, dropdb/mysqladmin drop of test-named
    databases, SQL emptying a SQLite file kept with the tests (tests/fixtures/app.db), a MongoDB
    test database dropped or emptied (mongosh app_test --eval …). git clean -f of leftover
    patterns only ('*.orig', '*.rej') passes. One named
    entry in each package (packages/*/lib, apps/*/src/generated) is deleted like that path
    written once; a work folder in each (packages/*/src, */migrations) asks.
    A WHERE whose terms are all always true joined by AND ('a'='a' AND 1) is no condition; SQL
    decoded on the spot (base64/xxd output as an argument, a variable holding it, or the input of
    a database client) is denied; D="$X/" followed by rm -rf "$D"* asks like rm -rf "$X/"*; a
    shell run with -n (bash -n, sh -o noexec) only parses what is piped into it and passes; and
    crontab -l | grep -v JOB | crontab - (or sed '/JOB/d') removes a job without adding one and
    passes.
    Scripts and records: a shell's script given as <(producer) is judged like the producer piped
    into it (bash <(echo 'rm -rf ~') denied, text picked out of a file asked); a shell fed only an
    unset variable (echo "$X" | sh) asks; the text of a test fixture, corpus or payload-named
    sample fed to a shell is denied; a makefile written earlier in the line and run has its
    recipes judged; systemctl edit fed a unit on stdin, a .pth file with import lines (wherever it
    is written), decoded text written into a start-up file, a job running a script from a temporary
    folder and an everyday command aliased to something destructive are persistence; destroying a
    shell history or login log is denied (history-wipe); rm -rf of a pattern whose every match is
    a protected folder (/usr/lib/python3*) is denied; interpreter code deleting every item of an
    unfiltered API listing asks. Ordinary work that passes: find -name '*.sh' -exec chmod (those
    files, not the tree), scratch tables (tmp_*, *_scratch) dropped on a development database or a
    project database file (also in a rebuild) or removed with bq rm, and xargs rm fed by an
    in-project ls through head/tail/sort/grep -v.
    Windows programs run from WSL, Git Bash or PowerShell have their own rules (_windows.py;
    their words read as Windows text): rd /s, del /s, Remove-Item -Recurse of a drive, the
    system folders, C:\\Users or a profile (also /mnt/c/… paths, cmd /c text after cd) deny as
    rm; format X:, bcdedit changes and diskpart (asked) as devices; vssadmin/wmic shadowcopy/
    wbadmin deletes as backups; wevtutil cl and Clear-EventLog as history-wipe; schtasks /create,
    Run/RunOnce/Winlogon values and Register-ScheduledTask deny when what they run fetches or
    hides code, else ask (persistence); Defender, UAC, SmartScreen or updates switched off
    through the registry or Set-MpPreference, Defender exclusions (asked; of a drive, profile,
    temp or system folder denied) as security-off; icacls grants of write rights to Everyone/
    Users (denied recursive or on system/profile folders, else asked) and takeown /r of system
    folders as chmod; reg delete of top keys and reg save of the SAM/SECURITY/SYSTEM hives as
    registry. dir, type, where, reg query, schtasks /query, icacls FILE, bcdedit /enum pass.
    SQL handed to a client library in interpreter code is judged like psql -c whatever the call
    is named (R DBI dbExecute(con, "…"), Julia execute(conn, "…"), mysqli_query, Perl DBI do,
    exec_driver_sql, sql.unsafe, SQL held in a variable then executed), and a database file the
    code names decides test (asked) or development (scratch tables pass) like sqlite3's operand.
    Write/Edit/MultiEdit of a manifest: lifecycle scripts (package.json preinstall/postinstall/
    prepare…, Composer post-install-cmd…, devcontainer postCreateCommand…) and install-time
    Python (setup.py, hatch_build.py) are judged by these Bash rules, a deny there denied as
    lifecycle-script (husky install, npm run build pass). p4 obliterate -y and TFVC tf destroy
    (permanent history deletes on the server) deny; fastlane beta/alpha/internal lanes (builds for
    testers) pass; a service restarted over ssh on a bench board (*.local, Jetson/Pi hosts) passes;
    a shell running a piece of the call's own text picked by jq/grep/cut/sed is denied when that
    piece would be; image writers and formatters (bmaptool copy, rpi-imager, etcher, dcfldd/dc3dd
    of=, newfs_apfs/newfs_hfs) pointed at a disk device deny; xargs handing unseen input lines to
    sh -c as its script asks.
    Loop devices: after the line attached an image file (losetup FILE, kpartx -a, udisksctl
    loop-setup -f), mkfs/dd/partitioning of the loop device it named or printed ($(losetup -f
    --show x.img), losetup /dev/loop3 x.img) writes the image and passes; a literal /dev/loopN
    after the system picked the device asks (it may be another); disks stay denied. Clean targets
    (make/just/rake clean, distclean, mrproper, npm run clean, cargo/gradle/mvn clean) handed a
    folder variable or option (BUILD_DIR=/, O=.., OUT=$HOME, --target-dir ~) naming the root,
    home, a system folder or a parent of the project are denied (build-clean); in-project
    values, programs (CC=/usr/bin/clang) and an uninstall's install layout (PREFIX, DESTDIR) pass.
    Object-store mirrors with delete (aws s3 sync --delete, gsutil rsync -d, gcloud storage
    rsync --delete-unmatched-destination-objects, azcopy sync --delete-destination, rclone sync,
    mc mirror --remove): data onto a production bucket, a bucket's root (not a dev/staging/test
    one) or a whole remote is denied; build output (dist/, public/, _site) onto a bucket is a
    site deploy, asked on a production bucket; prefixes, dry runs and syncs without delete pass.
    find deleting by age (-mtime/-mmin/-ctime +N) from the project root with one kind of file
    (slurm-*.out, core.*, *.log) or under a log/crash/output folder (Saved/Logs) passes.
    chmod of a serial/USB port (/dev/ttyUSB*, ttyACM*, ttyS*, cu.*, serial/by-id) to every user
    passes (a device that is not a disk); disks, /dev/mem, setuid and recursive /dev stay denied.
    git checkout -- DIR/ and git restore DIR/ (a folder or glob) ask unless the tree is clean;
    publishing to pub.dev, Hex, CocoaPods trunk, NuGet, Anaconda, JSR, the VS Code Marketplace/
    Open VSX or itch.io (butler push) asks like npm publish; diesel migration redo, rails
    db:migrate:redo, sea-orm-cli migrate down/refresh and dotnet ef database update 0 ask.
    Parses the command like bash does (quotes, split flags, /bin/rm, sudo/env/timeout/xargs
    wrappers, chains and what each command waits for, $(…), backticks, variables, ${IFS},
    brace expansion, here-docs, bash -c, ssh/ansible/container commands). Fails closed: an
    unparseable or malformed call is denied.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.dirname(_HERE), _HERE):  # hooks/ (for _common) and this folder (_shell, _dangerous)
    if _path not in sys.path:
        sys.path.insert(0, _path)

import _common  # noqa: E402
import _dangerous  # noqa: E402  (the rules, one module per family: _dangerous/_files.py …)
import _shell  # noqa: E402
from _common import Finding  # noqa: E402
from _shell import Ctx  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# PowerShell's Remove-Item and its aliases (-Recurse reads as rm's -r).
_POWERSHELL_REMOVE = frozenset({"remove-item", "ri", "del", "erase", "rd"})

NAME = "dangerous_commands"
EVENTS = frozenset({"PreToolUse"})
MATCHER = "Bash|Write|Edit|MultiEdit"
TOOLS = frozenset({"Bash", "Write", "Edit", "MultiEdit"})


def check(command: str, ctx: Ctx) -> list[Finding]:
    """All findings for one Bash command string."""
    found: list[Finding] = []
    try:
        cmds = _shell.walk(command, ctx)
    except _shell.ShellParseError as exc:
        found = [
            (
                "deny",
                f"could not parse the command safely ({exc}); blocked (fail closed). "
                "Fix the quoting or split it into simpler commands.",
            )
        ]
        _common.tag_rule("parse", found)
        return found

    def apply(rule: str, fn: Callable[..., None], *args: Any) -> None:
        start = len(found)
        fn(*args, found)
        _common.tag_rule(rule, found, start)

    for index, cmd in enumerate(cmds):
        name = cmd.name
        if name in ("rm", "rmdir", "unlink") or name in _POWERSHELL_REMOVE or name in _dangerous.TREE_REMOVERS:
            apply("rm", _dangerous.rule_rm, cmd)
        elif name == "find":
            apply("find-delete", _dangerous.rule_find, cmd)
        elif name == "mv":
            apply("mv", _dangerous.rule_mv, cmd)
        elif name == "rsync":
            apply("rsync", _dangerous.rule_rsync, cmd)
        elif name in ("chmod", "chown", "chgrp", "setfacl", "chattr"):
            apply("chmod", _dangerous.rule_chmod, cmd)
        elif name == "git":
            apply("git", _dangerous.rule_git, cmd, cmds[:index])
        elif name == "gh":
            apply("git", _dangerous.rule_gh, cmd)
        elif name in ("bfg", "java"):
            apply("git", _dangerous.rule_bfg, cmd)
        elif name in ("p4", "tf", "tfpt"):
            apply("git", _dangerous.rule_vcs_obliterate, cmd)
        apply("mirror", _dangerous.rule_mirror_empty, cmd)
        apply("build-clean", _dangerous.rule_build_clean, cmd)
        apply("devices", _dangerous.rule_devices, cmd, cmds[:index])
        apply("power", _dangerous.rule_power, cmd)
        apply("sql", _dangerous.rule_sql, cmd)
        apply("hosted-data", _dangerous.rule_hosted_data, cmd)
        apply("remote-code", _dangerous.rule_download_exec, cmd)
        apply("remote-code", _dangerous.rule_code_runs_fetched, cmd)
        apply("remote-code", _dangerous.rule_filtered_text_run, cmd, check)
        apply("remote-code", _dangerous.rule_runs_url, cmd)
        apply("remote-package", _dangerous.rule_url_package, cmd)
        apply("exfiltration", _dangerous.rule_send_to_address, cmd)
        apply("hidden-code", _dangerous.rule_hidden_code, cmd)
        apply("hidden-code", _dangerous.rule_decoded_operand, cmd)
        apply("opaque-exec", _dangerous.rule_opaque_exec, cmd, command)
        apply("opaque-exec", _dangerous.rule_code_argument, cmd)
        apply("opaque-exec", _dangerous.rule_runs_sample, cmd)
        apply("risky-tool", _dangerous.rule_warn_tools, cmd)
        apply("security-off", _dangerous.rule_security_off, cmd)
        apply("signing-keys", _dangerous.rule_signing_keys, cmd)
        apply("accounts", _dangerous.rule_accounts, cmd)
        apply("remote-shell", _dangerous.rule_remote_shell, cmd)
        apply("orm-wipe", _dangerous.rule_orm, cmd)
        apply("db-reset", _dangerous.rule_db_tasks, cmd)
        apply("db-dump", _dangerous.rule_dump_upload, cmd)
        apply("fleet", _dangerous.rule_fleet, cmd, check)
        apply("sql", _dangerous.rule_http_delete, cmd)
        apply("persistence", _dangerous.rule_persistence, cmd, cmds[:index], check)
        apply("history-wipe", _dangerous.rule_history_wipe, cmd)
        apply("cloud", _dangerous.rule_platform_sql, cmd)
        apply("cloud", _dangerous.rule_cloud_deletes, cmd)
        apply("cloud", _dangerous.rule_world_open, cmd)
        apply("cloud", _dangerous.rule_machine_code, cmd, check)
        apply("windows", _dangerous.rule_windows, cmd)  # names its own rules (rm, persistence …)
    apply("remote-code", _dangerous.rule_download_then_run, cmds)
    apply("remote-code", _dangerous.rule_powershell_line, command)
    apply("pr-code", _dangerous.rule_runs_pr_code, cmds)
    apply("fork-bomb", _dangerous.rule_fork_bomb, ctx, cmds)
    return found


@_common.fail_closed(NAME)
def run(payload: _common.Payload) -> _common.Result:
    """PreToolUse entry point: deny/ask/None for a Bash tool call."""
    got = _common.tool_call(payload, NAME, TOOLS)
    if not isinstance(got, tuple):
        return got
    tool, tool_input = got
    ctx = _shell.make_ctx(_common.session_cwd(payload), _common.project_dir(payload))
    if tool != "Bash":
        return _common.verdict(NAME, check_written(tool_input, ctx))
    command = _common.str_field(tool_input, "command", NAME)
    if not isinstance(command, str):
        return command
    return _common.verdict(NAME, check(command, ctx))


def check_written(tool_input: dict[str, Any], ctx: Ctx) -> list[Finding]:
    """Findings for a Write/Edit/MultiEdit: commands it puts into a manifest's lifecycle scripts
    (or install-time Python) judged like Bash commands, since every install will run them."""
    target = tool_input.get("file_path")
    if not isinstance(target, str) or not target:
        return []  # a malformed edit is the file hooks' business; nothing runs from it here
    texts = [tool_input.get(k) for k in ("content", "new_string")]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        texts += [e.get("new_string") for e in edits if isinstance(e, dict)]
    found: list[Finding] = []
    _dangerous.rule_manifest(target, [t for t in texts if isinstance(t, str)], ctx, check, found)
    _common.tag_rule("lifecycle-script", found)
    return found


if __name__ == "__main__":
    _common.main(run, fail_closed_on_bad_input=True)
