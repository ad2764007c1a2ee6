"""kubectl's requests (no cookies) go straight to the access check and the API; a browser's take the whole chain."""

from __future__ import annotations

import pytest
from django.contrib.sessions.middleware import SessionMiddleware
from django.test import AsyncClient

from clusterviz.classroom.identity import forget_ownership

pytestmark = pytest.mark.django_db(transaction=True)
NODES = "/c/demo/api/v1/nodes"


@pytest.fixture
def sessions_opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths whose request went through the session middleware."""
    opened: list[str] = []
    process_request = SessionMiddleware.process_request

    def spy(self: SessionMiddleware, request) -> None:
        opened.append(request.path)
        process_request(self, request)

    monkeypatch.setattr(SessionMiddleware, "process_request", spy)
    forget_ownership()
    return opened


async def test_a_request_without_cookies_skips_the_browsers_middleware(sim, sessions_opened: list[str]) -> None:
    reply = await AsyncClient().get(NODES)
    assert reply.status_code == 200
    assert reply.json()["kind"] == "NodeList"
    assert sessions_opened == []
    assert "X-Frame-Options" not in reply.headers


async def test_a_browsers_api_call_takes_the_whole_chain(sim, sessions_opened: list[str]) -> None:
    browser = AsyncClient()
    browser.cookies["sessionid"] = "none-yet"
    reply = await browser.get(NODES)
    assert reply.status_code == 200
    assert sessions_opened == [NODES]
    assert reply.headers["X-Frame-Options"] == "DENY"


async def test_the_access_rules_still_judge_a_request_without_cookies(sim, settings, sessions_opened) -> None:
    settings.CLUSTERVIZ = {**settings.CLUSTERVIZ, "ACCESS": "classroom"}
    refused = await AsyncClient().get(NODES)
    assert refused.status_code == 403
    assert refused.json()["message"].startswith('nodes is forbidden: User "system:anonymous" cannot list')
    unknown = await AsyncClient().get(NODES, headers={"Authorization": "Bearer not-a-token"})
    assert unknown.status_code == 401
    assert sessions_opened == []
