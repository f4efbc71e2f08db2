"""dangerous_commands, round 18 classes:

* other version control systems' permanent history deletes (``p4 obliterate -y``, TFVC ``tf
  destroy``) are denied; their previews pass;
* builds uploaded for testers (fastlane beta/alpha/internal lanes) pass, store releases ask;
* a service restarted over ssh on a board on the developer's bench (an mDNS ``.local`` name, a
  Jetson/Raspberry Pi host or default user) passes; on a server it still asks;
* a shell running a piece, picked by text filters (jq, grep, cut, sed), of text written in the
  call is denied when that piece would be denied on its own (else asked as before).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/dangerous_commands.py"

CASES: list[tuple[str, str | None, str]] = [
    ("p4 obliterate -y //depot/Art/Textures/...", "deny", "git"),
    ("p4 -c ws obliterate -y -h //depot/main/Old/...", "deny", "git"),
    ("p4 obliterate //depot/Art/Textures/...", None, ""),
    ("tf destroy $/Game/Legacy /startcleanup", "deny", "git"),
    ("tf vc destroy $/Game/Legacy /preview", None, ""),
    ("tf destroy -target=module.preview_pr42", None, ""),  # "tf" as an alias of terraform: no $/ path
    ("p4 delete //depot/Art/Textures/old.png", None, ""),
    ("fastlane ios alpha", None, ""),
    ("bundle exec fastlane android internal --verbose", None, ""),
    ("fastlane android playstore", "ask", "risky-tool"),
    ("bundle exec fastlane ios submit_review", "ask", "risky-tool"),
    ("ssh pi@raspberrypi.local 'sudo systemctl restart camera-stream'", None, ""),
    ("ssh ubuntu@orin-02 'sudo systemctl restart perception'", None, ""),
    ("ssh admin@bench-rig3 'sudo service mosquitto restart'", None, ""),
    ("ssh deploy@shop-web-1.example.net 'sudo systemctl restart php-fpm'", "ask", "risky-tool"),
    ('echo \'{"run": "rm -rf ~/*"}\' | jq -r .run | sh', "deny", "remote-code"),
    ("printf 'a=make lint\\nb=git push -f origin master\\n' | grep '^b=' | cut -d= -f2 | bash", "deny", "remote-code"),
    ("echo '[\"dd if=/dev/zero of=/dev/sda\"]' | jq -r '.[0]' | bash", "deny", "remote-code"),
    ('echo \'{"run": "pytest -q"}\' | jq -r .run | sh', "ask", "remote-code"),
    ("printf 'a=make lint\\nb=make test\\n' | grep '^b=' | cut -d= -f2 | bash", "ask", "remote-code"),
    # image writers and formatters pointed at a disk device
    ("sudo bmaptool copy out/core-image.wic.gz /dev/mmcblk0", "deny", "devices"),
    ("sudo newfs_hfs -v Media /dev/disk5s2", "deny", "devices"),
    ("sudo dc3dd if=build/sd.img of=/dev/sde", "deny", "devices"),
    ("sudo etcher-cli --drive=/dev/sdf build/os.img", "deny", "devices"),
    ("bmaptool copy out/core-image.wic.gz out/core-image.img", None, ""),
    ("sudo dcfldd if=/dev/mmcblk0 of=backups/card.img", None, ""),
    ("sudo bmaptool create -o out/img.bmap /dev/sdc", None, ""),
    # an account made a superuser with its own name or a default as password
    ("psql -d lab -c \"CREATE USER etl WITH SUPERUSER LOGIN PASSWORD 'etl'\"", "deny", "sql"),
    ("psql -c \"ALTER ROLE grafana SUPERUSER PASSWORD 'admin'\"", "deny", "sql"),
    ("psql -c \"CREATE USER etl WITH LOGIN PASSWORD 'etl'\"", None, ""),
    # xargs handing each input line to sh -c as its script
    ("xargs -L1 bash -c < ops/steps.list", "ask", "hidden-code"),
    ("cut -f2 plan.tsv | xargs -d '\\n' -n1 sh -c", "ask", "hidden-code"),
    ("printf 'make fmt\\nmake test\\n' | xargs -L1 sh -c", None, ""),
]


@pytest.mark.parametrize(("command", "expected", "rule"), CASES, ids=[c for c, _, _ in CASES])
def test_round18_classes(kit: Any, project: Path, command: str, expected: str | None, rule: str) -> None:
    kit.expect_decision(HOOK, command, project, expected, rule)
