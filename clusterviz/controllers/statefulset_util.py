"""Pure helpers of the StatefulSet controller, after pkg/controller/statefulset/stateful_set_utils.go.

A StatefulSet's Pods are named ``<set>-<ordinal>``; each carries its
identity (the pod-name and pod-index labels, ``hostname`` = its name and
``subdomain`` = the set's serviceName, which with a headless Service gives it
the DNS name ``<pod>.<service>.<namespace>.svc.cluster.local``) and the name
of the ControllerRevision it was made from in ``controller-revision-hash``.
"""

from __future__ import annotations

import re
from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy

from .daemonset_util import HASH_LABEL
from .pod_control import pod_from_template
from .util import Obj, deleting, int_field, is_pod_ready, labels_of, meta, spec, status

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
_ORDINAL_NAME = re.compile(r"^(.*)-([0-9]+)$")


def parent_and_ordinal(pod: Obj) -> tuple[str, int]:
    """getParentNameAndOrdinal: (set name, ordinal) from ``<set>-<ordinal>``, ("", -1) for other names."""
    match = _ORDINAL_NAME.match(str(meta(pod).get("name") or ""))
    if match is None:
        return "", -1
    return match.group(1), int(match.group(2))


def ordinal_of(pod: Obj) -> int:
    """The Pod's ordinal (-1 when its name has none)."""
    return parent_and_ordinal(pod)[1]


def is_member_of(sts: Obj, pod: Obj) -> bool:
    """isMemberOf: the Pod's name says it belongs to this set."""
    return parent_and_ordinal(pod)[0] == meta(sts).get("name")


def start_ordinal(sts: Obj) -> int:
    """spec.ordinals.start (0 by default)."""
    ordinals = spec(sts).get("ordinals")
    return int_field(ordinals, "start") if isinstance(ordinals, dict) else 0


def pod_name(sts: Obj, ordinal: int) -> str:
    """getPodName: ``<set>-<ordinal>``."""
    return f"{meta(sts).get('name')}-{ordinal}"


def revision_of_pod(pod: Obj) -> str:
    """getPodRevision: the ControllerRevision name the Pod was made from."""
    return labels_of(pod).get(HASH_LABEL, "")


def identity_matches(sts: Obj, pod: Obj) -> bool:
    """identityMatches: name, namespace, identity labels, hostname and subdomain are the set's for the ordinal."""
    parent, ordinal = parent_and_ordinal(pod)
    name = str(meta(pod).get("name") or "")
    pod_labels = labels_of(pod)
    return (
        ordinal >= 0
        and parent == meta(sts).get("name")
        and meta(pod).get("namespace") == meta(sts).get("namespace")
        and pod_labels.get(POD_NAME_LABEL) == name
        and pod_labels.get(POD_INDEX_LABEL) == str(ordinal)
        and spec(pod).get("hostname") == name
        and (spec(pod).get("subdomain") or "") == (spec(sts).get("serviceName") or "")
    )


def set_identity(sts: Obj, pod: Obj) -> None:
    """updateIdentity: give the Pod its identity labels, hostname and subdomain (in place)."""
    name = str(meta(pod).get("name") or "")
    pod_meta = pod.setdefault("metadata", {})
    pod_labels = pod_meta.get("labels")
    if not isinstance(pod_labels, dict):
        pod_labels = pod_meta["labels"] = {}
    pod_labels[POD_NAME_LABEL] = name
    pod_labels[POD_INDEX_LABEL] = str(ordinal_of(pod))
    pod_spec = pod.setdefault("spec", {})
    pod_spec["hostname"] = name
    service = spec(sts).get("serviceName")
    if service:
        pod_spec["subdomain"] = service
    else:
        pod_spec.pop("subdomain", None)


def template_of_revision(revision: Obj) -> dict[str, Any]:
    """The Pod template a ControllerRevision holds (its patch's template, without the patch directive)."""
    data = revision.get("data")
    template = ((data or {}).get("spec") or {}).get("template") if isinstance(data, dict) else None
    if not isinstance(template, dict):
        return {}
    template = deep_copy(template)
    template.pop("$patch", None)
    template_meta = template.get("metadata")
    if isinstance(template_meta, dict) and template_meta.get("creationTimestamp") is None:
        template_meta.pop("creationTimestamp", None)
    return template


def uses_current_revision(sts: Obj, ordinal: int) -> bool:
    """newVersionedStatefulSetPod's choice: a RollingUpdate keeps ordinals below the partition (or, without
    rollingUpdate, below the current replica count) on the current revision."""
    strategy = spec(sts).get("updateStrategy") or {}
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return False
    rolling = strategy.get("rollingUpdate")
    start = start_ordinal(sts)
    if not isinstance(rolling, dict):
        return ordinal < start + int_field(status(sts), "currentReplicas")
    return ordinal < start + int_field(rolling, "partition")


def new_pod(sts: Obj, revision: Obj, ordinal: int) -> Obj:
    """newStatefulSetPod: the revision's template as the Pod ``<set>-<ordinal>``, with its identity and revision."""
    owner = deep_copy(sts)
    owner.setdefault("spec", {})["template"] = template_of_revision(revision)
    name = pod_name(sts, ordinal)
    pod = pod_from_template(owner, name, f"{meta(sts).get('name')}-")
    set_identity(sts, pod)
    pod["metadata"]["labels"][HASH_LABEL] = str(meta(revision).get("name") or "")
    return pod


def is_created(pod: Obj) -> bool:
    """isCreated: the API server has the Pod (it has a phase)."""
    return bool(status(pod).get("phase"))


def is_finished(pod: Obj) -> bool:
    """The Pod failed or succeeded, so it must be made again."""
    return status(pod).get("phase") in ("Failed", "Succeeded")


def is_running_and_ready(pod: Obj) -> bool:
    """isRunningAndReady: phase Running and the Ready condition True."""
    return status(pod).get("phase") == "Running" and is_pod_ready(pod)


def is_healthy(pod: Obj) -> bool:
    """isHealthy: running and ready, and not being deleted."""
    return is_running_and_ready(pod) and not deleting(pod)


def rollout_complete(counts: dict[str, int], rolling: bool) -> bool:
    """completeRollingUpdate's test: every Pod is updated and ready."""
    return rolling and counts["updatedReplicas"] == counts["replicas"] == counts["readyReplicas"]
