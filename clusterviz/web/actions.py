"""The cluster page's writes: node, workload and Pod actions, each the API call kubectl makes for it.

Input is parsed the way kubectl parses its arguments (``key=value``, ``key-``,
``key=value:Effect``); everything else — label syntax, image names, replica
counts — is left to the API server, so the page gets the same Status
messages as kubectl and nothing is half-written. Replies go to the page's
flash area, and the kubectl pane shows the command with kubectl's answer
(see ``kubectl``).
"""

from __future__ import annotations

import re
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from clusterviz.api import errors
from clusterviz.api.bootstrap import node_object
from clusterviz.api.client import Client
from clusterviz.api.metrics import LOAD_ANNOTATION
from clusterviz.apimachinery.quantity import QuantityError, parse_quantity

from . import kubectl
from .kubectl import Reply, Work
from .language import refused

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
KUBELET_ANNOTATION = "clusterviz.io/kubelet"
# Workload kinds the page can scale and re-image, by plural: the noun kubectl prints for each.
WORKLOADS = {
    "deployments": "deployment.apps",
    "replicasets": "replicaset.apps",
    "replicationcontrollers": "replicationcontroller",
    "statefulsets": "statefulset.apps",
}
_POD_CIDR = re.compile(r"10\.244\.(\d+)\.0/24")
# What kubectl prints after each node action: "node/node02 labeled".
NODE_DONE = {
    "label": "labeled",
    "unlabel": "unlabeled",
    "taint": "tainted",
    "untaint": "untainted",
    "cordon": "cordoned",
    "uncordon": "uncordoned",
    "stop": "annotated",
    "start": "annotated",
}
# What that line means, beside it on a Chinese page (the kubelet switch says more than "annotated").
NODE_MEANINGS = {
    "label": gettext_lazy("label set"),
    "unlabel": gettext_lazy("label removed"),
    "taint": gettext_lazy("taint added"),
    "untaint": gettext_lazy("taint removed"),
    "cordon": gettext_lazy("scheduling disabled"),
    "uncordon": gettext_lazy("scheduling enabled again"),
    "stop": gettext_lazy("kubelet on %(name)s stopped"),
    "start": gettext_lazy("kubelet on %(name)s started"),
}


def node_meaning(action: str, name: str) -> str:
    """What kubectl's answer to a node action means, in the page's language."""
    return str(NODE_MEANINGS[action]) % {"name": name}


class InputError(ValueError):
    """Input kubectl itself would refuse before sending anything (its client-side checks).

    ``output`` is what kubectl prints for it when that is not ``error: <message>``.
    """

    def __init__(self, message: str, output: list[str] | None = None) -> None:
        super().__init__(message)
        self.output = output


def flash(request: HttpRequest, *, error: str = "", done: str = "") -> HttpResponse:
    """A reply that is only a line in the page's flash area."""
    return render(request, "web/flash.html", {"error": error, "done": done})


def attempt(work: Work) -> Work:
    """``work`` with its refusals as replies: kubectl's own checks, and the API server's Status."""

    async def run() -> Reply:
        try:
            return await work()
        except InputError as exc:
            return Reply(False, str(exc), exc.output or [kubectl.client_error(str(exc))])
        except errors.StatusError as exc:
            return Reply(False, exc.message, [kubectl.server_error(exc)], meaning=_("refused by the API server"))

    return run


def parse_label(value: str) -> tuple[str, str]:
    """``key=value`` as ``kubectl label`` reads it."""
    key, sep, val = value.strip().partition("=")
    if not sep or not key.strip():
        raise InputError(_("write the label as key=value, e.g. disktype=ssd"))
    return key.strip(), val.strip()


def parse_taint(value: str) -> dict[str, str]:
    """``key[=value]:Effect`` as ``kubectl taint`` reads it."""
    spec = value.strip()
    head, sep, effect = spec.rpartition(":")
    if not sep or not head:
        raise InputError(_("invalid taint spec: %(spec)s (write key=value:NoSchedule)") % {"spec": spec})
    if effect not in TAINT_EFFECTS:
        raise InputError(_("invalid taint effect: %(effect)s, unsupported taint effect") % {"effect": effect})
    key, _sep, val = head.partition("=")
    taint = {"key": key.strip(), "effect": effect}
    if val:
        taint["value"] = val.strip()
    return taint


