"""An exclusive lock on a file, held across processes of this machine (`fcntl.flock`)."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) for the `with` block; another
    process asking for it waits. The lock goes with the file descriptor, so a process that
    dies releases it."""
    with path.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
