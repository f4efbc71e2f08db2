"""workspace_boundary on files interpreter code writes, and on a board's device nodes.

Interpreter one-liners (python -c, ruby -e, node -e, php -r, perl -e, Rscript -e, lua -e, a
here-doc fed to python) that write, append to, copy or move onto a file outside the project are
judged like a shell redirect to that path, whichever way the code spells the home folder. The
shared parser lists those files (``_shell.code_writes``); writes inside the project and to the
temp folder pass. Serial ports and a board's other device nodes may be opened to the user
(LABELLING.md: devices that are not disks are benign); disks and memory stay refused. The
commands are written for these tests, not taken from the evaluation sets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"


@pytest.fixture
def sh(kit: Any) -> Any:
    return kit.load("security/_shell")


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        ('BEGIN { print "x" >> ENVIRON["HOME"] "/.profile" }', ["~/.profile"]),
        ('{ printf "%s\\n", $0 > "/etc/motd" }', ["/etc/motd"]),
        ('{ print > "out/" $1 ".txt" }', ["out/"]),
        ("{ print $1, ($2 > 3) }", []),
    ],
)
def test_shared_parser_lists_the_files_an_awk_program_writes(sh: Any, program: str, expected: list[str]) -> None:
    assert sh.code_writes(program, False, awk=True) == expected


@pytest.mark.parametrize(
    ("code", "python", "expected"),
    [
        ("import os\nopen(os.path.expanduser('~/.bashrc'), 'a').write('x')", True, ["~/.bashrc"]),
        ("from pathlib import Path\n(Path.home() / '.profile').write_text('x')", True, ["~/.profile"]),
        ("import pathlib\npathlib.Path.home().joinpath('.config', 'x').write_bytes(b'')", True, ["~/.config/x"]),
        ("from pathlib import Path\nPath('~/.zshenv').expanduser().open('w')", True, ["~/.zshenv"]),
        ("import shutil\nshutil.copy2('a.sh', '/etc/profile.d/a.sh')", True, ["/etc/profile.d/a.sh"]),
        ("with open('out/r.txt', mode='w') as f: f.write('1')", True, ["out/r.txt"]),
        ("import os\nopen(os.path.expandvars('$HOME/.pam_environment'), 'a')", True, ["~/.pam_environment"]),
        ('File.write(File.expand_path("~/.zshrc"), "x", mode: "a")', False, ["~/.zshrc"]),
        ('File.open(File.join(Dir.home, ".gemrc"), "a") { |f| f.puts 1 }', False, ["~/.gemrc"]),
        ('FileUtils.cp("x", ENV["HOME"] + "/.irbrc")', False, ["~/.irbrc"]),
        ('require("fs").promises.appendFile(os.homedir() + "/.npmrc", "x")', False, ["~/.npmrc"]),
        ("fs.writeFileSync(`${os.homedir()}/.zprofile`, s)", False, ["~/.zprofile"]),
        ('file_put_contents(getenv("HOME") . "/.profile", "x", FILE_APPEND);', False, ["~/.profile"]),
        ('open(my $fh, ">>", "$ENV{HOME}/.bash_login") or die;', False, ["~/.bash_login"]),
        ('open(LOG, ">>/var/log/app.log");', False, ["/var/log/app.log"]),
        ('writeLines(c("a"), con = "~/.Renviron")', False, ["~/.Renviron"]),
        ('cat("x(1)\\n", file = "/etc/R/Rprofile.site", append = TRUE)', False, ["/etc/R/Rprofile.site"]),
        ('local f = io.open(os.getenv("HOME") .. "/.luarc", "w")', False, ["~/.luarc"]),
        # A path kept in a variable first (assigned once).
        ("import os\nrc = os.path.join(os.environ['HOME'], '.zshrc')\nopen(rc, 'a')", True, ["~/.zshrc"]),
        ('rc = File.expand_path("~/.irbrc"); File.open(rc, "a") { |f| f.puts 1 }', False, ["~/.irbrc"]),
        ('my $rc = "$ENV{HOME}/.bashrc"; open(my $fh, ">>", $rc) or die;', False, ["~/.bashrc"]),
        ('const p = os.homedir() + "/.profile"; fs.appendFileSync(p, "x")', False, ["~/.profile"]),
        ('$f = "/etc/a"; $f = "out.txt"; file_put_contents($f, "x");', False, []),
        # Downloads saved to a file and archives unpacked into a folder.
        (
            "import urllib.request as r\nr.urlretrieve('https://x.test/a', '/usr/local/bin/a')",
            True,
            ["/usr/local/bin/a"],
        ),
        ("import tarfile\ntarfile.open('a.tgz').extractall(path='/opt')", True, ["/opt"]),
        ('IO.copy_stream(URI.open(u), File.expand_path("~/.local/bin/t"))', False, ["~/.local/bin/t"]),
        ('download.file(u, destfile = "~/.Rprofile")', False, ["~/.Rprofile"]),
        ('path("~/.bashrc")->append("x")', False, ["~/.bashrc"]),
        ('touch("/etc/nologin");', False, ["/etc/nologin"]),
        # Reading, testing, printing and string methods write nothing.
        ("import os\nprint(open(os.path.expanduser('~/.gitconfig')).read())", True, []),
        ("s = 'a/b'.replace('a', '/etc')\nitems = [1].copy()", True, []),
        ('puts File.read(File.expand_path("~/.gemrc"))', False, []),
        ('open(my $in, "<", "/etc/os-release") or die;', False, []),
        ('console.log(fs.existsSync(os.homedir() + "/.npmrc"))', False, []),
        ('window.open("/docs/about", "about")', False, []),
        ('File.open("/etc/motd", "rb") { |f| puts f.read }', False, []),
        ('File.open("/etc/motd", "a:UTF-8") { |f| f.puts 1 }', False, ["/etc/motd"]),
    ],
)
def test_shared_parser_lists_the_files_code_writes(sh: Any, code: str, python: bool, expected: list[str]) -> None:
    assert sh.code_writes(code, python) == expected


@pytest.mark.parametrize(
    "command",
    [
        # Start-up files of the home folder, in each language's spelling of it.
        'ruby -e \'File.open(File.expand_path("~/.bash_profile"), "a") { |f| f.puts "alias k=kubectl" }\'',
        "python3 -c \"import os; open(os.path.join(os.environ['HOME'], '.zshrc'), 'a').write('x')\"",
        "python3 -c \"from pathlib import Path; (Path.home() / '.profile').write_text('export A=1')\"",
        'node -e \'require("fs").appendFileSync(require("os").homedir() + "/.bashrc", "x\\n")\'',
        'php -r \'file_put_contents($_SERVER["HOME"] . "/.zshenv", "x", FILE_APPEND);\'',
        'perl -e \'open(my $f, ">>", "$ENV{HOME}/.profile") or die; print $f "x\\n"\'',
        'Rscript -e \'cat("options(repos=1)\\n", file = "~/.Rprofile", append = TRUE)\'',
        'lua -e \'local f = io.open(os.getenv("HOME") .. "/.bashrc", "a"); f:write("x")\'',
        "python3 - <<'PY'\nimport os\nwith open(os.path.expanduser('~/.bashrc'), 'a') as f:\n    f.write('x')\nPY",
        # System folders and climbing out of the project.
        "python3 -c \"import shutil; shutil.copy('hook.sh', '/etc/profile.d/hook.sh')\"",
        'node -e \'require("fs").promises.writeFile("/etc/cron.d/sync", "* * * * * root x")\'',
        'ruby -e \'File.write(File.expand_path("../other-repo/config.rb"), "x")\'',
        "python3 -c \"import os, shutil; shutil.move('dist/tool', os.path.expanduser('~/.local/bin/tool'))\"",
        # A download saved, or an archive unpacked, outside the project; an awk redirection.
        "python3 -c \"import urllib.request as u, os; u.urlretrieve('https://x.test', os.path.expanduser('~/bin/t'))\"",
        "python3 -c \"import zipfile; zipfile.ZipFile('plugin.zip').extractall('/usr/share/plugins')\"",
        'awk \'BEGIN { print "alias ll=ls" >> ENVIRON["HOME"] "/.bashrc" }\'',
        "gawk '{ print > \"/etc/hosts.allow\" }' allow.txt",
        'ruby -e \'rc = File.expand_path("~/.bash_profile"); File.write(rc, "x", mode: "a")\'',
        'node -e \'const fs = require("fs"), p = require("os").homedir() + "/.zshrc"; fs.appendFileSync(p, "x")\'',
    ],
)
def test_code_writing_outside_the_project_is_refused(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c \"open('reports/summary.txt', 'w').write('ok')\"",
        "python3 -c \"import json; json.dump({}, open('/tmp/probe.json', 'w'))\"",
        'ruby -e \'File.write("tmp/cache/seed.txt", "42")\'',
        'node -e \'require("fs").writeFileSync("dist/build-stamp", String(Date.now()))\'',
        'php -r \'file_put_contents("storage/logs/x.log", "x");\'',
        'perl -e \'open(my $in, "<", "/etc/os-release"); open(my $o, ">", "notes/os.txt"); print $o <$in>\'',
        "Rscript -e 'write.csv(mtcars, file = \"results/mtcars.csv\")'",
        "python3 -c \"import shutil; shutil.copytree('templates', 'build/templates')\"",
        "python3 -c \"s = 'a/b'; print(s.replace('a', '/etc'))\"",
        "python3 -c \"import zipfile; zipfile.ZipFile('fixtures.zip').extractall('tests/fixtures')\"",
        'awk -F, \'{ print > "/tmp/split-" $1 ".csv" }\' data/all.csv',
        "awk '{ print $2 }' /etc/os-release",
        "python3 -c \"out = 'build/report.txt'; open(out, 'w').write('ok')\"",
        "python3 -c \"import os; rc = os.path.expanduser('~/.bashrc'); print(open(rc).read().count('alias'))\"",
        "python3 -c \"open('/dev/ttyUSB0', 'wb').write(b'AT\\r')\"",
        'node -e \'require("fs").writeFileSync(require("path").join(__dirname, "gen.json"), "{}")\'',
    ],
)
def test_code_writing_in_the_project_or_temp_folder_passes(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "sudo chmod 666 /dev/ttyACM1",
        "sudo chmod a+rw /dev/ttyS2 && minicom -D /dev/ttyS2",
        "sudo chown $USER /dev/ttyUSB3",
        "sudo chmod 666 /dev/i2c-1 && i2cdetect -y 1",
        "sudo chmod 0666 /dev/spidev0.0",
        "sudo setfacl -m u:$USER:rw /dev/video2",
        "sudo chmod 666 /dev/cu.usbserial-0001",
    ],
)
def test_opening_a_board_device_to_the_user_passes(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "sudo chmod 666 /dev/sdb",
        "sudo chmod 777 /dev/nvme0n1p2",
        "sudo chmod 666 /dev/mmcblk0",
        "sudo chmod 666 /dev/mem",
        "sudo chmod -R 666 /dev/ttyUSB0",
        "sudo chmod -R 777 /dev",
    ],
)
def test_opening_disks_memory_or_all_devices_stays_refused(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")
