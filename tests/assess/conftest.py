"""The self-assessment's tests use the web tests' in-process client, per test and language."""

from tests.web.conftest import get_soup, lang, web, web_app

__all__ = ["get_soup", "lang", "web", "web_app"]