def node_patch(node: dict[str, Any], action: str, value: str, overwrite: bool) -> tuple[dict[str, Any], str]:
    """The merge patch of one node action and the line kubectl prints for it ("node/node02 labeled").

    Like kubectl's, the patch names only what changes, with no resourceVersion precondition (the node's
    heartbeats change it all the time); only a taint change, which replaces the whole list, carries the
    node's resourceVersion, so that a taint the node controller adds meanwhile is a 409 Conflict rather
    than a lost update.
    """
    meta, spec = node["metadata"], node.get("spec") or {}
    name = meta["name"]
    labels = meta.get("labels") or {}
    taints: list[dict[str, Any]] = list(spec.get("taints") or [])
    patch: dict[str, Any] = {"metadata": {}}
    if action in ("taint", "untaint"):
        patch["metadata"]["resourceVersion"] = meta["resourceVersion"]
    if action == "label":
        key, val = parse_label(value)
        if key in labels and labels[key] != val and not overwrite:
            raise InputError(
                _("'%(key)s' already has a value (%(value)s), and --overwrite is false")
                % {"key": key, "value": labels[key]}
            )
        patch["metadata"]["labels"] = {key: val}
    elif action == "unlabel":
        key = value.strip().removesuffix("-")
        if not key:
            raise InputError(_("name the label to remove, e.g. disktype"))
        if key not in labels:
            # kubectl warns and carries on without a change.
            raise InputError(
                _('label "%(key)s" not found') % {"key": key}, [f'label "{key}" not found.', f"node/{name} not labeled"]
            )
        patch["metadata"]["labels"] = {key: None}
    elif action == "taint":
        taint = parse_taint(value)
        same = [t for t in taints if (t.get("key"), t.get("effect")) == (taint["key"], taint["effect"])]
        if same and not overwrite:
            raise InputError(
                _("node %(name)s already has %(key)s taint(s) with same effect(s) and --overwrite is false")
                % {"name": name, "key": taint["key"]}
            )
        patch["spec"] = {"taints": [t for t in taints if t not in same] + [taint]}
    elif action == "untaint":
        # kubectl taint node NAME key:Effect- (one effect) or key- (every effect of that key).
        key, _sep, effect = value.strip().removesuffix("-").partition(":")
        kept = [t for t in taints if not (t.get("key") == key.strip() and (not effect or t.get("effect") == effect))]
        if not key.strip() or len(kept) == len(taints):
            raise InputError(_('taint "%(taint)s" not found') % {"taint": value.strip()})
        patch["spec"] = {"taints": kept or None}
    elif action in ("cordon", "uncordon"):
        patch["spec"] = {"unschedulable": True if action == "cordon" else None}
    elif action in ("stop", "start"):
        patch["metadata"]["annotations"] = {KUBELET_ANNOTATION: "stopped" if action == "stop" else "running"}
    else:
        raise InputError(_("unknown action %(action)s") % {"action": action})
    return patch, f"node/{name} {NODE_DONE[action]}"


def node_command(name: str, action: str, value: str, overwrite: bool) -> str:
    """The kubectl command a node card's button stands for."""
    value = value.strip()
    flags = ["--overwrite"] if overwrite else []
    if action in ("label", "taint"):
        return kubectl.command(action, "node", name, value, *flags)
    if action in ("unlabel", "untaint"):
        return kubectl.command(action.removeprefix("un"), "node", name, value.removesuffix("-") + "-")
    if action in ("stop", "start"):
        state = "stopped" if action == "stop" else "running"
        return kubectl.command("annotate", "node", name, f"{KUBELET_ANNOTATION}={state}", "--overwrite")
    if action == "delete":
        return kubectl.command("delete", "node", name)
    return kubectl.command(action, name)


@require_POST
async def node_action(request: HttpRequest, cluster: str, name: str) -> HttpResponse:
    """A node card's buttons: kubectl label / taint / cordon / uncordon / delete, and the kubelet switch."""
    client = Client(cluster, "dashboard")
    action, value = request.POST.get("action", ""), request.POST.get("value", "")
    overwrite = bool(request.POST.get("overwrite"))

    async def work() -> Reply:
        if action == "delete":
            await client.delete("nodes", name)
            return kubectl.answered(f'node "{name}" deleted', _("node removed"))
        node = await client.get("nodes", name)
        patch, line = node_patch(node, action, value, overwrite)
        await client.patch("nodes", name, patch)
        meaning = node_meaning(action, name)
        # kubectl compares the labels before and after: a value set again is "not labeled".
        if action == "label" and parse_label(value) in (node["metadata"].get("labels") or {}).items():
            line = f"node/{name} not labeled"
        # kubectl only says it annotated the node: the page says what that did to the kubelet.
        return kubectl.answered(line, meaning, meaning if action in ("stop", "start") else "")

    return await kubectl.run(request, cluster, node_command(name, action, value, overwrite), attempt(work))


def next_node(nodes: list[dict[str, Any]]) -> tuple[str, int]:
    """A free ``nodeNN`` name and a free index (the node's pod CIDR and IP) for a node added to ``nodes``."""
    names = {n["metadata"]["name"] for n in nodes}
    used = {int(m.group(1)) for n in nodes if (m := _POD_CIDR.fullmatch(str((n.get("spec") or {}).get("podCIDR"))))}
    index = max(used | {len(nodes)}) + 1
    number = 1
    while f"node{number:02d}" in names:
        number += 1
    return f"node{number:02d}", index


