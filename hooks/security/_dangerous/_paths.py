"""Shared path judgements: what is catastrophic to delete or move (:func:`critical`: the root,
home, the project root, system folders), services' data folders, build output and match-all globs."""

from __future__ import annotations

import os

import _shell
from _shell import Ctx, lazy_compile

from ._windows import windows_critical

SYSTEM_TOP = frozenset({
    "bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "opt", "proc", "root",
    "run", "sbin", "srv", "sys", "usr", "var", "snap", "nix", "System", "Library",
    "Applications", "private", "cores", "Windows", "ProgramData", "Program Files",
})  # fmt: skip
HOME_PARENTS = frozenset({"home", "Users"})
_WSL_DRIVE = lazy_compile(r"^/mnt/[a-z](?:/|$)|^/[a-z]/")


def critical(path: str, ctx: Ctx) -> str | None:
    """Why deleting/moving the absolute ``path`` is catastrophic, or None."""
    home = os.path.normpath(ctx.home)
    project = os.path.normpath(ctx.project)
    if path == "/":
        return "the filesystem root /"
    if path != project and _shell.is_within(path, project):
        return None  # strictly inside the project: not catastrophic by itself
    if _shell.is_within(home, path):
        return "your home directory" if path == home else f"{path} (contains your home directory)"
    if path == project:
        return f"the project root {path}"
    if _shell.is_within(project, path):
        return f"{path} (a parent of the project)"
    if os.path.dirname(path) == home:
        return f"{path} (a top-level folder of your home directory)"
    if _WSL_DRIVE.match(path):
        # /mnt/c/Users/dev (WSL), /c/Windows (Git Bash): a Windows drive, judged as Windows paths.
        return windows_critical(path)
    comps = path.strip("/").split("/")
    if len(comps) == 1:
        return f"{path} (a top-level system directory)"
    if len(comps) == 2 and comps[0] in HOME_PARENTS:
        return f"{path} (a user's home directory)"
    if len(comps) <= 3 and comps[0] in SYSTEM_TOP and comps[:2] != ["var", "tmp"]:
        return f"{path} (a system directory)"
    return None


SERVICE_DATA = frozenset(
    {"postgresql", "pgsql", "mysql", "mariadb", "mongodb", "redis", "docker", "containerd", "elasticsearch", "etcd"}
)


def service_data(path: str) -> bool:
    """``/var/lib/postgresql/16/main``, ``/var/lib/docker/volumes``: where installed services keep
    their data (a database's files, every container volume)."""
    comps = path.strip("/").split("/")
    return len(comps) >= 3 and comps[:2] == ["var", "lib"] and comps[2] in SERVICE_DATA


def only_build_output(base: str, glob_part: str, project: str) -> bool:
    """Whether every match of ``base/glob_part`` is generated output: a later component names a
    build folder (``packages/*/dist``, ``*/node_modules``, ``apps/*/.next/cache``), so a
    monorepo clean-up deletes what a build recreates."""
    comps = glob_part.split("/")
    if ".." in comps:
        return False
    concrete = "/".join("x" if _shell.has_glob(c) else c for c in comps)
    return _shell.build_output(os.path.join(base, concrete), project)


def empties_folder(glob_part: str) -> bool:
    """Whether the glob matches everything below its base: each component matches all
    (``*``, ``*/``, ``*/*``), unlike ``*/bin`` or ``*/coverage.out``, which name one entry in
    each subfolder."""
    return all(comp in _shell.MATCH_ALL_GLOBS or not comp for comp in glob_part.split("/"))


def is_match_all(glob_part: str) -> bool:
    """Whether the glob's first component matches everything in its folder (``*``, ``.*`` …)."""
    first = glob_part.split("/")[0]
    return first in _shell.MATCH_ALL_GLOBS
