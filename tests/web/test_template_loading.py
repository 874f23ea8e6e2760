"""Templates are read once per process, like the code that renders them (QA: files replaced
under a running server gave new templates to old code; a template calling a helper the old
code lacked was a 500 on every page until a restart)."""

from __future__ import annotations

import os

from app.web.templating import TEMPLATE_DIR, templates


def test_a_template_changed_on_disk_is_not_read_again_by_a_running_server() -> None:
    env = templates.env
    first = env.get_template("_error.html")
    path = TEMPLATE_DIR / "_error.html"
    before = path.stat()
    try:
        later = before.st_mtime + 3600  # as if the file were replaced an hour later
        os.utime(path, (later, later))
        assert env.get_template("_error.html") is first
    finally:
        os.utime(path, (before.st_atime, before.st_mtime))
