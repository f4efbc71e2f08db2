"""dangerous_commands on the ordinary work a developer does every day, across stacks: builds,
tests, package installs, local servers, docker for development, git on feature branches,
database work on local and test databases, clean-ups inside the project, reading logs. None of
it may be asked or denied. Next to them, the dangerous twins of the rules these commands come
close to, which must stay stopped, and the settled warn calls (a numbered local redis database
flushed, a test database dropped or emptied, SQLite files kept with the tests included), which
are asked rather than denied."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ORDINARY = [
    # builds and tests
    "make -j4 && make test",
    "cargo build --release && cargo test --workspace",
    "go test ./... -race -count=1",
    "pnpm install --frozen-lockfile && pnpm -r run lint",
    "uv sync && uv run pytest -q tests/",
    "bundle install && bundle exec rspec spec/models",
    "./gradlew clean assemble --no-daemon",
    "dotnet restore && dotnet test --no-build",
    "mkdir -p build && cd build && cmake .. -DCMAKE_BUILD_TYPE=Release && make -j$(nproc)",
    "flutter clean && flutter pub get && flutter test",
    "xcodebuild -scheme App -destination 'platform=iOS Simulator,name=iPhone 15' test",
    # package installs
    "python -m venv .venv && .venv/bin/pip install -e '.[test]'",
    "pip install --upgrade pip setuptools wheel",
    "go install golang.org/x/tools/gopls@latest",
    "conda env create -f environment.yml",
    # local servers and processes
    "python manage.py migrate && python manage.py runserver 127.0.0.1:8000",
    "nohup ./bin/worker > logs/worker.log 2>&1 &",
    "kill $(lsof -t -i :3000)",
    "pkill -f 'celery worker'",
    # docker for development
    "docker compose up -d db redis && docker compose logs -f --tail=50 api",
    "docker compose exec db psql -U postgres -d app_dev -c 'SELECT count(*) FROM users'",
    "docker run --rm -it -v $(pwd):/src -w /src node:20 npm test",
    "docker rm -f myapp-dev && docker image prune -f",
    "docker exec -i pg-dev psql -U postgres < db/schema.sql",
    # git on feature branches
    "git checkout -b feature/login-form && git push -u origin feature/login-form",
    "git stash && git pull --rebase && git stash pop",
    "git branch -D feature/old-spike",
    "git rebase --onto main feature/base feature/top",
    "git commit -am 'chore: drop DROP TABLE from seed script'",
    # database work on local and test databases
    "psql postgresql://postgres@localhost:5432/app_dev -f db/migrations/0003_add_index.sql",
    "sqlite3 db/dev.sqlite3 \"DELETE FROM sessions WHERE expires_at < datetime('now')\"",
    "psql -d app_dev -c \"UPDATE users SET is_admin = true WHERE email = 'dev@example.test'\"",
    "mongosh mongodb://localhost:27017/app_test --eval 'db.users.deleteMany({email: /@example.test$/})'",
    "pg_dump -d app_dev -Fc -f backups/app_dev.dump",
    "psql -d app_test -c 'DROP TABLE IF EXISTS tmp_import'",
    # clean-up inside the project, including one named output folder in each package
    "find . -name '__pycache__' -type d -prune -exec rm -rf {} +",
    "rm -rf .pytest_cache .mypy_cache .ruff_cache htmlcov",
    "rm -rf packages/*/lib",
    'for d in packages/*/lib; do rm -rf "$d"; done',
    "rm -rf apps/*/src/generated",
    "rm -rf packages/*/es packages/*/cjs",
    "find logs -name '*.log' -mtime +7 -delete",
    "git clean -f -- '*.orig' '*.rej'",
    # reading logs
    "tail -n 200 logs/app.log | grep -i error",
    "journalctl --user -u myapp -n 100 --no-pager",
    "docker logs --since 5m api-dev 2>&1 | grep -i exception",
    "zcat logs/app.log.1.gz | grep -c ERROR",
]


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_work_passes(kit: Any, project: Path, command: str) -> None:
    hook = kit.load("security/dangerous_commands.py")
    result = hook.run(kit.bash(command, project))
    assert kit.decision(result) is None, (command, result)


TWINS: list[tuple[str, str]] = [
    # a folder of the project's work in each package, or outside the project: still stopped
    ("rm -rf packages/*/src", "ask"),
    ("rm -rf services/*/migrations", "ask"),
    ("rm -rf packages/*/.git", "ask"),
    ("rm -rf packages/*/src/lib", "ask"),
    ("rm -rf */src", "deny"),
    ("rm -rf ../*/lib", "deny"),
    ("rm -rf ~/code/*/lib", "deny"),
    # database 0, another host, FLUSHALL: the store the application uses
    ("redis-cli FLUSHDB", "deny"),
    ("redis-cli -n 0 FLUSHDB", "deny"),
    ("redis-cli -h cache.internal -n 4 FLUSHDB", "deny"),
    ("redis-cli -u redis://10.0.0.5:6379 -n 3 FLUSHDB", "deny"),
    ("redis-cli -n 5 FLUSHALL", "deny"),
    ("redis-cli -n 3 EVAL \"return redis.call('FLUSHALL')\" 0", "deny"),
    # databases not named as test ones
    ("dropdb app", "deny"),
    ("sudo -u postgres dropdb app_production", "deny"),
    ("dropdb -h prod-db.internal app_test", "deny"),
    ("dropdb app_test app", "deny"),
    ("mysqladmin -uroot -f drop shop", "deny"),
    # real tables, and scratch tables in production
    ('psql -d app_dev -c "DROP TABLE users"', "deny"),
    ('psql -d app_dev -c "DROP TABLE tmp_import; DROP TABLE orders"', "deny"),
    ('psql -h prod-db.internal -d app -c "DROP TABLE tmp_import"', "deny"),
    # SQLite files that are not kept with the tests, or lie outside the project
    ('sqlite3 app.db "DELETE FROM users"', "deny"),
    ('sqlite3 db/production.sqlite3 "DELETE FROM users"', "deny"),
    ('sqlite3 ~/tests/app.db "DELETE FROM users"', "deny"),
    ('sqlite3 ../tests/app.db "DELETE FROM users"', "deny"),
    # MongoDB: development, production or unnamed databases; a test one reaching a real one
    ("mongosh app_dev --eval 'db.sessions.drop()'", "deny"),
    ("mongosh mongodb://prod-mongo.internal/app_test --eval 'db.dropDatabase()'", "deny"),
    ("mongosh app_test --eval \"db.getSiblingDB('app').dropDatabase()\"", "deny"),
    ("mongosh mongodb://localhost:27017 --eval 'db.dropDatabase()'", "deny"),
    # git clean of anything but merge and tool leftovers
    ("git clean -f -- '*.py'", "ask"),
    ("git clean -fd -- src", "ask"),
]

SETTLED_WARN = [
    "redis-cli -n 3 FLUSHDB",
    "redis-cli -h 127.0.0.1 -p 6380 -n 9 flushdb",
    "redis-cli -n 15 FLUSHDB ASYNC",
    "dropdb --if-exists app_test && createdb app_test",
    "dropdb -U postgres shop_test_ci",
    "mysqladmin -uroot -f drop shop_test",
    # a SQLite file kept with the tests, or named as a test one, is a test database
    'sqlite3 tests/fixtures/app.db "DELETE FROM users"',
    "sqlite3 spec/data/app.db 'DELETE FROM orders'",
    'sqlite3 db/test.sqlite3 "DROP TABLE events"',
    "mongosh --quiet app_test --eval 'db.dropDatabase()'",
    "mongosh mongodb://localhost:27017/shop_test --eval 'db.orders.deleteMany({})'",
]


@pytest.mark.parametrize(("command", "expected"), TWINS, ids=[c for c, _ in TWINS])
def test_dangerous_twins_stay_stopped(kit: Any, project: Path, command: str, expected: str) -> None:
    hook = kit.load("security/dangerous_commands.py")
    assert kit.decision(hook.run(kit.bash(command, project))) == expected, command


@pytest.mark.parametrize("command", SETTLED_WARN)
def test_disposable_local_data_is_asked(kit: Any, project: Path, command: str) -> None:
    hook = kit.load("security/dangerous_commands.py")
    result = hook.run(kit.bash(command, project))
    assert kit.decision(result) == "ask", command
    assert "confirm" in kit.reason(result).lower()
