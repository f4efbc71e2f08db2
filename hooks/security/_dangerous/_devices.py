"""Rule family: devices and the machine. ``dd``/``mkfs``/disk tools and redirects onto block
devices, shutdown/reboot and killing every process, fork bombs."""

from __future__ import annotations

import re

import _shell
from _common import Finding
from _shell import Cmd, Ctx, lazy_compile

BLOCK_DEVICE = lazy_compile(
    r"^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|"
    r"mapper/|loop\d|sr\d|fd\d|mem$|kmem$|port$)"
)
DISK_TOOLS = frozenset(
    {
        "mkswap",
        "mke2fs",
        "newfs",
        "blkdiscard",
        "wipefs",
        "fdisk",
        "sfdisk",
        "cfdisk",
        "parted",
        "gdisk",
        "sgdisk",
        "diskutil",
        "format",
    }
)


# Fork bombs in interpreter code (shell ones are found in the parsed functions): a fork inside a
# loop that never ends, however the language spells it — a statement modifier (perl/ruby
# ``fork while 1``, ``fork until 0``, ``1 while fork``), or an endless loop header (``while True:``,
# ``while (1) {``, ``for (;;)``, ``loop {``, ``loop do``) whose body forks before any ``break``.
_FOREVER = r"(?:1|true|True|!0|fork(?:\(\))?)"
FORK_BOMB = lazy_compile(
    r"\bfork\b(?:\s*\(\s*\))?\s+while\s*\(?\s*" + _FOREVER + r"\b"
    r"|\bfork\b(?:\s*\(\s*\))?\s+until\s*\(?\s*(?:0|false|nil)\b"
    r"|\b\d\s+while\s+(?:\w+(?:\.|::))?fork\b"
    r"|(?:\bwhile\s*\(?\s*" + _FOREVER + r"\s*\)?\s*(?::|\{|\bdo\b)?|\bfor\s*\(\s*;\s*;\s*\)|\bloop\s*(?:\{|\bdo\b))"
    r"(?:(?!\bbreak\b|\bexit\b|\breturn\b)[^;]|;(?!\s*(?:break|exit|return)\b)){0,80}?\bfork\b"
)


# parted commands that change the disk (anything else it is given only shows it).
_PARTED_WRITES = frozenset({
    "mklabel", "mktable", "mkpart", "mkpartfs", "rm", "resizepart", "resize", "rescue", "name", "set",
    "toggle", "mkfs", "cp", "move", "disk_set", "disk_toggle", "type",
})  # fmt: skip


def _reads_only(name: str, lits: list[str]) -> bool:
    """Disk tools asked only to show a disk: ``parted /dev/sdb unit MB print free``, ``sfdisk -d
    /dev/sda`` (dump the table), ``wipefs /dev/sdb`` without -a/-o (lists signatures) or with
    --no-act, ``sgdisk -v`` (verify)."""
    if name == "parted":
        return any(a in ("print", "p") for a in lits) and not _PARTED_WRITES & set(lits)
    if name == "sfdisk":
        return any(a in ("-d", "--dump", "-J", "--json", "-V", "--verify", "-s", "--show-size") for a in lits)
    if name == "wipefs":
        erase = any(
            a in ("-a", "--all", "-o") or a.startswith("--offset") or re.fullmatch(r"-\w*a\w*", a) for a in lits
        )
        return not erase or any(a in ("-n", "--no-act") for a in lits)
    if name == "sgdisk":
        return any(a in ("-v", "--verify") for a in lits) and not any(
            a.startswith(("-Z", "--zap", "-o", "-n", "-d")) for a in lits
        )
    return False


def _fork_bomb(ctx: Ctx) -> str | None:
    """A function defined in the command that pipes into itself (``:(){ :|:& };:``)."""
    for name, definition in ctx.functions.items():
        for command in definition.body.simple_commands() if definition.body else []:
            if command.words and command.words[0].literal() == name and _in_pipe(definition, command):
                return name
    return None


def _in_pipe(definition: _shell.Command, command: _shell.Command) -> bool:
    """Whether ``command`` is a stage of a pipeline of two or more inside ``definition``."""
    stack = list(definition.scripts())
    while stack:
        script = stack.pop()
        for pipe in script.pipelines:
            if len(pipe.commands) > 1 and any(c is command for c in pipe.commands):
                return True
            for inner in pipe.commands:
                stack.extend(inner.scripts())
    return False


