"""`_compact_svg`: plotly.js's SVG rewritten for WeasyPrint without changing what is drawn.

WeasyPrint copies each declaration of an element's `style` over its attributes
(weasyprint/svg/__init__.py, `Node.cascade`), so the expected attributes below are the
declarations of the input's styles, written by hand.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from app.charts.render import _compact_svg

NS = "{http://www.w3.org/2000/svg}"

PLOTLY_LIKE = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    'width="900" height="300" style="" viewBox="0 0 900 300">'
    '<defs id="defs-1"><g class="clips"><clipPath id="clip1"><rect width="10" height="10"/>'
    '</clipPath></g><g class="gradients"/></defs>'
    '<g class="bglayer"/><g id="kept-empty"/><path class="xlines-below"/>'
    '<g class="points"><path d="M0,0H5V5Z" clip-path="url(#clip1)" fill="red" '
    'style="vector-effect: none; opacity: 1; stroke-width: 0.5px; fill: rgb(89, 161, 79);"/>'
    "</g>"
    '<text x="1" y="2" font-family="Noto Sans CJK TC, Noto Sans, sans-serif" '
    "style=\"font-family: 'Noto Sans CJK TC', 'Noto Sans', sans-serif; font-size: 13px; "
    'fill: rgb(31, 41, 51); white-space: pre;">權重 6.5 GB</text>'
    '<g class="legend" style="-webkit-user-select: none; font-family: \'Noto Sans\'"/>'
    '<image xlink:href="data:," width="1" height="1"/>'
    "</svg>"
)


def _parsed(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def test_styles_become_the_attributes_weasyprint_would_have_copied() -> None:
    root = _parsed(_compact_svg(PLOTLY_LIKE))
    path = root.find(f"{NS}g/{NS}path")
    assert path is not None
    assert path.get("style") is None
    assert path.get("vector-effect") == "none"
    assert path.get("opacity") == "1"
    assert path.get("stroke-width") == "0.5px"
    assert path.get("fill") == "rgb(89, 161, 79)"  # the style wins over the attribute "red"
    assert path.get("clip-path") == "url(#clip1)"
    text = root.find(f"{NS}text")
    assert text is not None and text.text == "權重 6.5 GB"
    assert text.get("font-family") == "Noto Sans CJK TC, Noto Sans, sans-serif"  # unquoted
    assert text.get("font-size") == "13px"
    assert text.get("white-space") == "pre"


def test_empty_groups_and_paths_without_d_are_dropped_but_referenced_ones_kept() -> None:
    root = _parsed(_compact_svg(PLOTLY_LIKE))
    classes = [el.get("class") for el in root.iter()]
    assert "bglayer" not in classes and "gradients" not in classes
    assert "xlines-below" not in classes
    assert "legend" not in classes  # empty once its style is gone: nothing to draw
    assert root.find(f".//{NS}g[@id='kept-empty']") is not None  # could be <use>d
    assert root.find(f".//{NS}clipPath[@id='clip1']/{NS}rect") is not None
    assert root.get("viewBox") == "0 0 900 300"


def test_xlink_and_the_default_namespace_survive() -> None:
    out = _compact_svg(PLOTLY_LIKE)
    assert 'xmlns="http://www.w3.org/2000/svg"' in out and "ns0:" not in out
    root = _parsed(out)
    assert root.tag == f"{NS}svg"
    image = root.find(f"{NS}image")
    assert image is not None
    assert image.get("{http://www.w3.org/1999/xlink}href") == "data:,"


def test_styles_a_plain_split_could_misread_are_left_alone() -> None:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg">'
        '<rect width="1" height="1" style="fill: red !important"/>'
        '<rect width="1" height="1" style="fill: url(&quot;#a;b&quot;)"/>'
        "</svg>"
    )
    rects = _parsed(_compact_svg(svg)).findall(f"{NS}rect")
    assert [r.get("style") for r in rects] == ["fill: red !important", 'fill: url("#a;b")']


def test_input_that_is_not_svg_xml_comes_back_unchanged() -> None:
    assert _compact_svg("<svg><g></svg>") == "<svg><g></svg>"
    other = '<svg xmlns="http://www.w3.org/2000/svg"><x:y xmlns:x="urn:x"/></svg>'
    assert _compact_svg(other) == other
