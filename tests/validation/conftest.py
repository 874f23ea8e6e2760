"""The validation tests use the web fixtures (an app on the test database, both languages)."""

from tests.web.conftest import get_soup, lang, web, web_app  # noqa: F401
