"""A cookie-keeping HTTP client that submits Django forms the way a browser does (CSRF token included)."""

from __future__ import annotations

import http.cookiejar
import re
import urllib.parse
import urllib.request


class Browser:
    """A cookie-keeping HTTP client that fills in Django's CSRF token like a browser form does."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> tuple[str, str]:
        with self.opener.open(self.base + path, timeout=60) as response:
            return response.geturl(), response.read().decode()

    def submit(self, path: str, fields: dict[str, str]) -> tuple[str, str]:
        """GET the form page, then POST ``fields`` with its CSRF token; returns (final URL, body)."""
        _, page = self.get(path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, page[:500]
        data = urllib.parse.urlencode({"csrfmiddlewaretoken": token[1], **fields}).encode()
        request = urllib.request.Request(self.base + path, data=data, headers={"Referer": self.base + path})
        with self.opener.open(request, timeout=120) as response:
            return response.geturl(), response.read().decode()
