"""Putting a lesson's cluster in place, and doing its actions as kubectl would.

``load`` resets the cluster to the lesson's start (its nodes, fillers and timings)
without hops of its own, waits until the components have caught up, clears the
Events and leaves the simulation in step mode. ``run`` performs one action with
the client name ``kubectl``, so it is hop 1 on the bus and, in step mode, waits
for its hops like a real ``kubectl`` does.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils import translation

from clusterviz.api import codec, errors, resources
from clusterviz.api.bootstrap import node_object
from clusterviz.api.client import Client, find_resource, path_for
from clusterviz.api.cluster_ca import ROOT_CA_CONFIG_MAP
from clusterviz.api.component import SimSettings
from clusterviz.api.metrics import LOAD_ANNOTATION
from clusterviz.controllers.util import controller_ref, new_controller_ref
from clusterviz.kubelet import images
from clusterviz.sim import registry
from clusterviz.sim.api_group import TIMINGS
from clusterviz.web.actions import InputError, node_patch

from .script import DEFAULT_NODES, SUSPEND_PATCH, Action, Lesson, NodeSpec

KUBECTL = "kubectl"
# What kubectl create job --from=cronjob/<name> marks its Job with.
INSTANTIATE_ANNOTATION = "cronjob.kubernetes.io/instantiate"
NAMESPACE = "default"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# What a reset removes (in every namespace); what every cluster has of its own stays (see _kept).
WORKLOADS = ("horizontalpodautoscalers", "poddisruptionbudgets", "cronjobs", "jobs", "deployments", "replicasets", "replicationcontrollers", "daemonsets", "statefulsets", "controllerrevisions",
             "services", "endpoints", "configmaps", "secrets", "serviceaccounts", "pods", "events", "schedulingdecisions",
             "priorityclasses", "persistentvolumeclaims", "persistentvolumes")
# The node actions of a script, as the page's node actions name them.
NODE_ACTIONS = {"label": "label", "unlabel": "unlabel", "taint": "taint", "untaint": "untaint",
                "cordon": "cordon", "uncordon": "uncordon", "stop-kubelet": "stop", "start-kubelet": "start"}
# kubectl drain tries an eviction its PodDisruptionBudget refused again after 5 s; here it gives up after 5 minutes.
EVICTION_RETRY_SECONDS = 5.0
EVICTION_ATTEMPTS = 60
# When another process runs the engine, quiet is seen through the simulations API: polled in wall-clock time.
SETTLE_POLL_SECONDS = 0.5
SETTLE_POLLS = 60


@dataclass(frozen=True)
class Outcome:
    """What kubectl would have printed for an action, and whether it succeeded."""

    ok: bool
    message: str
    kubectl: str


def _timings(lesson: Lesson) -> dict[str, float]:
    """Every timing field of ``simulations/default``: the lesson's own, the defaults for the rest."""
    defaults = SimSettings()
    timings = {name: float(getattr(defaults, attr)) for name, attr in TIMINGS.items() if name != "seed"}
    return {**timings, **lesson.timings}


def _node_body(spec: NodeSpec, index: int) -> dict[str, Any]:
    """The Node a lesson's node registers as, with the images already on its disk in ``status.images``."""
    body = node_object(spec.name, index, spec.cpu, spec.memory, labels=dict(spec.labels))
    if spec.taints:
        body["spec"]["taints"] = [dict(t) for t in spec.taints]
    # The names a kubelet reports for a pulled image: by digest, fully qualified, and as the Pod spelled it.
    body["status"]["images"] = [
        {"names": [images.image_id(ref), images.parse(ref).qualified, images.normalized_name(ref)],
         "sizeBytes": images.size_bytes(ref)}
        for ref in spec.images
    ]
    return body


async def _settle(cluster: str) -> None:
    """Wait until the cluster's components have caught up with every write and nothing is left to deliver."""
    running = await registry.ensure(cluster)
    if running is not None:
        # Writes made without hops reach the components through the gate's tailer; hand them over now.
        async with running.engine.activity():
            await running.gate.catch_up()
        await running.engine.until_settled()
        return
    if not await registry.runs_elsewhere(cluster):
        return  # no engine anywhere: nothing reacts, so there is nothing to wait for
    client = Client(cluster, "dashboard", simulated=False)
    last = -1
    for _ in range(SETTLE_POLLS):
        status = (await client.get("simulations", "default"))["status"]
        if status["lastSeq"] == last and not status["pending"]:
            return
        last = status["lastSeq"]
        await asyncio.sleep(SETTLE_POLL_SECONDS)  # wall-clock: another process's engine saves its trace