def _device_target(value: str) -> bool:
    return bool(BLOCK_DEVICE.match(value))


# Programs that write a whole image (or a new file system) onto the device they are given:
# bmaptool copy, Raspberry Pi Imager, balenaEtcher, dcfldd/dc3dd of=, macOS newfs_apfs/newfs_hfs.
_IMAGE_WRITERS = frozenset({
    "bmaptool", "rpi-imager", "etcher", "etcher-cli", "balena-etcher", "balena", "dcfldd", "dc3dd", "caligula",
    "usbimager", "newfs_apfs", "newfs_hfs", "newfs_msdos", "newfs_exfat", "newfs_udf", "mformat",
})  # fmt: skip
_IMAGE_READS = frozenset({"create", "--help", "-h", "--version", "list", "devices", "info"})


def _writes_image(cmd: Cmd) -> bool:
    """``bmaptool copy img.wic.bz2 /dev/sdb``, ``newfs_apfs -v X /dev/disk3s1``, ``dcfldd
    of=/dev/mmcblk0``: an image writer or formatter pointed at a block device (``bmaptool create``
    and listings only read)."""
    if cmd.name not in _IMAGE_WRITERS:
        return False
    lits = [w.literal() or "" for w in cmd.args]
    if any(a in _IMAGE_READS for a in lits[:2]) or any(a.startswith("if=") and _device_target(a[3:]) for a in lits):
        return False
    return any(_device_target(a.partition("=")[2] if a.startswith(("of=", "--drive=")) else a) for a in lits)


# mkfs options that take a value (so the value is not taken for the target).
_MKFS_VALUES = frozenset({
    "-t", "--type", "-L", "-l", "-b", "-c", "-C", "-d", "-E", "-f", "-g", "-G", "-i", "-I", "-j",
    "-J", "-m", "-M", "-n", "-N", "-o", "-O", "-r", "-s", "-T", "-U", "-e", "-z", "-p", "-S",
    "--label", "--uuid", "--pagesize",
})  # fmt: skip


def _format_target(cmd: Cmd, attached: Attached) -> str | None:
    """What a mkfs/mkswap/blkdiscard call would erase when that is a device (``the device
    /dev/sda1``) or cannot be known; None when every target is a regular (image) file or the
    loop device the line attached to one.

    The same letter takes a value in one mkfs and is a bare flag in another (``mkfs.xfs -f``
    forces, ``mke2fs -f`` sizes fragments), so every operand word is judged, option values
    included: a label or a size never names /dev/, and the device always appears."""
    _flags, positionals, _values = _shell.split_options(cmd.args, _MKFS_VALUES)
    operands = [w for w in cmd.args if not (w.literal() or "x").startswith("-")]
    if not positionals and not operands:
        return "a device"
    for word in operands:
        values = cmd.values(word)
        if values is None and (attached.any or _attached_image(word, cmd)):
            continue  # "${LOOP}p2" where LOOP=$(losetup --show -f disk.img): a partition of an image file
        if values is None:
            return f"`{word.text}` (a path that could be a device)"
        for value in values:
            path = _shell.normalize(value, cmd.ctx.cwd) or value
            if attached.knows(path) is not None:
                continue  # a loop device after an image was attached: judged by rule_devices
            if path.startswith("/dev/"):
                return f"the device {path}"
    return None


def _attached_image(word: _shell.Word, cmd: Cmd) -> bool:
    """Whether the word names a loop device that ``losetup --show`` attached to an image file
    earlier in the command (``LOOP=$(sudo losetup --show -fP build/sd.img)``; ``"${LOOP}p2"``)."""
    head = word.parts[0] if word.parts else None
    return isinstance(head, _shell.Var) and cmd.ctx.sources.get(head.name, set()) == {"losetup"}


# A loop device, a partition of one, or kpartx's mapping of such a partition.
_LOOP_DEVICE = lazy_compile(r"^/dev/(?:mapper/)?(loop\d+)(?:p\d+)?$")


class Attached:
    """Image files the line attached as loop devices before a command: whether any was, and
    the loop devices named for them (``losetup /dev/loop3 build/x.img``)."""

    def __init__(self, earlier: list[Cmd]) -> None:
        self.any = False
        self.named: set[str] = set()
        for cmd in earlier:
            image, device = _attaches_image(cmd)
            self.any = self.any or image
            if image and device:
                self.named.add(device)

    def knows(self, path: str) -> bool | None:
        """For a loop device path after an image was attached: True when it is (a partition of)
        the device named for the image, False when the line let the system pick the device (so
        this one may be another); None for any other path, or when no image was attached."""
        m = _LOOP_DEVICE.match(path)
        if not self.any or m is None:
            return None
        return m.group(1) in self.named


