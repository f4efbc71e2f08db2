"""dangerous_commands: interpreter code whose dangerous text is only a string literal — printed,
echoed or written to a fixture (Ruby %q(…)/%Q{…}, Perl q{…}/qq{…}, PHP/JS/Python quotes) — runs
nothing and passes; the same text handed to system/exec/eval, or as %x(…)/qx{…}, is still denied.
A tree walk narrowed to one kind of file (``Path('.').rglob('*.pyc')``, an ``endswith`` test)
whose results are unlinked is not ``rm -rf`` of the walked folder; an unfiltered walk still is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/dangerous_commands.py"

PRINTED: list[str] = [
    "ruby -e 'puts %Q{exec(\"rm -rf ~\")}' > spec/fixtures/payloads.txt",
    "perl -e 'print qq{system(\"rm -rf /\")\\n}' >> t/data/attacks.txt",
    "perl -e 'print q(`rm -rf ~`)' > t/data/backtick.txt",
    'node -e \'console.log("require(\\"child_process\\").execSync(\\"rm -rf ~\\")")\' >> test/fixtures/bad.txt',
    'php -r \'echo "shell_exec(\\"rm -rf /\\");";\' > tests/fixtures/evil.txt',
    "ruby -e 'File.write(\"spec/fixtures/x.rb\", %Q{`rm -rf ~`})'",
    "php artisan tinker --execute=\"echo 'App\\\\Models\\\\Post::query()->delete()';\"",
    "python -c \"print('Order.objects.all().delete()')\" > docs/snippets/wipe.txt",
]

RUN: list[tuple[str, str]] = [
    ("ruby -e 'system %q(rm -rf ~)'", "opaque-exec"),
    ("perl -e 'print qx{rm -rf ~}'", "opaque-exec"),
    ("ruby -e 'eval(%q(system(\"rm -rf ~\")))'", "opaque-exec"),
    ("perl -e 'system q{rm -rf /}'", "opaque-exec"),
    ('php artisan tinker --execute="App\\\\Models\\\\Post::query()->delete();"', "orm-wipe"),
    ('php artisan tinker --execute="eval(\'DB::table(\\"posts\\")->delete();\');"', "orm-wipe"),
]

WALKS: list[tuple[str, str | None]] = [
    ("python3 -c \"import pathlib; [f.unlink() for f in pathlib.Path('build').glob('**/*.o')]\"", None),
    ("python -c \"from pathlib import Path; [p.unlink() for p in Path('.').rglob('*.orig')]\"", None),
    (
        "python -c \"import os; [os.remove(os.path.join(r, f)) for r, _, fs in os.walk('.') for f in fs "
        "if f.endswith('.rej')]\"",
        None,
    ),
    (
        "node -e \"const fs=require('fs'); for (const f of fs.readdirSync('.')) "
        "if (f.endsWith('.log')) fs.unlinkSync(f)\"",
        None,
    ),
    ("python -c \"from pathlib import Path; [p.unlink() for p in Path('.').rglob('*') if p.is_file()]\"", "deny"),
    ("python -c \"import os; [os.remove(os.path.join(r, f)) for r, _, fs in os.walk('/') for f in fs]\"", "deny"),
    ("python -c \"from pathlib import Path; [p.unlink() for p in Path('/etc').glob('*')]\"", "deny"),
]


@pytest.mark.parametrize("command", PRINTED)
def test_printed_code_is_data(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(("command", "rule"), RUN, ids=[c for c, _ in RUN])
def test_code_that_runs_is_still_denied(kit: Any, project: Path, command: str, rule: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", rule)


@pytest.mark.parametrize(("command", "expected"), WALKS, ids=[c for c, _ in WALKS])
def test_filtered_walks(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision(HOOK, command, project, expected, "rm")