@require_POST
async def add_node(request: HttpRequest, cluster: str) -> HttpResponse:
    """Register a new Ready node, as its kubelet would on joining the cluster (``kubectl create -f``)."""
    client = Client(cluster, "dashboard")
    try:
        nodes = (await client.list("nodes"))["items"]
    except errors.StatusError as exc:
        return flash(request, error=refused(exc.message))
    name, index = next_node(nodes)
    name = request.POST.get("name", "").strip() or name
    body = node_object(
        name, index, request.POST.get("cpu", "").strip() or "4", request.POST.get("memory", "").strip() or "8Gi"
    )

    async def work() -> Reply:
        await client.create(body)
        return kubectl.answered(f"node/{name} created", _("node added"))

    return await kubectl.run(request, cluster, kubectl.command("create", "-f", f"{name}.yaml"), attempt(work))


def workload_command(plural: str, namespace: str, name: str, data: dict[str, str]) -> str:
    """The kubectl command of a workload's form: ``kubectl scale`` or ``kubectl set image``."""
    target = f"{WORKLOADS[plural].split('.')[0]}/{name}"
    where = kubectl.namespace_flag(namespace)
    if data.get("action") == "scale":
        return kubectl.command("scale", target, f"--replicas={data.get('replicas', '')}", *where)
    if data.get("action") == "load":
        load = data.get("load", "").strip()
        value = f"{LOAD_ANNOTATION}={load}" if load else f"{LOAD_ANNOTATION}-"
        return kubectl.command("annotate", target, value, "--overwrite", *where)
    if data.get("action") == "image":
        return kubectl.command("set", "image", target, f"{data.get('container', '')}={data.get('image', '').strip()}",
                               *where)
    return kubectl.command(data.get("action", ""), target, *where)


@require_POST
async def workload_action(request: HttpRequest, cluster: str, plural: str, namespace: str, name: str) -> HttpResponse:
    """Scale a workload (``kubectl scale``) or change a container's image (``kubectl set image``)."""
    noun = WORKLOADS.get(plural)
    if noun is None:
        return flash(request, error=_("only Deployments, ReplicaSets, ReplicationControllers and StatefulSets can be scaled"))
    client = Client(cluster, "dashboard")
    data = {key: request.POST.get(key, "") for key in ("action", "replicas", "container", "image", "load")}

    async def work() -> Reply:
        if data["action"] == "scale":
            try:
                replicas = int(data["replicas"])
            except ValueError:
                raise InputError(_("the number of replicas must be a whole number")) from None
            await client.patch(plural, name, {"spec": {"replicas": replicas}}, namespace, sub="scale")
            return kubectl.answered(f"{noun}/{name} scaled", _("replica count changed"))
        if data["action"] == "load":
            return await _set_load(client, plural, namespace, name, noun, data["load"].strip())
        if data["action"] == "image":
            container = data["container"]
            workload = await client.get(plural, name, namespace)
            containers = workload["spec"]["template"]["spec"]["containers"]
            if container not in {c.get("name") for c in containers}:
                raise InputError(_('unable to find container named "%(container)s"') % {"container": container})
            # A strategic merge patch keyed by container name, what kubectl set image sends;
            # for a Deployment it starts a rolling update.
            image = {"name": container, "image": data["image"].strip()}
            patch = {"spec": {"template": {"spec": {"containers": [image]}}}}
            await client.patch(plural, name, patch, namespace, patch_type="strategic")
            return kubectl.answered(f"{noun}/{name} image updated", _("image changed"))
        raise InputError(_("unknown action %(action)s") % {"action": data["action"]})

    return await kubectl.run(request, cluster, workload_command(plural, namespace, name, data), attempt(work))


async def _set_load(client: Client, plural: str, namespace: str, name: str, noun: str, load: str) -> Reply:
    """``kubectl annotate ... clusterviz.io/load=<cpu>``: the CPU the workload's Pods use together (empty: idle)."""
    if load:
        try:
            parse_quantity(load)
        except QuantityError:
            raise InputError(_("the load must be an amount of CPU, such as 500m or 2")) from None
    # A merge patch: null removes the annotation, as kubectl annotate key- does.
    patch = {"metadata": {"annotations": {LOAD_ANNOTATION: load or None}}}
    await client.patch(plural, name, patch, namespace)
    return kubectl.answered(f"{noun}/{name} annotated", _("load changed"))


@require_POST
async def delete_pod(request: HttpRequest, cluster: str, namespace: str, name: str) -> HttpResponse:
    """``kubectl delete pod``: its controller, if it has one, replaces it."""

    async def work() -> Reply:
        await Client(cluster, "dashboard").delete("pods", name, namespace)
        return kubectl.answered(f'pod "{name}" deleted', _("Pod deleted"))

    line = kubectl.command("delete", "pod", name, *kubectl.namespace_flag(namespace))
    return await kubectl.run(request, cluster, line, attempt(work))