def _kept(plural: str, meta: dict[str, Any]) -> bool:
    """The API server's Service "kubernetes", each namespace's default ServiceAccount and CA ConfigMap, and the
    system priority classes."""
    if plural == "priorityclasses":
        return meta["name"].startswith("system-")
    if plural in ("services", "endpoints"):
        return (meta.get("namespace"), meta["name"]) == ("default", "kubernetes")
    return (plural, meta["name"]) in (("serviceaccounts", "default"), ("configmaps", ROOT_CA_CONFIG_MAP))


async def _delete_all(client: Client, plural: str) -> None:
    for item in (await client.list(plural))["items"]:
        meta = item["metadata"]
        if _kept(plural, meta):
            continue
        try:
            await client.delete(plural, meta["name"], meta.get("namespace", ""), {"gracePeriodSeconds": 0})
        except errors.StatusError as exc:
            if exc.code != 404:
                raise


async def _replace(cluster: str, nodes: tuple[NodeSpec, ...], fillers: tuple[Mapping[str, Any], ...]) -> None:
    """Remove every workload and node, then register ``nodes`` and create ``fillers`` (fast-forward)."""
    client = Client(cluster, "dashboard", simulated=False)
    for plural in WORKLOADS:
        await _delete_all(client, plural)
    await _delete_all(client, "nodes")
    # The kubelets go with their nodes before new ones register, so no image cache outlives its node.
    await _settle(cluster)
    for index, spec in enumerate(nodes, start=1):
        await client.create(_node_body(spec, index))
    for filler in fillers:
        await client.create(dict(filler))
    await _settle(cluster)


async def reset(cluster: str, nodes: tuple[NodeSpec, ...] = DEFAULT_NODES,
                fillers: tuple[Mapping[str, Any], ...] = ()) -> None:
    """Remove every workload and node of ``cluster`` and register ``nodes`` afresh; the mode is kept."""
    client = Client(cluster, "dashboard", simulated=False)
    mode = (await client.get("simulations", "default"))["spec"]["mode"]
    # Fast-forward so that the components catch up with the deletions at once.
    await client.patch("simulations", "default", {"spec": {"mode": "fast-forward"}})
    await _replace(cluster, nodes, fillers)
    await client.patch("simulations", "default", {"spec": {"mode": mode}})


async def load(cluster: str, lesson: Lesson) -> int:
    """Reset the cluster to the lesson's start (nodes, fillers, timings), wait until the components have
    caught up (fast-forward until quiet), clear the previous lesson's Events, leave the simulation in step
    mode, and return the trace's lastSeq at that moment: the lesson's story starts after it (the reset is
    not part of the story).

    It does NOT apply the manifest: the first step's "apply" action does, so the class sees hops 1-3.
    """
    client = Client(cluster, "dashboard", simulated=False)
    await client.patch("simulations", "default", {"spec": {"mode": "fast-forward", **_timings(lesson)}})
    # A CronJob's next scheduled time keeps fast-forward going for ever, so it goes before the cluster can settle.
    await _delete_all(client, "cronjobs")
    # Whatever the previous lesson left on its way (a write waiting for its steps) finishes first.
    await _settle(cluster)
    await _replace(cluster, lesson.nodes, lesson.fillers)
    await _delete_all(client, "events")
    await _settle(cluster)
    simulation = await client.patch("simulations", "default", {"spec": {"mode": "step"}})
    return int(simulation["status"]["lastSeq"])


