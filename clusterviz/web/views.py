"""Dashboard pages."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from clusterviz.api.bootstrap import cluster_summaries


async def home(request: HttpRequest) -> HttpResponse:
    """The clusters this server simulates, and how to reach each with kubectl."""
    clusters = await cluster_summaries()
    base = request.build_absolute_uri("/").rstrip("/")
    return render(request, "web/home.html", {"clusters": clusters, "base": base})
