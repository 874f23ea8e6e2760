"""The vendored front-end assets are the versions VERSIONS.json and the README name.

static/vendor/ is filled by scripts/vendor-assets.sh from the npm registry (STYLE.md: never a
CDN); these tests catch a file replaced by hand, a version bumped in one place only, and a
plotly.js bundle that drifted from the one plotly.py builds its figure JSON for.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import plotly
import pytest

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "static" / "vendor"
VERSIONS: dict[str, str] = json.loads((VENDOR / "VERSIONS.json").read_text())

# package → (vendored file, regex whose group 1 is the version inside it, licence file, licence)
FILES = {
    "htmx.org": ("htmx.min.js", r'version:"([^"]+)"', "htmx.LICENSE", "Zero-Clause BSD"),
    "plotly.js-basic-dist-min": (
        "plotly-basic.min.js",
        r"^/\*\*\s*\* plotly\.js \(basic - minified\) v(\S+)",
        "plotly.LICENSE",
        "MIT License",
    ),
}


def test_versions_file_names_every_vendored_package() -> None:
    assert set(VERSIONS) == set(FILES)
    for version in VERSIONS.values():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version)


@pytest.mark.parametrize("package", sorted(FILES))
def test_vendored_file_banner_matches_versions_json(package: str) -> None:
    name, pattern, _, _ = FILES[package]
    head = (VENDOR / name).read_text(encoding="utf-8")[:200_000]
    found = re.search(pattern, head)
    assert found, f"no version banner in static/vendor/{name}"
    assert found.group(1) == VERSIONS[package]


@pytest.mark.parametrize("package", sorted(FILES))
def test_licence_is_vendored_with_the_file(package: str) -> None:
    _, _, licence, first_line = FILES[package]
    assert (VENDOR / licence).read_text(encoding="utf-8").startswith(first_line)


def test_htmx_is_the_2_0_line() -> None:
    # 4.x is a new major line with breaking changes (TOOLCHAIN.md).
    assert VERSIONS["htmx.org"].startswith("2.0.")


def test_plotly_bundle_matches_plotly_py_major_minor() -> None:
    """The browser draws JSON from plotly.py: its bundled plotly.js sets the schema."""
    bundled = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    with bundled.open(encoding="utf-8") as f:
        banner = f.read(300)
    found = re.search(r"plotly\.js v(\d+)\.(\d+)\.", banner)
    assert found, "no version banner in plotly.py's plotly.min.js"
    ours = VERSIONS["plotly.js-basic-dist-min"].split(".")[:2]
    assert ours == [found.group(1), found.group(2)]


def test_checksums_match_what_the_script_vendored() -> None:
    sums = (VENDOR / "SHA256SUMS").read_text().split("\n")
    entries = dict(reversed(line.split()) for line in sums if line.strip())
    expected = {f[0] for f in FILES.values()} | {f[2] for f in FILES.values()}
    assert set(entries) == expected
    for name, digest in entries.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name


def test_readme_names_the_vendored_versions() -> None:
    line = (
        f"Vendored front-end assets: htmx.org {VERSIONS['htmx.org']}, "
        f"plotly.js-basic-dist-min {VERSIONS['plotly.js-basic-dist-min']}"
    )
    assert line in (ROOT / "README.md").read_text(encoding="utf-8")


def test_no_cdn_in_the_vendor_script() -> None:
    script = (ROOT / "scripts" / "vendor-assets.sh").read_text()
    assert "npm pack" in script
    assert not re.search(r"https?://", script)
