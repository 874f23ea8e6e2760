"""Processes as /proc shows them (Linux): parents, command lines, states."""

from __future__ import annotations

from pathlib import Path


def _stat_fields(pid: int | str) -> list[str] | None:
    """The fields after the command name of /proc/<pid>/stat (state first), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid`, in ascending order."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(entry.name)
            if fields is not None and int(fields[1]) == pid:
                out.append(int(entry.name))
    return sorted(out)


def cmdline(pid: int) -> bytes:
    """The NUL-separated command line of `pid` (empty once it has gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def state(pid: int) -> str:
    """`pid`'s state letter (R, S, Z, …), or "gone"."""
    fields = _stat_fields(pid)
    return fields[0] if fields is not None else "gone"
