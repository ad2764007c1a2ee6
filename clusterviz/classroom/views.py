"""The teacher's class pages, the student's join link, and kubeconfig downloads.

A teacher signs in, creates a class (a demo cluster loaded with a preset) and
shares its join link. A student who opens it gets a sandbox cluster copied
from the preset and a signed cookie naming it; no account is needed. The
teacher's page shows every sandbox as a mini map with its current step, can
push a preset to all of them, and opens any one on the projector.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import yaml
from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _

from clusterviz.api.client import Client
from clusterviz.lessons import BY_SLUG, LESSONS
from clusterviz.sim.models import FlowMessage
from clusterviz.web.cluster_view import pod_status

from .identity import SANDBOX_COOKIE, sandbox_id_from_cookie, sign_sandbox, user_identity
from .models import AccessToken, Classroom, Sandbox
from .sandboxes import create_classroom, create_sandbox, push_preset

COOKIE_MAX_AGE = 30 * 24 * 3600  # a term


async def _teacher(request: HttpRequest) -> Any:
    """The signed-in teacher, or None."""
    user = await request.auser()
    identity = await user_identity(user)
    return user if identity is not None and identity.teacher else None


def _to_login(request: HttpRequest) -> HttpResponse:
    return HttpResponseRedirect(f"{reverse('login')}?next={request.path}")


async def classes(request: HttpRequest) -> HttpResponse:
    """The teacher's classes; POST creates one."""
    teacher = await _teacher(request)
    if teacher is None:
        return _to_login(request)
    error = ""
    if request.method == "POST":
        title = request.POST.get("title", "").strip()
        slug = slugify(request.POST.get("slug", "") or title)[:40].strip("-")
        preset = request.POST.get("preset", "")
        if not title or not slug:
            error = _("A class needs a title.")
        elif preset not in BY_SLUG:
            error = _("Choose a preset.")
        elif await Classroom.objects.filter(slug=slug).aexists():
            error = _("A class with this short name exists already.")
        else:
            classroom = await create_classroom(slug, title, teacher, preset, public=bool(request.POST.get("public")))
            return HttpResponseRedirect(reverse("classroom", args=[classroom.slug]))
    mine = [c async for c in Classroom.objects.filter(teacher=teacher).select_related("demo")]
    return render(request, "classroom/classes.html", {"classes": mine, "presets": LESSONS, "error": error})


async def _mini_map(cluster: str) -> dict[str, Any]:
    """A sandbox at a glance: nodes with their Pods' phases, Pending Pods, mode and last numbered step."""
    client = Client(cluster, "dashboard", simulated=False)
    nodes = [n["metadata"]["name"] for n in (await client.list("nodes"))["items"]]
    by_node: dict[str, list[str]] = {name: [] for name in nodes}
    pending = 0
    for pod in (await client.list("pods"))["items"]:
        node = (pod.get("spec") or {}).get("nodeName")
        if node in by_node:
            by_node[node].append(pod_status(pod))
        else:
            pending += 1
    simulation = await client.get("simulations", "default")
    last = await FlowMessage.objects.filter(cluster=cluster, step__isnull=False).order_by("-seq").afirst()
    return {
        "nodes": [{"name": name, "pods": phases} for name, phases in by_node.items()],
        "pending": pending,
        "mode": simulation["spec"]["mode"],
        "step": last.step if last else None,
        "summary": last.summary if last else "",
    }


async def classroom(request: HttpRequest, slug: str) -> HttpResponse:
    """The teacher's view of one class: the join link, the demo, a mini map per sandbox; POST pushes a preset."""
    teacher = await _teacher(request)
    if teacher is None:
        return _to_login(request)
    found = await Classroom.objects.select_related("demo").filter(slug=slug).afirst()
    if found is None:
        raise Http404("no such class")
    message = ""
    if request.method == "POST":
        preset = request.POST.get("preset", "")
        if preset in BY_SLUG:
            count = await push_preset(found, preset)
            message = _("Preset loaded into %(count)d sandboxes.") % {"count": count}
        else:
            message = _("Choose a preset.")
    sandboxes = [s async for s in Sandbox.objects.filter(classroom=found).select_related("cluster")]
    grid = [{"sandbox": s, "map": await _mini_map(s.cluster.name)} for s in sandboxes]
    join = request.build_absolute_uri(reverse("join", args=[found.slug]))
    context = {"classroom": found, "grid": grid, "join": join, "presets": LESSONS, "message": message}
    if request.headers.get("HX-Request"):
        return render(request, "classroom/classroom.html#grid", context)
    return render(request, "classroom/classroom.html", context)