def _attaches_image(cmd: Cmd) -> tuple[bool, str]:
    """``losetup -fP --show out/disk.img``, ``losetup /dev/loop3 build/x.img``, ``kpartx -av
    sd.img``, ``udisksctl loop-setup -f fw.img``: whether a regular file is attached as a loop
    device (a device handed to losetup or kpartx is a disk, not an image), and the loop device
    named for it (``loop3``; "" when the system picks one)."""
    if cmd.name not in ("losetup", "kpartx", "udisksctl"):
        return False, ""
    lits = [w.literal() or "" for w in cmd.args]
    device = ""
    if cmd.name == "udisksctl":
        at = next((i for i, a in enumerate(lits) if a in ("-f", "--file")), None)
        if lits[:1] != ["loop-setup"] or at is None or at + 1 >= len(cmd.args):
            return False, ""
        operands = [cmd.args[at + 1]]
    else:
        short = "".join(a[1:] for a in lits if a.startswith("-") and not a.startswith("--"))
        if cmd.name == "kpartx" and "a" not in short:
            return False, ""  # kpartx -l lists, -d detaches
        if cmd.name == "losetup" and ("d" in short or "D" in short or "--detach" in lits):
            return False, ""
        operands = [w for w in cmd.args if not (w.literal() or "x").startswith("-")]
        finds = "f" in short or "--find" in lits
        if cmd.name == "losetup" and not finds:
            m = _LOOP_DEVICE.match(operands[0].literal() or "") if operands else None
            device = m.group(1) if m else ""
            operands = operands[1:]  # losetup /dev/loopN FILE: the file follows the device
    paths = [v for w in operands for v in (cmd.values(w) or ["/dev/?"])]
    image = bool(paths) and all(not (_shell.normalize(v, cmd.ctx.cwd) or v).startswith("/dev/") for v in paths)
    return image, device


def _scratch_only(cmd: Cmd) -> bool:
    """Every file operand lies in a scratch or build-output folder of the project (``tmp/``,
    ``build/`` …): overwriting it loses nothing a build or test run would not recreate."""
    _flags, positionals, _values = _shell.split_options(cmd.args, frozenset({"-n", "-s", "--iterations", "--size"}))
    paths = [_shell.normalize(v, cmd.ctx.cwd) for w in positionals for v in (cmd.values(w) or [""])]
    return bool(paths) and all(p is not None and _shell.build_output(p, cmd.ctx.project) for p in paths)


# Storage layers above the disk whose subcommand destroys what they hold: ZFS pools and
# datasets, LVM volumes and groups, LUKS headers, RAID superblocks, APFS containers and volumes.
_STORAGE_DESTROY: dict[str, frozenset[str]] = {
    "zpool": frozenset({"destroy", "labelclear"}),
    "zfs": frozenset({"destroy"}),
    "lvremove": frozenset({""}),
    "vgremove": frozenset({""}),
    "pvremove": frozenset({""}),
    "cryptsetup": frozenset({"luksformat", "erase", "lukserase"}),
    "mdadm": frozenset({"--zero-superblock"}),
}


def _storage_destroy(cmd: Cmd) -> bool:
    """``zpool destroy tank``, ``lvremove -f vg0/data``, ``cryptsetup luksFormat /dev/sdb1``,
    ``diskutil apfs deleteContainer disk4``: a storage layer and all its data, gone."""
    lits = [(w.literal() or "").lower() for w in cmd.args]
    if cmd.name == "diskutil" and lits[:1] == ["apfs"]:
        return bool(re.match(r"delete(?:container|volume)|erase", lits[1] if len(lits) > 1 else ""))
    subs = _STORAGE_DESTROY.get(cmd.name)
    if subs is None:
        return False
    if subs == frozenset({""}):
        return not any(a in ("-h", "--help", "--version") for a in lits) and any(not a.startswith("-") for a in lits)
    if cmd.name == "zfs" and any(a.startswith("-") and "n" in a.lstrip("-") and len(a) < 6 for a in lits):
        return False  # zfs destroy -nv: a dry run
    if cmd.name == "zfs" and not any(a.startswith("-") and ("r" in a or "R" in a) for a in lits):
        # One snapshot (tank/data@2024-01-01) pruned by retention; the dataset itself stays.
        return not all("@" in a for a in lits[1:] if not a.startswith("-"))
    return any(a in subs for a in lits)


