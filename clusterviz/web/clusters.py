"""The home page's buttons: create a cluster, reset one to the demo's three nodes, delete one."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clusterviz.api import errors
from clusterviz.api.bootstrap import cluster_summaries, create_cluster
from clusterviz.apimachinery.names import is_dns1123_label
from clusterviz.classroom.identity import readable_clusters
from clusterviz.lessons import runner as lessons
from clusterviz.lessons.script import DEFAULT_NODES
from clusterviz.sim import registry

from .export import import_cluster, uploaded_text
from .language import refused
from .models import Presentation

# Larger clusters are for `manage.py createcluster`: registering thousands of nodes takes longer than a click should.
MAX_NODES = 100


async def clusters_panel(request: HttpRequest, *, error: str = "", done: str = "") -> HttpResponse:
    """The home page's list of clusters, with the outcome of the last button pressed."""
    return render(
        request,
        "web/home.html#clusters",
        {
            "clusters": await cluster_summaries(await readable_clusters(request)),
            "base": request.build_absolute_uri("/").rstrip("/"),
            "error": error,
            "done": done,
        },
    )


@require_POST
async def create(request: HttpRequest) -> HttpResponse:
    """A new cluster with its system namespaces and N Ready nodes (``manage.py createcluster`` from the page)."""
    name = request.POST.get("name", "").strip()
    problems = is_dns1123_label(name)
    if problems:
        return await clusters_panel(
            request,
            error=_('invalid cluster name "%(name)s": %(problems)s') % {"name": name, "problems": "; ".join(problems)},
        )
    try:
        nodes = int(request.POST.get("nodes", "3"))
    except ValueError:
        nodes = -1
    if not 0 <= nodes <= MAX_NODES:
        return await clusters_panel(
            request, error=_("the number of nodes must be between 0 and %(max)d") % {"max": MAX_NODES}
        )
    upload = request.FILES.get("file")
    if upload is not None:
        return await _create_from_file(request, name, upload)
    if not await create_cluster(name, nodes):
        return await clusters_panel(request, error=_('cluster "%(name)s" already exists') % {"name": name})
    return await clusters_panel(
        request, done=_('cluster "%(name)s" created with %(nodes)d node(s)') % {"name": name, "nodes": nodes}
    )


async def _create_from_file(request: HttpRequest, name: str, upload: Any) -> HttpResponse:
    """A new cluster holding what an exported lesson file describes (its nodes included)."""
    try:
        text = uploaded_text(upload, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    except ValueError as exc:
        return await clusters_panel(request, error=str(exc))
    if not await create_cluster(name, 0):
        return await clusters_panel(request, error=_('cluster "%(name)s" already exists') % {"name": name})
    rejected = [o for o in await import_cluster(name, text) if not o.ok]
    if rejected:
        # Nothing of a refused file was applied: the new cluster goes again rather than stay half-made.
        await registry.delete_cluster(name)
        return await clusters_panel(request, error=refused("; ".join(o.text for o in rejected[:3])))
    return await clusters_panel(
        request, done=_('cluster "%(name)s" created from %(file)s') % {"name": name, "file": upload.name}
    )


@require_POST
async def reset(request: HttpRequest, cluster: str) -> HttpResponse:
    """Remove every workload and node, then register the demo's three nodes again."""
    try:
        await lessons.reset(cluster)
    except errors.StatusError as exc:
        return await clusters_panel(request, error=refused(exc.message))
    # A reset ends the lesson that was shown.
    await Presentation.objects.filter(cluster=cluster).adelete()
    return await clusters_panel(
        request,
        done=_('cluster "%(name)s" reset to %(nodes)d nodes')
        % {"name": cluster, "nodes": len(DEFAULT_NODES)},
    )


@require_POST
async def delete(request: HttpRequest, cluster: str) -> HttpResponse:
    """Remove a cluster with all its objects and its trace."""
    if not await registry.delete_cluster(cluster):
        return await clusters_panel(request, error=_('cluster "%(name)s" not found') % {"name": cluster})
    await Presentation.objects.filter(cluster=cluster).adelete()
    return await clusters_panel(request, done=_('cluster "%(name)s" deleted') % {"name": cluster})
