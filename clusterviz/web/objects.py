"""The cluster page's objects panel: ``kubectl get -A -o wide`` tables and ``kubectl describe``.

Tables are the API server's own Table output (the printers kubectl gets), so
the page and the terminal never disagree. The panel reloads itself when the
page's websocket says that something changed (see ``consumers``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clusterviz.api import errors
from clusterviz.api.client import Client, find_resource, path_for
from clusterviz.api.metrics import LOAD_ANNOTATION
from clusterviz.api.resources import Resource

from . import describe as describers
from .actions import WORKLOADS
from .describe_autoscaling import describe_horizontal_pod_autoscaler
from .describe_batch import describe_cron_job, describe_job
from .describe_config import describe_config_map, describe_secret, describe_service_account
from .describe_daemonset import describe_daemon_set
from .describe_disruption import describe_pod_disruption_budget
from .describe_networking import describe_ingress, describe_ingress_class
from .describe_quota import describe_limit_range, describe_resource_quota
from .describe_scheduling import describe_priority_class
from .describe_statefulset import describe_stateful_set
from .describe_storage import describe_persistent_volume, describe_persistent_volume_claim, describe_storage_class
from .language import beside_upstream, refused

TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io"
# The tabs of the panel: key -> (title, resources shown one table each).
TABS: dict[str, tuple[Any, tuple[str, ...]]] = {
    "pods": (gettext_lazy("Pods"), ("pods",)),
    "deployments": (gettext_lazy("Deployments"), ("deployments",)),
    "replicasets": (gettext_lazy("ReplicaSets"), ("replicasets",)),
    "replicationcontrollers": (gettext_lazy("ReplicationControllers"), ("replicationcontrollers",)),
    "daemonsets": (gettext_lazy("DaemonSets"), ("daemonsets", "controllerrevisions")),
    "statefulsets": (gettext_lazy("StatefulSets"), ("statefulsets", "controllerrevisions")),
    "jobs": (gettext_lazy("Jobs + CronJobs"), ("jobs", "cronjobs")),
    "poddisruptionbudgets": (gettext_lazy("PodDisruptionBudgets"), ("poddisruptionbudgets",)),
    "priorityclasses": (gettext_lazy("PriorityClasses"), ("priorityclasses",)),
    "horizontalpodautoscalers": (gettext_lazy("HorizontalPodAutoscalers"), ("horizontalpodautoscalers",)),
    "storage": (gettext_lazy("PersistentVolumeClaims + PersistentVolumes + StorageClasses"),
                ("persistentvolumeclaims", "persistentvolumes", "storageclasses")),
    "services": (gettext_lazy("Services + Endpoints + EndpointSlices"), ("services", "endpoints", "endpointslices")),
    "ingresses": (gettext_lazy("Ingresses + IngressClasses"), ("ingresses", "ingressclasses")),
    "quotas": (gettext_lazy("ResourceQuotas + LimitRanges"), ("resourcequotas", "limitranges")),
    "config": (gettext_lazy("ConfigMaps + Secrets + ServiceAccounts"), ("configmaps", "secrets", "serviceaccounts")),
    # The cluster's own kinds follow their definitions' table (see CUSTOM_TAB).
    "custom": (gettext_lazy("CustomResourceDefinitions + custom resources"), ("customresourcedefinitions",)),
    "nodes": (gettext_lazy("Nodes"), ("nodes",)),
    "events": (gettext_lazy("Events"), ("events",)),
}
DESCRIBABLE = {plural for _title, plurals in TABS.values() for plural in plurals}
# The tab that also shows a table for each kind the cluster's CustomResourceDefinitions add.
CUSTOM_TAB = "custom"
# A Pod's describe panel ends with this many lines of each container's log.
LOG_LINES_SHOWN = 20
# The events tab shows the newest this many; a busy lesson makes hundreds.
EVENTS_SHOWN = 50
# Other tables stop here: thousands of rows help no one on a projector and slow every refresh.
ROWS_SHOWN = 200
# Columns of long unbroken identifiers, which may wrap anywhere so that wide tables fit a projector's width.
IDENTIFIER_COLUMNS = {"NAME", "OBJECT", "SUBOBJECT", "SELECTOR", "IMAGES", "CONTAINERS", "ENDPOINTS", "OS-IMAGE"}


def tab_titles() -> list[tuple[str, Any]]:
    """(key, title) of each tab, for the panel's first paint."""
    return [(key, title) for key, (title, _plurals) in TABS.items()]


@dataclass
class Row:
    namespace: str
    name: str
    # (value, whether it is an identifier that may wrap anywhere)
    cells: list[tuple[Any, bool]]


@dataclass
class ObjectTable:
    """One ``kubectl get`` table: headings as kubectl prints them, and a row per object."""

    plural: str
    columns: list[str]
    rows: list[Row] = field(default_factory=list)
    newest_first: bool = False
    more: int = 0  # rows left out


def _event_time(row: dict[str, Any]) -> str:
    event = row.get("object") or {}
    return str(event.get("lastTimestamp") or event.get("eventTime") or event.get("firstTimestamp") or "")


