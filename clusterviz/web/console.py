"""The kubectl pane's terminal: ``kubectl get pods -o wide`` and ``kubectl describe pod`` as kubectl prints them.

The cells are the API server's own Table output and the text is
``describe``'s, laid out as kubectl's tabwriters lay them out, so the pane
and a terminal print the same thing. The pane (``console/``) is a partial any
page can include by URL; the cluster page also logs its actions' commands
there (see ``kubectl``).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from clusterviz.api import errors
from clusterviz.api.client import Client

from . import describe as describers
from .kubectl import command, namespace_flag, server_error
from .objects import get_table
from .tabwriter import tabwrite

# kubectl's table printer (k8s.io/cli-runtime printers.GetNewTabWriter): minwidth 6, padding 3.
TABLE_MIN_WIDTH, TABLE_PADDING = 6, 3


# --- printing as kubectl prints -------------------------------------------------------------------


def _cell(value: Any) -> str:
    """A Table cell as kubectl prints it: nothing for null, Go's true and false for booleans."""
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)


def print_table(table: dict[str, Any], wide: bool) -> list[str]:
    """A ``meta.k8s.io/v1`` Table as ``kubectl get`` prints it (``wide``: with the priority-1 columns)."""
    shown = [i for i, c in enumerate(table["columnDefinitions"]) if wide or not c.get("priority")]
    header = [table["columnDefinitions"][i]["name"].upper() for i in shown]
    rows = [[_cell(row["cells"][i]) for i in shown] for row in table["rows"]]
    return tabwrite([header, *rows], TABLE_PADDING, TABLE_MIN_WIDTH)


async def get_pods(client: Client, namespace: str) -> tuple[list[str], list[str]]:
    """``kubectl get pods -o wide`` in ``namespace`` (or kubectl's note when there is nothing), and each line's Pod."""
    table = await get_table(client, "pods", namespace)
    if not table["rows"]:
        return [f"No resources found in {namespace} namespace."], [""]
    names = [str(((row.get("object") or {}).get("metadata") or {}).get("name", "")) for row in table["rows"]]
    return print_table(table, wide=True), ["", *names]


async def describe_pod(client: Client, namespace: str, name: str) -> list[str]:
    """``kubectl describe pod``: the object's text, then its Events as kubectl tabulates them."""
    pod = await client.get("pods", name, namespace)
    selector = (
        f"involvedObject.kind=Pod,involvedObject.name={name},"
        f"involvedObject.namespace={namespace},involvedObject.uid={pod['metadata'].get('uid', '')}"
    )
    events = await get_table(client, "events", field_selector=selector)
    text = describers.describe_pod(pod)
    if not events["rows"]:
        text.add(0, "Events", "<none>")  # aligned with the lines above it: kubectl writes it to the same tabwriter
        return str(text).splitlines()
    columns = [c["name"] for c in events["columnDefinitions"]]
    text.raw(0, "Events:")
    text.write(1, "Type\tReason\tAge\tFrom\tMessage")
    text.write(1, "----\t------\t----\t----\t-------")
    for row in events["rows"]:
        cells = dict(zip(columns, row["cells"], strict=False))
        event = row.get("object") or {}
        # Ages from the Table, which counts in the cluster's simulated time; From is the component alone.
        count = int(cells.get("Count") or 1)
        age = str(cells.get("First Seen", ""))
        if count > 1:
            age = f"{cells.get('Last Seen', '')} (x{count} over {age})"
        source = (event.get("source") or {}).get("component") or event.get("reportingComponent") or ""
        message = str(event.get("message", cells.get("Message", ""))).strip().replace("\t", " ")
        text.write(1, "\t".join([str(cells.get("Type", "")), str(cells.get("Reason", "")), age, str(source), message]))
    return str(text).splitlines()


# --- the pane's endpoints -------------------------------------------------------------------------


async def pane(request: HttpRequest, cluster: str) -> HttpResponse:
    """The whole pane: the log of the page's commands and ``kubectl get pods -o wide`` (for any page to include)."""
    context = await _get_pods_context(cluster, request.GET.get("namespace", "default"))
    return render(request, "web/console.html#pane", context)


async def pods(request: HttpRequest, cluster: str) -> HttpResponse:
    """``kubectl get pods -o wide`` as a terminal shows it."""
    context = await _get_pods_context(cluster, request.GET.get("namespace", "default"))
    return render(request, "web/console.html#output", context)


async def describe(request: HttpRequest, cluster: str, namespace: str, name: str) -> HttpResponse:
    """``kubectl describe pod NAME`` as a terminal shows it."""
    client = Client(cluster, "dashboard")
    line = command("describe", "pod", name, *namespace_flag(namespace))
    try:
        output, ok = await describe_pod(client, namespace, name), True
    except errors.StatusError as exc:
        output, ok = [server_error(exc)], False
    context = {"cluster": cluster, "line": line, "rows": [(text, "") for text in output], "ok": ok}
    return render(request, "web/console.html#output", context)


async def _get_pods_context(cluster: str, namespace: str) -> dict[str, Any]:
    client = Client(cluster, "dashboard")
    line = command("get", "pods", "-o", "wide", *namespace_flag(namespace))
    try:
        output, names = await get_pods(client, namespace)
    except errors.StatusError as exc:
        rows = [(server_error(exc), "")]
        return {"cluster": cluster, "namespace": namespace, "line": line, "rows": rows, "ok": False}
    rows = [
        (text, reverse("console-describe", args=[cluster, namespace, name]) if name else "")
        for text, name in zip(output, names, strict=True)
    ]
    return {"cluster": cluster, "namespace": namespace, "line": line, "rows": rows, "ok": True}