async def join(request: HttpRequest, slug: str) -> HttpResponse:
    """The class link: a form asking the student's name, then their own sandbox."""
    found = await Classroom.objects.select_related("demo").filter(slug=slug).afirst()
    if found is None:
        raise Http404("no such class")
    current = sandbox_id_from_cookie(request.COOKIES.get(SANDBOX_COOKIE))
    if current is not None:
        mine = (
            await Sandbox.objects.select_related("cluster").filter(pk=current, classroom=found).afirst()
            if current is not None
            else None
        )
        if mine is not None:
            return HttpResponseRedirect(reverse("cluster", args=[mine.cluster.name]))
    error = ""
    if request.method == "POST":
        student = " ".join(request.POST.get("name", "").split())[:80]
        if not student:
            error = _("Please type your name.")
        else:
            sandbox = await create_sandbox(found, student)
            response = HttpResponseRedirect(reverse("cluster", args=[sandbox.cluster.name]))
            response.set_cookie(
                SANDBOX_COOKIE, sign_sandbox(sandbox.pk), max_age=COOKIE_MAX_AGE, httponly=True, samesite="Lax",
                secure=request.is_secure(),
            )  # fmt: skip
            return response
    return render(request, "classroom/join.html", {"classroom": found, "error": error})


def kubeconfig_text(server: str, cluster: str, user: str, token: str, ca_pem: bytes = b"") -> str:
    """A kubeconfig with one cluster (trusting ``ca_pem`` if given), one user (a bearer token) and one context."""
    entry: dict[str, Any] = {"server": server}
    if ca_pem:
        entry["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster, "cluster": entry}],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": cluster, "context": {"cluster": cluster, "user": user, "namespace": "default"}}],
        "current-context": cluster,
    }
    return yaml.safe_dump(config, sort_keys=False)


async def kubeconfig(request: HttpRequest, slug: str) -> HttpResponse:
    """A kubeconfig for the caller: the student's sandbox, or the teacher's demo cluster (a fresh token each time)."""
    found = await Classroom.objects.select_related("demo").filter(slug=slug).afirst()
    if found is None:
        raise Http404("no such class")
    teacher = await _teacher(request)
    if teacher is not None and found.demo is not None:
        cluster, user = found.demo.name, teacher.get_username()
        token = await sync_to_async(AccessToken.issue)(user=teacher)
    else:
        current = sandbox_id_from_cookie(request.COOKIES.get(SANDBOX_COOKIE))
        mine = (
            await Sandbox.objects.select_related("cluster").filter(pk=current, classroom=found).afirst()
            if current is not None
            else None
        )
        if mine is None:
            return HttpResponseRedirect(reverse("join", args=[found.slug]))
        cluster, user = mine.cluster.name, f"student-{mine.pk}"
        token = await sync_to_async(AccessToken.issue)(sandbox=mine)
    options = settings.CLUSTERVIZ
    base = options["KUBECTL_URL"].rstrip("/") or request.build_absolute_uri("/").rstrip("/")
    ca = Path(options["TLS_CERT"]).read_bytes() if options["TLS_CERT"] else b""
    text = kubeconfig_text(f"{base}/c/{cluster}", cluster, user, token, ca)
    if not base.startswith("https://"):
        text = f"# kubectl sends the token only over https: see CLUSTERVIZ_KUBECTL_URL in the README.\n{text}"
    response = HttpResponse(text, content_type="application/yaml")
    response["Content-Disposition"] = f'attachment; filename="kubeconfig-{cluster}.yaml"'
    return response