def is_custom(plural: str) -> bool:
    """Whether the page names a custom kind (``crontabs.stable.example.com``): built-in plurals have no dot."""
    return "." in plural


async def resolve(client: Client, plural: str) -> Resource:
    """A built-in resource by its plural, or a custom one by ``plural.group``; kubectl's answer when neither."""
    try:
        return await client.resource(plural)
    except KeyError:
        raise errors.StatusError(
            404, "NotFound", _('the server doesn\'t have a resource type "%(plural)s"') % {"plural": plural}
        ) from None


async def get_table(
    client: Client, plural: str, namespace: str = "", field_selector: str = "", limit: int = 0
) -> dict[str, Any]:
    """The API's Table for a list (its first ``limit`` rows), with full objects in events' rows (sorted by time)."""
    query = {"includeObject": "Object" if plural == "events" else "Metadata"}
    if field_selector:
        query["fieldSelector"] = field_selector
    if limit:
        query["limit"] = str(limit)
    resource = await resolve(client, plural)
    resp = await client.request("GET", path_for(resource, namespace), query=query, accept=TABLE_ACCEPT)
    table = resp.body
    if plural == "events":
        table["rows"].sort(key=_event_time)
    return table


def object_table(plural: str, table: dict[str, Any], namespaced: bool) -> ObjectTable:
    """Lay out an API Table as ``kubectl get -A -o wide`` does: NAMESPACE first for namespaced resources."""
    columns = (["NAMESPACE"] if namespaced else []) + [c["name"].upper() for c in table["columnDefinitions"]]
    identifiers = [column in IDENTIFIER_COLUMNS for column in columns]
    # An event's message may be the scheduler's, which a translated page translates.
    message = columns.index("MESSAGE") if plural == "events" else -1
    rows = []
    for row in table["rows"]:
        meta = (row.get("object") or {}).get("metadata") or {}
        namespace = str(meta.get("namespace", ""))
        # A boolean cell prints as kubectl's Go formatting does: true, false.
        cells = ([namespace] if namespaced else []) + [str(c).lower() if isinstance(c, bool) else c for c in row["cells"]]
        if plural == "events":
            cells[message] = beside_upstream(str(cells[message]))
        rows.append(Row(namespace, str(meta.get("name", "")), list(zip(cells, identifiers, strict=True))))
    more = int((table.get("metadata") or {}).get("remainingItemCount") or 0)
    shown = ObjectTable(plural, columns, rows[:ROWS_SHOWN], more=more + max(0, len(rows) - ROWS_SHOWN))
    if plural == "events":
        shown.rows = list(reversed(rows))[:EVENTS_SHOWN]
        shown.newest_first = True
        shown.more = 0
    return shown


def parse_target(value: str) -> tuple[str, str, str] | None:
    """``plural/namespace/name`` (namespace empty for nodes), the describe panel's selection."""
    parts = value.split("/", 2)
    if len(parts) != 3 or not (parts[0] in DESCRIBABLE or is_custom(parts[0])) or not parts[2]:
        return None
    return parts[0], parts[1], parts[2]


