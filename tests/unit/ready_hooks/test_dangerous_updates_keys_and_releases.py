"""dangerous_commands: automatic security updates switched off, signing identities and secret keys
destroyed, pattern deletes on a production key-value store, recursive Firestore deletes judged by
what the path names, deploys to production asked, and containers removed from a docker-filtered
list passing, disk tools that only show a disk passing. Each class with the ordinary look-alikes
that must pass every security hook (or the decision dangerous_commands alone gives)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, dangerous_commands' own decision)
CASES: dict[str, list[tuple[str, str | None]]] = {
    # Automatic security updates (and virus signatures) off, by service, package or OS setting.
    "security-updates-off": [
        ("sudo systemctl mask apt-daily-upgrade.timer apt-daily.timer", "deny"),
        ("sudo systemctl stop dnf-automatic.timer", "deny"),
        ("sudo apt-get purge -y unattended-upgrades", "deny"),
        ("sudo dnf remove -y dnf-automatic", "deny"),
        ("sudo softwareupdate --schedule off", "deny"),
        ("sc.exe config wuauserv start= disabled", "deny"),
        ("Stop-Service wuauserv", "deny"),
        ("sudo systemctl stop clamav-freshclam", "deny"),
        ("systemctl status unattended-upgrades", None),
        ("sudo unattended-upgrade --dry-run -d", None),
        ("systemctl list-timers 'apt-daily*'", None),
        ("sudo systemctl restart unattended-upgrades", None),
        ("sudo apt-get install -y unattended-upgrades", None),
        ("sudo apt-get remove --purge -y nodejs", None),
        ("sc.exe query wuauserv", None),
        # turning protection on is not persistence worth a question
        ("sudo systemctl enable --now ufw fail2ban", None),
        ("sudo systemctl enable --now apt-daily-upgrade.timer", None),
        ("sudo systemctl enable --now myapp", "ask"),
    ],
    # Signing identities and secret keys destroyed.
    "signing-keys": [
        ("fastlane match nuke development", "deny"),
        ('security delete-identity -c "iPhone Distribution: Example Ltd"', "deny"),
        ("security delete-certificate -Z 9F3A0C5E1B2D", "deny"),
        ("security delete-keychain login.keychain", "deny"),
        ("gpg --batch --yes --delete-secret-keys 0xDEADBEEF", "deny"),
        ("keytool -delete -alias upload -keystore android/app/release.jks", "ask"),
        ("security find-identity -v -p codesigning", None),
        ("bundle exec fastlane match appstore --readonly", None),
        ("security create-keychain -p ci build.keychain && security delete-keychain build.keychain", None),
        ("gpg --list-secret-keys --keyid-format LONG", None),
        ("keytool -list -v -keystore android/app/release.jks", None),
    ],
    # Keys deleted by pattern: on a production store denied, on a development one routine.
    "kv-pattern-delete": [
        (
            "redis-cli -u redis://redis-live.example:6379 --scan --pattern 'rate:*' | "
            "xargs -n 100 redis-cli -u redis://redis-live.example:6379 UNLINK",
            "deny",
        ),
        ("redis-cli -h prod-redis KEYS 'user:*' | xargs redis-cli -h prod-redis del", "deny"),
        ("redis-cli --scan --pattern 'cache:*' | xargs redis-cli del", None),
        ("redis-cli -h localhost --scan --pattern 'test:*' | xargs -r redis-cli -h localhost unlink", None),
        ("redis-cli -h cache.prod.internal --scan --pattern 'sess:*' | wc -l", None),
    ],
    # firestore:delete -r of a document (even path) is that document's subtree; of a collection
    # (odd path) or --all-collections, every document.
    "firestore-delete": [
        ("firebase firestore:delete --project demo-app -r orders/o-123", None),
        ("firebase firestore:delete carts/c-9/items -r -P shop-dev", "deny"),
        ("firebase firestore:delete orders -r --project shop-dev", "deny"),
        ("firebase firestore:delete orders/o-1 -r --project shop-prod", "ask"),
    ],
    # A release users get at once: production targets asked; previews, staging, drafts pass.
    "production-deploy": [
        ("vercel deploy --prod --yes", "ask"),
        ("netlify deploy --prod --dir=build", "ask"),
        ("fly deploy -a shop-api-prod", "ask"),
        ("wrangler deploy --env production", "ask"),
        ("npx serverless deploy --stage prod", "ask"),
        ("gcloud run deploy api --image gcr.io/x/api --project shop-prod", "ask"),
        ("firebase deploy --only functions --project shop-prod", "ask"),
        ("eas update --branch production --message 'fix crash'", "ask"),
        ("vercel deploy", None),
        ("netlify deploy --dir=build", None),
        ("fly deploy -a shop-api-staging", None),
        ("wrangler deploy --env production --dry-run", None),
        ("firebase hosting:channel:deploy pr-42 --project shop-prod", None),
        ("npx serverless deploy --stage dev", None),
        ("gcloud run deploy api --image gcr.io/x/api --project shop-products-dev", None),
    ],
    # Containers and images removed from a list docker itself filtered: the project's, not all.
    "filtered-container-removal": [
        ('docker rm -f $(docker ps -aq --filter "label=com.acme.test=true")', None),
        ("docker rmi $(docker images -q --filter dangling=true)", None),
        ('docker rmi -f $(docker images -q -f "reference=acme/*:dev")', None),
        ("docker rm -f $(docker ps -aq)", "ask"),
        ("docker rm $(docker ps -aq | grep -v keep)", "ask"),
        ("docker rm -f $(docker ps -aq) $(docker ps -aq --filter name=x)", "ask"),
    ],
    # A published version taken back from the public registry: asked like publishing.
    "unpublish": [
        ("pnpm unpublish @acme/ui@2.1.0 --force", "ask"),
        ("gem yank acme-client -v 0.9.1", "ask"),
        ("npm unpublish @acme/ui@2.1.0 --dry-run", None),
        ("npm uninstall @acme/ui", None),
        ("gem uninstall acme-client", None),
    ],
    # Disk tools asked only to show a disk pass; the same tools changing it are denied.
    "disk-inspection": [
        ("sudo parted -s /dev/sdc unit GB print free", None),
        ("sudo sfdisk --dump /dev/nvme0n1 > build/nvme.layout", None),
        ("sudo wipefs /dev/sdc", None),
        ("sudo wipefs --no-act --all /dev/sdc", None),
        ("sudo parted -s /dev/sdc mkpart primary ext4 1MiB 100%", "deny"),
        ("sudo sfdisk --dump /dev/sda | sudo sfdisk /dev/sdc", "deny"),
        ("sudo wipefs --all /dev/sdc", "deny"),
        ("sudo wipefs -af /dev/sdc", "deny"),
    ],
}


@pytest.mark.parametrize(
    ("command", "own"),
    [case for cases in CASES.values() for case in cases],
    ids=[f"{cls}-{i}" for cls, cases in CASES.items() for i in range(len(cases))],
)
def test_cases(kit: Any, project: Path, command: str, own: str | None) -> None:
    """Each command gets the decision its class calls for from dangerous_commands."""
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["dangerous_commands"] == own, (command, verdict.reasons)
    if own is not None:
        assert any("rule " in r and "[dangerous_commands]" in r for r in verdict.reasons), verdict.reasons


def test_messages_name_the_rule_and_the_way_out(kit: Any, project: Path) -> None:
    hook = kit.load("security/dangerous_commands.py")
    keys = kit.reason(hook.run(kit.bash("fastlane match nuke distribution", project)))
    assert "rule signing-keys" in keys and "--readonly" in keys
    updates = kit.reason(hook.run(kit.bash("sudo systemctl disable --now unattended-upgrades", project)))
    assert "rule security-off" in updates and "Ask the user" in updates
    deploy = kit.reason(hook.run(kit.bash("vercel --prod", project)))
    assert "production" in deploy and "staging or a preview" in deploy
