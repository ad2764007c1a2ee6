"""Dashboard pages: the cluster list and one page per cluster."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.views.decorators.http import require_POST

from clusterviz.api import errors
from clusterviz.api.bootstrap import cluster_summaries
from clusterviz.api.client import Client
from clusterviz.sim import scenarios

from . import yaml_form
from .cluster_view import node_cards, pending_pods, scoring_table
from .export import export_cluster

MODES = ("live", "paused", "step", "fast-forward")


async def home(request: HttpRequest) -> HttpResponse:
    """The clusters this server simulates, and how to reach each with kubectl."""
    clusters = await cluster_summaries()
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
    trace = (await client.list("flowmessages"))["items"][-40:]
    return {
        "cluster": cluster,
        "cards": node_cards(nodes, pods),
        "pending": pending_pods(pods),
        "simulation": simulation,
        "modes": MODES,
        "messages": list(reversed(trace)),
        "presets": [(s.key, s.title_zh if _chinese() else s.title) for s in scenarios.SCENARIOS],
    }


async def cluster_page(request: HttpRequest, cluster: str) -> HttpResponse:
    """The live view of one cluster: node cards, pending Pods, controls and the message timeline."""
    context = await cluster_context(cluster)
    context["base"] = request.build_absolute_uri("/").rstrip("/")
    context["default_yaml"] = (settings.BASE_DIR / "examples" / "myapp.yaml").read_text()
    return render(request, "web/cluster.html", context)


async def scoring(request: HttpRequest, cluster: str, namespace: str, name: str) -> HttpResponse:
    """The scoring panel of one Pod: every node x filter, then every node x score plugin, from its decisions."""
    client = Client(cluster, "dashboard")
    decisions = (await client.list("schedulingdecisions", namespace, label_selector=f"clusterviz.io/pod={name}"))["items"]
    decisions.sort(key=lambda d: d.get("attempt", 0))
    wanted = request.GET.get("attempt")
    record = next((d for d in decisions if str(d.get("attempt")) == wanted), decisions[-1] if decisions else None)
    return render(request, "web/scoring.html", {
        "cluster": cluster, "namespace": namespace, "name": name, "record": record,
        "attempts": [d.get("attempt") for d in decisions], "table": scoring_table(record) if record else None,
    })


def node_patch(action: str, value: str) -> dict[str, Any]:
    """The merge patch of a node action from the page (label, unlabel, cordon, uncordon, stop, start)."""
    if action == "label":
        key, sep, val = value.partition("=")
        if not sep or not key.strip():
            raise ValueError("write the label as key=value, e.g. disktype=ssd")
        return {"metadata": {"labels": {key.strip(): val.strip()}}}
    if action == "unlabel":
        key = value.strip().rstrip("-")
        if not key:
            raise ValueError("name the label to remove, e.g. disktype")
        return {"metadata": {"labels": {key: None}}}
    if action in ("cordon", "uncordon"):
        return {"spec": {"unschedulable": True if action == "cordon" else None}}
    if action in ("stop", "start"):
        state = "stopped" if action == "stop" else "running"
        return {"metadata": {"annotations": {"clusterviz.io/kubelet": state}}}
    raise ValueError(f"unknown action {action!r}")


@require_POST
async def node_action(request: HttpRequest, cluster: str, name: str) -> HttpResponse:
    """Node actions from its card, written through the API like kubectl label / cordon / annotate."""
    try:
        patch = node_patch(request.POST.get("action", ""), request.POST.get("value", ""))
        await Client(cluster, "dashboard").patch("nodes", name, patch)
    except ValueError as exc:
        return render(request, "web/flash.html", {"error": str(exc)})
    except errors.StatusError as exc:
        return render(request, "web/flash.html", {"error": exc.message})
    return render(request, "web/flash.html", {"done": f"node/{name}: {request.POST.get('action')} done"})


@require_POST
async def yaml_action(request: HttpRequest, cluster: str) -> HttpResponse:
    """The YAML editor's buttons: apply, create, dry-run, delete — the same API calls kubectl makes."""
    outcomes = await yaml_form.run(cluster, request.POST.get("action", ""), request.POST.get("yaml", ""))
    return render(request, "web/yaml_result.html", {"outcomes": outcomes})


async def export(request: HttpRequest, cluster: str) -> HttpResponse:
    """Download the cluster as one multi-document YAML (kubectl apply -f accepts it; so does the editor)."""
    response = HttpResponse(await export_cluster(cluster), content_type="application/yaml")
    response["Content-Disposition"] = f'attachment; filename="{cluster}.yaml"'
    return response


def _chinese() -> bool:
    return translation.get_language() == "zh-hans"


@require_POST
async def load_preset(request: HttpRequest, cluster: str) -> HttpResponse:
    """One click: reset the cluster to a classroom scenario, load its manifest, switch to step mode."""
    scenario = scenarios.BY_KEY.get(request.POST.get("preset", ""))
    if scenario is None:
        return render(request, "web/flash.html", {"error": "choose a preset"})
    await scenarios.load(cluster, scenario)
    title, watch = (scenario.title_zh, scenario.watch_zh) if _chinese() else (scenario.title, scenario.watch)
    response = render(request, "web/preset.html", {"title": title, "watch": watch})
    response["HX-Trigger"] = json.dumps({"loadPreset": {"yaml": scenario.manifest}})
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
    simulation = await client.patch("simulations", "default", patch)
    return render(request, "web/cluster.html#controls", {"cluster": cluster, "simulation": simulation, "modes": MODES})


@require_POST
async def step(request: HttpRequest, cluster: str) -> HttpResponse:
    """Controls: deliver one message (or up to the next numbered hop with ``numbered=1``)."""
    client = Client(cluster, "dashboard")
    query = {"untilNumbered": "true"} if request.POST.get("numbered") else {}
    await client.request("POST", "/apis/clusterviz.io/v1/simulations/default/step", query=query, payload={})
    simulation = await client.get("simulations", "default")
    return render(request, "web/cluster.html#controls", {"cluster": cluster, "simulation": simulation, "modes": MODES})
