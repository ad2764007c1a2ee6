"""Static files are served by WhiteNoise, and no request is sent through a thread by the middleware chain."""

import pytest
from django.conf import settings
from django.test import AsyncClient
from django.utils.module_loading import import_string

pytestmark = pytest.mark.django_db


async def test_a_stylesheet_is_served_with_its_type_and_caching_headers():
    response = await AsyncClient().get("/static/css/clusterviz.css")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")
    assert "max-age" in response["Cache-Control"]
    body = b"".join(response.streaming_content)
    assert b"{" in body and len(body) > 1000


async def test_a_missing_static_file_is_a_404():
    response = await AsyncClient().get("/static/css/no-such-sheet.css")
    assert response.status_code == 404


async def test_a_conditional_request_for_an_unchanged_file_is_304():
    first = await AsyncClient().get("/static/js/flow.js")
    again = await AsyncClient().get("/static/js/flow.js", headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304


def test_every_middleware_runs_on_the_event_loop():
    # A synchronous middleware would send every request, kubectl's included, through a thread and back.
    synchronous = [path for path in settings.MIDDLEWARE if not getattr(import_string(path), "async_capable", False)]
    assert synchronous == []