async def run(cluster: str, action: Action, manifest: str = "") -> Outcome:
    """Do the action through the API client as kubectl would (client name "kubectl", so it is hop 1 on the
    bus; in step mode this awaits until its hops are stepped — callers run it as a background task).

    The Outcome's message is kubectl's own wording ('deployment.apps/myapp created', 'node/node02 labeled')
    or the API's error as kubectl prints it. An apply of the action's own file applies that, not ``manifest``.
    """
    command = action.kubectl()
    client = Client(cluster, KUBECTL)
    try:
        # kubectl speaks English whatever the page's language.
        with translation.override("en"):
            message = await _perform(client, action, action.manifest or manifest)
    except errors.StatusError as exc:
        return Outcome(False, f"Error from server ({exc.reason}): {exc.message}", command)
    except InputError as exc:
        return Outcome(False, f"error: {exc}", command)
    return Outcome(True, message, command)


async def _perform(client: Client, action: Action, manifest: str) -> str:
    if action.kind == "apply":
        return await _apply(client, manifest)
    if action.kind in NODE_ACTIONS:
        node = await client.get("nodes", action.node)
        overwrite = action.kind in ("stop-kubelet", "start-kubelet")
        patch, done = node_patch(node, NODE_ACTIONS[action.kind], action.value, overwrite)
        # kubectl sends no resourceVersion precondition: in step mode the node may well change (a heartbeat,
        # the node controller) while the class steps through this write's hops.
        patch["metadata"].pop("resourceVersion", None)
        await client.patch("nodes", action.node, patch)
        # kubectl annotate says so, whatever the annotation means to clusterviz.
        return f"node/{action.node} annotated" if overwrite else done
    if action.kind == "delete-pod":
        name = action.target.removeprefix("pod/")
        await client.delete("pods", name, NAMESPACE)
        return f'pod "{name}" deleted'
    if action.kind == "drain":
        return await _drain(client, action.node)
    resource, name = _workload(action.target)
    if action.kind == "scale":
        try:
            replicas = int(action.value)
        except ValueError:
            raise InputError(f'invalid argument "{action.value}" for "--replicas" flag') from None
        await client.patch(resource.key, name, {"spec": {"replicas": replicas}}, NAMESPACE, sub="scale")
        return f"{resource.noun}/{name} scaled"
    if action.kind == "set-image":
        container, _sep, image = action.value.partition("=")
        workload = await client.get(resource.key, name, NAMESPACE)
        if container not in {c.get("name") for c in workload["spec"]["template"]["spec"]["containers"]}:
            raise InputError(f'unable to find container named "{container}"')
        # A strategic merge patch keyed by container name, what kubectl set image sends.
        patch = {"spec": {"template": {"spec": {"containers": [{"name": container, "image": image}]}}}}
        await client.patch(resource.key, name, patch, NAMESPACE, patch_type="strategic")
        return f"{resource.noun}/{name} image updated"
    if action.kind == "suspend":
        await client.patch(resource.key, name, json.loads(SUSPEND_PATCH), NAMESPACE, patch_type="strategic")
        return f"{resource.noun}/{name} patched"
    if action.kind == "create-job":
        return await _job_from(client, resource, name, action.value)
    if action.kind == "set-load":
        await client.patch(resource.key, name, {"metadata": {"annotations": {LOAD_ANNOTATION: action.value}}}, NAMESPACE)
        return f"{resource.noun}/{name} annotated"
    if action.kind == "annotate":
        key, sep, value = action.value.partition("=")
        if not sep and not key.endswith("-"):
            raise InputError(f"invalid annotation format: {action.value}")
        # A merge patch: null removes the annotation, as kubectl annotate KEY- sends it.
        change = {key.removesuffix("-"): value if sep else None}
        await client.patch(resource.key, name, {"metadata": {"annotations": change}}, NAMESPACE)
        return f"{resource.noun}/{name} annotated"
    raise InputError(f"unknown action {action.kind}")


