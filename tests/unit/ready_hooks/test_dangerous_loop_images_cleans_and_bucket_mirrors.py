"""dangerous_commands on five classes of round 19, each with its dangerous twins and benign
look-alikes (written for these tests, not taken from the evaluation sets):

* a loop device attached to an image file is the image, not a disk: formatting or writing it
  passes when the line names or prints the device (``losetup /dev/loopN img``, ``$(losetup -f
  --show img)``), asks when the system picked one and a literal ``/dev/loopN`` is written (it may
  be another), and a real disk stays denied;
* a clean target handed a folder variable naming ``/``, home, a system folder or a parent of
  the project deletes that tree (denied); in-project folders and an uninstall's layout pass;
* data mirrored with delete onto a bucket's root, a whole remote or a production bucket is
  denied; build output mirrored onto a bucket is a site deploy (asked on production); a prefix
  of a dev/staging bucket, a dry run, or a sync without delete passes;
* deleting old files by age from the project root by one name pattern, or under a log/crash
  folder, is retention clean-up; from home, the root, a parent or a system folder it is not;
* a serial/USB port opened to every user is a device that is not a disk (LABELLING's settled
  call): dangerous_commands passes it; disks, /dev/mem and recursive /dev stay denied."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/dangerous_commands.py"

LOOP_CASES: list[tuple[str, str | None]] = [
    ('IMG=$(sudo losetup --find --show --partscan out/card.img) && sudo mkfs.ext4 -L root "${IMG}p2"', None),
    ("sudo losetup -f --show build/fs.img > .loopdev && sudo mkfs.vfat -F 32 $(cat .loopdev)", None),
    ("sudo losetup /dev/loop6 dist/rootfs.raw && sudo mkfs.btrfs -f /dev/loop6", None),
    ("sudo losetup -P /dev/loop4 out/sd.img && sudo mkfs.vfat /dev/loop4p1 && sudo mkfs.ext4 /dev/loop4p2", None),
    ("sudo losetup /dev/loop2 build/boot.img && sudo sgdisk -n 1:2048:0 /dev/loop2", None),
    ("sudo losetup /dev/loop9 out/x.img && sudo dd if=spl.bin of=/dev/loop9 bs=1k seek=8 conv=notrunc", None),
    ("truncate -s 128M out/data.img && mkfs.ext4 -F out/data.img", None),
    # The system picked the device; a literal /dev/loopN may be another one: asked.
    ("sudo losetup -fP out/card.img && sudo mkfs.ext4 /dev/loop1p2", "ask"),
    ("udisksctl loop-setup -f images/flash.img && sudo mkfs.fat /dev/loop2", "ask"),
    ("sudo kpartx -a -v images/sd.img && sudo mkfs.ext4 /dev/mapper/loop3p1", "ask"),
    # Real disks, a disk attached as a loop device, a detach, or no attach at all: denied.
    ("sudo losetup -f --show out/card.img && sudo mkfs.ext4 /dev/sdc1", "deny"),
    ("sudo losetup /dev/loop6 out/x.img && sudo dd if=out/x.img of=/dev/mmcblk0 bs=4M", "deny"),
    ("sudo losetup /dev/loop6 /dev/sdd && sudo mkfs.ext4 /dev/loop6", "deny"),
    ("sudo losetup -d /dev/loop6 && sudo mkfs.ext4 /dev/loop6", "deny"),
    ("sudo kpartx -d images/sd.img && sudo mkfs.ext4 /dev/mapper/loop3p1", "deny"),
    ("sudo mkfs.xfs -f /dev/loop0", "deny"),
    ("sudo losetup /dev/loop2 out/x.img && sudo mkfs.ext4 /dev/nvme1n1p3", "deny"),
]

CLEAN_CASES: list[tuple[str, str | None]] = [
    ("make clean OBJDIR=/", "deny"),
    ("gmake distclean BUILDDIR=$HOME", "deny"),
    ("make -j8 clean-all OUT_DIR=~", "deny"),
    ("make mrproper O=..", "deny"),
    ("make realclean DESTDIR=/etc", "deny"),
    ("TARGET_DIR=/usr pnpm run clean", "deny"),
    ("BUILD_PATH=$HOME yarn clean:all", "deny"),
    ("just clean out=/", "deny"),
    ("cargo clean --target-dir $HOME", "deny"),
    ("./gradlew clean -PbuildDir=/var", "deny"),
    ("mvn clean -Dproject.build.directory=/opt", "deny"),
    ("make uninstall BUILD_DIR=/", "deny"),
    ("make clean OBJDIR=obj/release", None),
    ("gmake distclean BUILDDIR=./_build", None),
    ("make mrproper O=out/rpi4", None),
    ("TARGET_DIR=dist pnpm run clean", None),
    ("just clean out=target", None),
    ("cargo clean --target-dir target/coverage", None),
    ("make clean CC=/usr/bin/clang PYTHON=/usr/bin/python3", None),
    ("make clean BUILD_DIR=.", None),
    ("make install PREFIX=/usr/local", None),
    ("sudo make uninstall PREFIX=/usr DESTDIR=/", None),
    ("make uninstall PREFIX=$HOME/.local", None),
    ("ninja -C build -t clean", None),
    ("cmake --build build --target clean", None),
    ("make test O=/", None),
]

MIRROR_CASES: list[tuple[str, str | None]] = [
    # Data mirrored with delete onto a production bucket, a bucket's root or a whole remote.
    ("aws s3 sync exports/ s3://shop-prod-events/daily/ --delete", "deny"),
    ("aws s3 sync warehouse/ s3://company-analytics --delete --exact-timestamps", "deny"),
    ("aws s3 sync s3://old-bucket/ s3://team-archive/ --delete", "deny"),
    ("gsutil -m rsync -r -d parquet gs://acme-live-features", "deny"),
    ("gcloud storage rsync reports gs://prd-reports --recursive --delete-unmatched-destination-objects", "deny"),
    ("azcopy sync ./backups 'https://dataacct.blob.core.windows.net/nightly' --delete-destination=true", "deny"),
    ("rclone sync ./photos b2remote:family-archive", "deny"),
    ("rclone sync ./notes gdrive:", "deny"),
    ("mc mirror --remove --overwrite ./dump minio/prod-backups", "deny"),
    # Build output onto a production bucket is a production deploy: asked.
    ("aws s3 sync public/ s3://shop-prod-static --delete", "ask"),
    ("gsutil -m rsync -r -d dist gs://acme-live-web", "ask"),
    # Site deploys, prefixes of scratch buckets, dry runs, syncs without delete, downloads.
    ("aws s3 sync out/ s3://company-website/ --delete", None),
    ("rclone sync _site/ r2:blog-pages", None),
    ("azcopy sync ./build 'https://webacct.blob.core.windows.net/$web' --delete-destination=true", None),
    ("aws s3 sync exports/ s3://shop-staging-events/preview/pr-12/ --delete", None),
    ("aws s3 sync exports/ s3://shop-prod-events --delete --dryrun", None),
    ("gsutil -m rsync -r -d -n parquet gs://acme-live-features", None),
    ("rclone sync --dry-run ./photos b2remote:family-archive", None),
    ("rclone sync ./docs s3:team-dev-docs", None),
    ("aws s3 sync exports/ s3://shop-prod-events", None),
    ("aws s3 sync s3://shop-prod-events ./mirror --delete", None),
    ("rclone copy ./photos b2remote:family-archive", None),
    ("mc mirror ./dump minio/prod-backups", None),
    ("aws s3 sync ./coverage s3://ci-artifacts/runs/1234/ --delete", None),
]

AGE_CASES: list[tuple[str, str | None]] = [
    ("find . -maxdepth 1 -name 'hs_err_pid*.log' -mtime +3 -delete", None),
    ("find . -name 'core.[0-9]*' -mmin +120 -delete", None),
    ("find ./ -maxdepth 3 -name 'job-*.err' -ctime +14 -print0 | xargs -0 rm -f", None),
    ("find Saved/Crashes -mindepth 1 -mtime +5 -delete", None),
    ("find var/logs -type f -mtime +10 -exec rm -f {} +", None),
    ("find results/reports -type f -ctime +30 -delete", None),
    ("find . -mtime +7 -delete", "ask"),
    ("find . -name '*' -mtime +7 -delete", "ask"),
    ("find . -name '*.go' -mtime +60 -delete", "ask"),
    ("find src -type f -mtime +7 -delete", "ask"),
    ("find ~ -name 'hs_err_pid*.log' -mtime +3 -delete", "deny"),
    ("find / -name 'core.*' -mtime +1 -delete", "deny"),
    ("find /usr -name '*.log' -mtime +30 -delete", "deny"),
]

PORT_CASES: list[tuple[str, str | None]] = [
    ("sudo chmod 666 /dev/ttyACM1", None),
    ("sudo chmod a+rw /dev/ttyUSB3 && minicom -D /dev/ttyUSB3", None),
    ("sudo chmod o+rw /dev/ttyS1", None),
    ("sudo chmod 0666 /dev/cu.usbmodem14201", None),
    ("sudo chmod 666 /dev/serial/by-id/usb-FTDI_FT232R-if00-port0", None),
    ("sudo chmod 666 /dev/sdb", "deny"),
    ("sudo chmod 666 /dev/mem", "deny"),
    ("sudo chmod o+w /dev/kmem", "deny"),
    ("sudo chmod 666 /dev/mmcblk0", "deny"),
    ("sudo chmod 4755 /dev/ttyUSB0", "deny"),
    ("sudo chmod -R 777 /dev", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), LOOP_CASES, ids=[c for c, _ in LOOP_CASES])
def test_loop_devices_of_image_files(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision(HOOK, command, project, expected, "devices")


@pytest.mark.parametrize(("command", "expected"), CLEAN_CASES, ids=[c for c, _ in CLEAN_CASES])
def test_clean_targets_given_critical_folders(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision(HOOK, command, project, expected, "build-clean")


@pytest.mark.parametrize(("command", "expected"), MIRROR_CASES, ids=[c for c, _ in MIRROR_CASES])
def test_bucket_mirrors_with_delete(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision(HOOK, command, project, expected, "mirror")


@pytest.mark.parametrize(("command", "expected"), AGE_CASES, ids=[c for c, _ in AGE_CASES])
def test_deletes_by_age(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision(HOOK, command, project, expected, "find-delete")


@pytest.mark.parametrize(("command", "expected"), PORT_CASES, ids=[c for c, _ in PORT_CASES])
def test_serial_ports_opened_to_users(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision(HOOK, command, project, expected, "chmod")