async def describe_context(client: Client, plural: str, namespace: str, name: str) -> dict[str, Any]:
    """What ``kubectl describe`` shows for one object: its text and its Events."""
    context: dict[str, Any] = {
        "plural": plural,
        "namespace": namespace,
        "name": name,
        "target": f"{plural}/{namespace}/{name}",
    }
    try:
        obj = (await client.request("GET", path_for(await resolve(client, plural), namespace, name))).body
        if plural == "pods":
            text = describers.describe_pod(obj)
        elif plural == "deployments":
            text = describers.describe_deployment(obj, (await client.list("replicasets", namespace))["items"])
        elif plural in ("replicasets", "replicationcontrollers"):
            text = describers.describe_replicated(obj, (await client.list("pods", namespace))["items"])
        elif plural == "daemonsets":
            text = describe_daemon_set(obj, (await client.list("pods", namespace))["items"])
        elif plural == "statefulsets":
            text = describe_stateful_set(obj, (await client.list("pods", namespace))["items"])
        elif plural == "jobs":
            text = describe_job(obj)
        elif plural == "cronjobs":
            text = describe_cron_job(obj)
        elif plural == "poddisruptionbudgets":
            text = describe_pod_disruption_budget(obj)
        elif plural == "priorityclasses":
            text = describe_priority_class(obj)
        elif plural == "horizontalpodautoscalers":
            text = describe_horizontal_pod_autoscaler(obj)
        elif plural == "persistentvolumes":
            text = describe_persistent_volume(obj)
        elif plural == "persistentvolumeclaims":
            text = describe_persistent_volume_claim(obj, (await client.list("pods", namespace))["items"])
        elif plural == "storageclasses":
            text = describe_storage_class(obj)
        elif plural == "configmaps":
            text = describe_config_map(obj)
        elif plural == "secrets":
            text = describe_secret(obj)
        elif plural == "serviceaccounts":
            text = describe_service_account(obj, (await client.list("secrets", namespace))["items"])
        elif plural == "services":
            text = describers.describe_service(obj, await client.get_or_none("endpoints", name, namespace))
        elif plural == "endpoints":
            text = describers.describe_endpoints(obj)
        elif plural == "endpointslices":
            text = describers.describe_endpoint_slice(obj)
        elif plural == "ingresses":
            text = describe_ingress(obj, (await client.list("services", namespace))["items"],
                                    (await client.list("endpoints", namespace))["items"])
        elif plural == "ingressclasses":
            text = describe_ingress_class(obj)
        elif plural == "resourcequotas":
            text = describe_resource_quota(obj)
        elif plural == "limitranges":
            text = describe_limit_range(obj)
        elif plural == "nodes":
            text = describers.describe_node(obj, (await client.list("pods"))["items"])
        else:
            text = describers.describe_other(obj)
        meta = obj["metadata"]
        selector = (
            f"involvedObject.kind={obj['kind']},involvedObject.name={name},"
            f"involvedObject.namespace={namespace},involvedObject.uid={meta.get('uid', '')}"
        )
        events = await get_table(client, "events", field_selector=selector)
    except errors.StatusError as exc:
        return {**context, "error": refused(exc.message)}
    columns = [c["name"] for c in events["columnDefinitions"]]

    def cell(row: dict[str, Any], column: str) -> Any:
        return row["cells"][columns.index(column)]

    def age(row: dict[str, Any]) -> str:
        # kubectl describe: "10s", or "10s (x3 over 2m)" for a repeated event.
        count = int(cell(row, "Count") or 1)
        return cell(row, "Last Seen") + (f" (x{count} over {cell(row, 'First Seen')})" if count > 1 else "")

    context["text"] = str(text)
    context["events"] = [
        {
            "type": cell(r, "Type"),
            "reason": cell(r, "Reason"),
            "age": age(r),
            "source": cell(r, "Source"),
            "message": cell(r, "Message"),
        }
        for r in events["rows"]
    ]
    context["object"] = obj
    context["workload"] = WORKLOADS.get(plural)
    # The load knob (clusterviz.io/load) its Pods share, which kubectl top and autoscalers read.
    context["load"] = ((obj["metadata"].get("annotations") or {}).get(LOAD_ANNOTATION, "")) if context["workload"] else ""
    if plural == "pods":
        context["logs"] = [await _log(client, namespace, name, str(c.get("name"))) for c in obj["spec"]["containers"]]
    return context


async def _log(client: Client, namespace: str, pod: str, container: str) -> dict[str, Any]:
    """The last lines a container printed, as ``kubectl logs`` shows them (or why there are none yet)."""
    query = {"container": container, "tailLines": str(LOG_LINES_SHOWN)}
    try:
        reply = await client.request("GET", path_for(find_resource("pods"), namespace, pod, "log"), query=query)
    except errors.StatusError as exc:
        # The API server's own words (upstream's English), as kubectl logs prints them.
        return {"container": container, "tail": LOG_LINES_SHOWN, "text": "", "error": exc.message}
    text = reply.body.decode(errors="replace") if isinstance(reply.body, bytes) else str(reply.body)
    return {"container": container, "tail": LOG_LINES_SHOWN, "text": text, "error": ""}


async def objects(request: HttpRequest, cluster: str) -> HttpResponse:
    """The tables of one tab, and the open describe panel's body again (both follow the cluster live)."""
    tab = request.GET.get("tab", "pods")
    _title, plurals = TABS.get(tab, TABS["pods"])
    client = Client(cluster, "dashboard")
    try:
        if tab == CUSTOM_TAB:
            plurals += tuple(f"{r.plural}.{r.group}" for r in await client.custom_resources())
        tables = []
        for plural in plurals:
            table = await get_table(client, plural, limit=0 if plural == "events" else ROWS_SHOWN)
            tables.append(object_table(plural, table, (await resolve(client, plural)).namespaced))
    except errors.StatusError as exc:
        return HttpResponse(render_to_string("web/flash.html", {"error": refused(exc.message)}))
    html = render_to_string("web/objects.html#tables", {"cluster": cluster, "tables": tables}, request)
    target = parse_target(request.GET.get("describe", ""))
    if target:
        body = await describe_context(client, *target)
        html += render_to_string(
            "web/objects.html#describe-body", {"cluster": cluster, "d": body, "oob": True}, request
        )
    return HttpResponse(html)


async def describe(request: HttpRequest, cluster: str, plural: str, name: str) -> HttpResponse:
    """``kubectl describe PLURAL NAME``, with the object's actions (scale, set image, delete)."""
    if plural not in DESCRIBABLE and not is_custom(plural):
        message = _('the server doesn\'t have a resource type "%(plural)s"') % {"plural": plural}
        return HttpResponse(render_to_string("web/flash.html", {"error": message}))
    context = await describe_context(Client(cluster, "dashboard"), plural, request.GET.get("namespace", ""), name)
    return HttpResponse(render_to_string("web/objects.html#describe", {"cluster": cluster, "d": context}, request))