async def _drain(client: Client, node: str) -> str:
    """``kubectl drain NODE --ignore-daemonsets``: cordon, then evict each of its Pods through ``pods/eviction``;
    an eviction its PodDisruptionBudget refuses (429) is tried again, so the drain waits for the budget."""
    current = await client.get("nodes", node)
    lines = [f"node/{node} already cordoned" if (current.get("spec") or {}).get("unschedulable") else f"node/{node} cordoned"]
    await client.patch("nodes", node, {"spec": {"unschedulable": True}})
    on_node = (await client.list("pods", field_selector=f"spec.nodeName={node}"))["items"]
    daemons = [p for p in on_node if (controller_ref(p) or {}).get("kind") == "DaemonSet"]
    evicted = [p for p in on_node if p not in daemons]
    if daemons:
        names = ", ".join(f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in daemons)
        lines.append(f"Warning: ignoring DaemonSet-managed Pods: {names}")
    lines += [f"evicting pod {p['metadata']['namespace']}/{p['metadata']['name']}" for p in evicted]
    for pod in evicted:
        namespace, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": namespace}}
        for _attempt in range(EVICTION_ATTEMPTS):
            try:
                await client.request("POST", path_for(find_resource("pods"), namespace, name, "eviction"), payload=eviction)
            except errors.StatusError as exc:
                if exc.code == 404:
                    break  # gone already
                if exc.code != 429:
                    raise
                lines.append(f'error when evicting pods/"{name}" -n "{namespace}" (will retry after 5s): {exc.message}')
                await asyncio.sleep(EVICTION_RETRY_SECONDS)  # wall-clock: kubectl waits in real time
                continue
            break
        else:
            raise InputError(f'unable to drain node "{node}" due to error: error when evicting pods/"{name}" -n '
                             f'"{namespace}": global timeout reached: 5m0s')
        lines.append(f"pod/{name} evicted")
    lines.append(f"node/{node} drained")
    return "\n".join(lines)


async def _job_from(client: Client, resource: resources.Resource, name: str, job: str) -> str:
    """``kubectl create job <job> --from=cronjob/<name>``: the CronJob's job template, run now, owned by it."""
    if resource.kind != "CronJob":
        raise InputError(f"from must be an existing cronjob: {resource.singular}")
    cron_job = await client.get(resource.key, name, NAMESPACE)
    template = cron_job["spec"].get("jobTemplate") or {}
    template_meta = template.get("metadata") or {}
    job_meta: dict[str, Any] = {
        "name": job,
        "annotations": {INSTANTIATE_ANNOTATION: "manual", **(template_meta.get("annotations") or {})},
        "ownerReferences": [new_controller_ref(cron_job)],
    }
    if template_meta.get("labels"):
        job_meta["labels"] = template_meta["labels"]
    await client.create({"apiVersion": "batch/v1", "kind": "Job", "metadata": job_meta,
                         "spec": template.get("spec") or {}}, NAMESPACE)
    return f"job.batch/{job} created"


def _workload(target: str) -> tuple[resources.Resource, str]:
    """``deployment/myapp`` or ``rc/mysql`` as kubectl resolves the type: plural, singular or short name."""
    type_name, _sep, name = target.partition("/")
    for resource in resources.RESOURCES:
        if type_name in (resource.plural, resource.singular, *resource.short_names):
            return resource, name
    raise InputError(f'the server doesn\'t have a resource type "{type_name}"')


async def _apply(client: Client, manifest: str) -> str:
    """``kubectl apply -f``: create what is missing (recording the last applied configuration), patch the rest."""
    lines = []
    for doc in codec.parse_yaml(manifest, multi=True):
        resource = await client.resource_of(doc)
        meta = doc.get("metadata") or {}
        name = meta.get("name", "")
        namespace = meta.get("namespace") or (NAMESPACE if resource.namespaced else "")
        applied = json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n"
        body = {**doc, "metadata": {**meta, "annotations": {**(meta.get("annotations") or {}), LAST_APPLIED: applied}}}
        existing = await client.get_or_none(resource.key, name, namespace)
        if existing is None:
            await client.create(body, namespace)
            lines.append(f"{resource.noun}/{name} created")
        elif ((existing["metadata"].get("annotations") or {}).get(LAST_APPLIED)) == applied:
            lines.append(f"{resource.noun}/{name} unchanged")
        else:
            # kubectl sends a custom kind a JSON merge patch: it has no patch strategies.
            built_in = resources.lookup(resource.group, resource.version, resource.plural) is not None
            patch_type = "strategic" if built_in else "merge"
            await client.patch(resource.key, name, body, namespace, patch_type=patch_type)
            lines.append(f"{resource.noun}/{name} configured")
    return "\n".join(lines)