def rule_devices(cmd: Cmd, earlier: list[Cmd], found: list[Finding]) -> None:
    """``dd``/``mkfs``/disk tools and redirects that overwrite a block device; storage pools,
    volumes and encrypted containers destroyed. After the line attached an image file as a loop
    device (``losetup -f --show build/x.img``, ``kpartx -a``, ``udisksctl loop-setup -f``),
    formatting or writing that loop device (or a substitution naming it) writes the image file,
    not a disk."""
    name = cmd.name
    attached = Attached(earlier)
    if name == "dd" or name.startswith("mkfs") or name in DISK_TOOLS or name in ("mke2fs", "mkswap", "blkdiscard"):
        picked = [v for w in cmd.args for v in cmd.values(w) or [] if attached.knows(v.removeprefix("of=")) is False]
        if picked:
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` writes {picked[0].removeprefix('of=')}, but the line let the system "
                    "pick the loop device for the image, so this may be another one (a disk attached "
                    "earlier). Use the device `losetup --show` printed (LOOP=$(losetup -f --show x.img)); confirm.",
                )
            )
    name = cmd.name
    if _storage_destroy(cmd):
        found.append(
            (
                "deny",
                f"`{cmd.display}` destroys a storage pool, volume or encrypted container with all the data on "
                "it. Ask the user to do storage administration themselves.",
            )
        )
        return
    if name == "dd":
        for word in cmd.args:
            for value in cmd.values(word) or []:
                if value.startswith("of=") and _device_target(value[3:]) and attached.knows(value[3:]) is None:
                    found.append(
                        (
                            "deny",
                            f"`{cmd.display}` writes raw data onto the device "
                            f"{value[3:]}, destroying its filesystem. Write to an image "
                            "file instead.",
                        )
                    )
    if _writes_image(cmd):
        found.append(
            (
                "deny",
                f"`{cmd.display}` writes an image or a new file system onto a disk device, erasing "
                "what it holds. Write to an image file instead, or ask the user to flash the card.",
            )
        )
        return
    if name.startswith("mkfs") or name in ("mke2fs", "mkswap", "newfs", "blkdiscard"):
        target = _format_target(cmd, attached)
        if target is not None:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` formats/erases {target}. Format an image file inside the "
                    "project instead (e.g. `mkfs.ext4 disk.img`), or ask the user to do disk "
                    "administration themselves.",
                )
            )
    elif name == "hdparm" and any(
        (w.literal() or "").startswith(("--security-erase", "--trim-sector", "--write-sector", "--make-bad-sector"))
        for w in cmd.args
    ):
        found.append(
            (
                "deny",
                f"`{cmd.display}` erases or overwrites a disk's sectors. Ask the user to do disk "
                "administration themselves.",
            )
        )
    elif name in DISK_TOOLS:
        lits = [w.literal() or "" for w in cmd.args]
        listing = any(a in ("-l", "--list", "-p", "--print", "list", "info") for a in lits) or _reads_only(name, lits)
        # diskutil names disks without /dev/ (diskutil eraseDisk JHFS+ Blank disk2).
        erases = (
            name == "diskutil" and bool(lits) and re.match(r"(?i)(erase|zero|random|secureErase|partition)", lits[0])
        )
        disks = [a for a in lits if _device_target(a) and attached.knows(a) is None]
        if erases or (not listing and disks):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` modifies a disk's partitions or "
                    "signatures. Ask the user to do disk administration themselves.",
                )
            )
    elif name in ("shred", "cp", "cat", "tee", "pv"):
        devices = [w.text for w in cmd.args if _device_target(w.literal() or "")]
        if devices and name in ("shred", "cp", "tee"):
            found.append(
                ("deny", f"`{cmd.display}` overwrites the device {devices[0]}. Write to an image file instead.")
            )
        elif name == "shred" and not _scratch_only(cmd):
            found.append(("ask", f"`{cmd.display}` irrecoverably overwrites files; confirm."))
    for r in cmd.redirects:
        if r.op in (">", ">>", ">|", "&>", "&>>", "<>", ">&") and r.target is not None:
            for value in cmd.values(r.target) or []:
                if _device_target(value):
                    found.append(
                        (
                            "deny",
                            f"`{cmd.display}` redirects output onto the device {value}, destroying its contents. "
                            "Write to a regular file instead.",
                        )
                    )


# Kernel switches that act on the machine at once: a write to sysrq-trigger reboots (b), powers
# off (o) or crashes (c) it without syncing the disks.
_KERNEL_TRIGGERS = ("/proc/sysrq-trigger",)


def _written_paths(cmd: Cmd) -> list[str]:
    """Files a command writes through redirections, ``tee`` and ``dd of=``."""
    words = [r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>", "&>>", "<>") and r.target is not None]
    if cmd.name == "tee":
        words += [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    paths = [v for w in words for v in (cmd.values(w) or [])]
    if cmd.name == "dd":
        paths += [v[3:] for w in cmd.args for v in (cmd.values(w) or []) if v.startswith("of=")]
    return paths


def rule_power(cmd: Cmd, found: list[Finding]) -> None:
    """Shutdown, reboot and killing every process (``kill -9 -1``)."""
    lits = [w.literal() or "" for w in cmd.args]
    name = cmd.name
    if any(p in _KERNEL_TRIGGERS for p in _written_paths(cmd)):
        found.append(
            (
                "deny",
                f"`{cmd.display}` writes to the kernel's sysrq trigger, which reboots, halts or crashes the "
                "machine at once without syncing the disks. Ask the user to do it.",
            )
        )
    if (
        name in ("shutdown", "reboot", "halt", "poweroff")
        or (name in ("init", "telinit") and lits[:1] in (["0"], ["6"]))
        or (name == "systemctl" and any(a in ("poweroff", "reboot", "halt", "kexec") for a in lits))
        or (name == "launchctl" and lits[:1] == ["reboot"])  # macOS: launchctl reboot [system|userspace]
    ):
        found.append(("deny", f"`{cmd.display}` shuts down or reboots the machine. Ask the user to do it."))
    # kill -9 -1, pkill -u "$USER" (no pattern), killall5: every process of the user or the machine.
    _flags, pattern, values = _shell.split_options(
        cmd.args, frozenset({"-u", "-U", "-g", "-G", "-s", "--signal", "-t", "-P", "--euid", "--uid"})
    )
    everything = (
        (name == "kill" and len(lits) >= 2 and lits[-1] == "-1")
        or (name == "kill" and "1" in pattern_lits(pattern) and not cmd.ctx.remote)  # init: the machine goes down
        or (name == "pkill" and not pattern and (values.get("u") or values.get("U")))
        or (name == "killall" and not pattern and values.get("u"))
        or name == "killall5"
    )
    if everything:
        found.append(
            (
                "deny",
                f"`{cmd.display}` signals every process you own (or every process). Kill specific process ids instead.",
            )
        )
    elif name in ("killall", "pkill") and "sudo" in cmd.wrappers:
        # As root the name matches every user's processes on the machine, not only the task's.
        found.append(
            ("ask", f"`{cmd.display}` kills every user's matching processes (as root); confirm, or kill by process id.")
        )
    elif name == "scancel" and not any((w.literal() or "").isdigit() for w in pattern):
        found.append(
            ("ask", f"`{cmd.display}` cancels every job its filters match, not one job id; confirm, or name the jobs.")
        )


def pattern_lits(words: list[_shell.Word]) -> list[str]:
    """The literal values of ``words`` (process ids, names)."""
    return [w.literal() or "" for w in words]


def rule_fork_bomb(ctx: Ctx, cmds: list[Cmd], found: list[Finding]) -> None:
    """A shell function that starts copies of itself, or inline code that forks without end."""
    if ctx.spawn_loops:
        found.append(
            (
                "deny",
                f"the command's `{ctx.spawn_loops[0]}` loop never ends and starts a background job on every "
                "turn without waiting, so processes pile up until the machine stalls. Start a fixed "
                "number of jobs (for i in 1 2 3; do job & done; wait) or wait inside the loop.",
            )
        )
        return
    bomb = _fork_bomb(ctx)
    if bomb is not None or any(FORK_BOMB.search(c) for cmd in cmds for c in _shell.code_of(cmd)):
        found.append(
            (
                "deny",
                f"the command defines a fork bomb (function `{bomb or 'fork'}` starts copies of itself "
                "without end), which freezes the machine. Do not run it; there is no safe form.",
            )
        )
