"""Dashboard pages: the cluster list and one page per cluster."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clusterviz.api import errors
from clusterviz.api.bootstrap import cluster_summaries
from clusterviz.api.client import Client
from clusterviz.classroom.identity import readable_clusters
from clusterviz.lessons import BY_SLUG, LESSONS
from clusterviz.lessons.script import Lesson
from clusterviz.sim.engine import MODES

from . import kubectl, yaml_form
from .captions import MODE_NAMES
from .cluster_view import PENDING_SHOWN, compact, node_cards, pending_pods
from .export import export_cluster, import_cluster, uploaded_text
from .kubectl import Reply
from .language import chinese, refused
from .models import Presentation
from .objects import tab_titles
from .present import load_lesson

# Timeline rows a page starts with.
TIMELINE_ROWS = 40


async def home(request: HttpRequest) -> HttpResponse:
    """The clusters this server simulates, and how to reach each with kubectl."""
    clusters = await cluster_summaries(await readable_clusters(request))
    base = request.build_absolute_uri("/").rstrip("/")
    return render(request, "web/home.html", {"clusters": clusters, "base": base})


async def cluster_context(cluster: str) -> dict[str, Any]:
    """Everything the cluster page shows, read through the API like any client."""
    client = Client(cluster, "dashboard")
    try:
        nodes = (await client.list("nodes"))["items"]
    except errors.StatusError as exc:
        if exc.code == 404:
            raise Http404(f"no cluster {cluster}") from None
        raise
    pods = (await client.list("pods"))["items"]
    simulation = await client.get("simulations", "default")
    # The newest messages: a list of the trace starts at its oldest, so it starts from a sequence number.
    since = max(0, int(simulation["status"]["lastSeq"]) - TIMELINE_ROWS)
    flow = await client.request("GET", "/apis/clusterviz.io/v1/flowmessages", query={"sinceSeq": str(since)})
    trace = flow.body["items"][-TIMELINE_ROWS:]
    waiting = pending_pods(pods)
    return {
        "cluster": cluster,
        "cards": node_cards(nodes, pods),
        "compact": compact(nodes, pods),
        "pending": waiting[:PENDING_SHOWN],
        "pending_more": max(0, len(waiting) - PENDING_SHOWN),
        "simulation": simulation,
        "modes": MODE_NAMES,
        "messages": list(reversed(trace)),
        "presets": [(lesson.slug, lesson.title_zh if chinese() else lesson.title) for lesson in LESSONS],
    }


async def cluster_page(request: HttpRequest, cluster: str) -> HttpResponse:
    """The live view of one cluster: node cards, pending Pods, controls and the message timeline."""
    context = await cluster_context(cluster)
    context["base"] = request.build_absolute_uri("/").rstrip("/")
    context["default_yaml"] = (settings.BASE_DIR / "examples" / "myapp.yaml").read_text()
    context["object_tabs"] = tab_titles()
    # The lesson loaded last (here or on the presenter view) stays chosen, with its script, after a reload.
    shown = await Presentation.objects.filter(cluster=cluster).values_list("lesson", flat=True).afirst()
    lesson = BY_SLUG.get(shown or "")
    if lesson is not None:
        context["lesson"] = {**lesson_context(lesson), "slug": lesson.slug}
        context["default_yaml"] = lesson.manifest
    return render(request, "web/cluster.html", context)


@require_POST
async def yaml_action(request: HttpRequest, cluster: str) -> HttpResponse:
    """The YAML editor's buttons: apply, create, dry-run, delete — the same API calls kubectl makes."""
    action, text = request.POST.get("action", ""), request.POST.get("yaml", "")

    async def work() -> Reply:
        outcomes = await yaml_form.run(cluster, action, text)
        return Reply(all(o.ok for o in outcomes), "", [o.kubectl for o in outcomes], outcomes)

    return await kubectl.run(request, cluster, yaml_form.COMMANDS.get(action, kubectl.command(action)), work)


async def export(request: HttpRequest, cluster: str) -> HttpResponse:
    """Download the cluster as one multi-document YAML (kubectl apply -f accepts it; so does the editor)."""
    response = HttpResponse(await export_cluster(cluster), content_type="application/yaml")
    response["Content-Disposition"] = f'attachment; filename="{cluster}.yaml"'
    return response


@require_POST
async def import_yaml(request: HttpRequest, cluster: str) -> HttpResponse:
    """Replace the cluster's contents with an uploaded export (the editor shows each document's outcome)."""
    try:
        text = uploaded_text(request.FILES.get("file"), settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    except ValueError as exc:
        return render(request, "web/yaml_result.html", {"outcomes": [yaml_form.Outcome(False, str(exc))]})
    outcomes = await import_cluster(cluster, text)
    return render(request, "web/yaml_result.html", {"outcomes": outcomes})


def lesson_context(lesson: Lesson) -> dict[str, Any]:
    """A lesson's title and script in the page's language, as the cluster page lists it."""
    zh = chinese()
    steps = [
        {
            "text": step.text_zh if zh else step.text,
            "question": step.question_zh if zh else step.question,
            "kubectl": step.action.kubectl() if step.action else "",
        }
        for step in lesson.steps
    ]
    return {"title": lesson.title_zh if zh else lesson.title, "steps": steps}


@require_POST
async def load_preset(request: HttpRequest, cluster: str) -> HttpResponse:
    """One click: reset the cluster to a lesson's start, load its manifest, switch to step mode."""
    lesson = BY_SLUG.get(request.POST.get("preset", ""))
    if lesson is None:
        return render(request, "web/flash.html", {"error": _("choose a preset")})
    await load_lesson(cluster, lesson)
    response = render(request, "web/preset.html", lesson_context(lesson))
    response["HX-Trigger"] = json.dumps({"loadPreset": {"yaml": lesson.manifest}})
    return response


@require_POST
async def set_mode(request: HttpRequest, cluster: str) -> HttpResponse:
    """Controls: switch the simulation's mode (and speed) through the simulations API."""
    mode = request.POST.get("mode", "")
    patch: dict[str, Any] = {"spec": {}}
    if mode in MODES:
        patch["spec"]["mode"] = mode
    if request.POST.get("speed"):
        try:
            patch["spec"]["speed"] = float(request.POST["speed"])
        except ValueError:
            pass
    client = Client(cluster, "dashboard")
    error: str = ""
    try:
        simulation = await client.patch("simulations", "default", patch)
    except errors.StatusError as exc:
        error, simulation = refused(exc.message), await client.get("simulations", "default")
    context = {"cluster": cluster, "simulation": simulation, "modes": MODE_NAMES, "error": error}
    return render(request, "web/cluster.html#controls", context)


@require_POST
async def step(request: HttpRequest, cluster: str) -> HttpResponse:
    """Controls: deliver one message (up to the next numbered hop with ``numbered=1``).

    With ``timer=1``, skip to the next event: the clock moves straight to it (an image pull, a heartbeat).
    """
    client = Client(cluster, "dashboard")
    query = {"untilNumbered": "true"} if request.POST.get("numbered") else {}
    if request.POST.get("timer"):
        query = {"untilTimer": "true"}
    await client.request("POST", "/apis/clusterviz.io/v1/simulations/default/step", query=query, payload={})
    simulation = await client.get("simulations", "default")
    return render(request, "web/cluster.html#controls", {"cluster": cluster, "simulation": simulation, "modes": MODE_NAMES})
