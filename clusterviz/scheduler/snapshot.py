"""The scheduler's view of the cluster, kept up to date incrementally.

Upstream keeps a cache fed by informers and copies a snapshot from it at the
start of every cycle. clusterviz keeps one :class:`Snapshot` that a list-watch
informer updates object by object (``add_node``, ``update_pod``, ...); nothing
is rebuilt per Pod. ``generation`` increases on every change, so a caller can
tell whether anything moved since it last looked.

Besides Nodes and bound Pods it holds what a few plugins need: namespace labels
(pod affinity ``namespaceSelector``), the Services / ReplicationControllers /
ReplicaSets / StatefulSets that give PodTopologySpread its default selector,
and the storage objects the volume plugins judge: PersistentVolumeClaims,
PersistentVolumes, StorageClasses and CSINodes.
"""

from __future__ import annotations

import builtins
import copy
from collections import ChainMap, Counter
from collections.abc import Hashable, Iterable, Mapping, MutableMapping
from typing import Any

from clusterviz.scheduler.nodeinfo import ImageStateSummary, NodeInfo, PodInfo, ScoreTerm, as_pod_info
from clusterviz.scheduler.nodetable import NodeTable

WORKLOAD_KINDS = ("Service", "ReplicationController", "ReplicaSet", "StatefulSet", "PodDisruptionBudget")
_TERMINAL_PHASES = ("Succeeded", "Failed")


def _name(obj: Mapping[str, Any]) -> str:
    return (obj.get("metadata") or {}).get("name") or ""


def _namespace(obj: Mapping[str, Any]) -> str:
    return (obj.get("metadata") or {}).get("namespace") or "default"


class ImageIndex:
    """Cluster-wide image bookkeeping: name -> (size first reported, set of nodes holding it)."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[int, set[str]]] = {}

    def add_node(self, node_name: str, images: Mapping[str, int]) -> None:
        """Register the images a node reports."""
        for name, size in images.items():
            entry = self._entries.get(name)
            if entry is None:
                self._entries[name] = (size, {node_name})
            else:
                entry[1].add(node_name)

    def remove_node(self, node_name: str, images: Iterable[str]) -> None:
        """Forget a node's images; an image no node holds disappears."""
        for name in images:
            entry = self._entries.get(name)
            if entry is None:
                continue
            entry[1].discard(node_name)
            if not entry[1]:
                del self._entries[name]

    def summary(self, name: str) -> ImageStateSummary | None:
        """The size and node count of one image name, or None."""
        entry = self._entries.get(name)
        return None if entry is None else ImageStateSummary(entry[0], len(entry[1]))


class PodIndex:
    """Cluster-wide tallies of the counted Pods: their (namespace, labels) groups and placed scoring terms.

    InterPodAffinity looks up which groups and terms exist here, then reads their
    per-node counts from the :class:`NodeTable`; ``with_required_anti_affinity``
    and ``with_affinity`` let it skip at once when no placed Pod has any rule.
    """

    def __init__(self) -> None:
        self.groups: Counter[Hashable] = Counter()
        self.representatives: dict[Hashable, PodInfo] = {}
        self.score_terms: Counter[ScoreTerm] = Counter()
        self.with_affinity = 0
        self.with_required_anti_affinity = 0
        # Terminating Pods sit in the groups too; PodTopologySpread must not count them.
        self.terminating = 0

    def add(self, pod: PodInfo) -> None:
        """Count a Pod."""
        self.groups[pod.group] += 1
        self.representatives.setdefault(pod.group, pod)
        for term in pod.score_terms:
            self.score_terms[term] += 1
        self.with_affinity += pod.has_affinity
        self.with_required_anti_affinity += bool(pod.required_anti_affinity_terms)
        self.terminating += pod.terminating

    def remove(self, pod: PodInfo) -> None:
        """Stop counting a Pod."""
        self.groups[pod.group] -= 1
        if self.groups[pod.group] <= 0:
            del self.groups[pod.group]
            self.representatives.pop(pod.group, None)
        for term in pod.score_terms:
            self.score_terms[term] -= 1
            if self.score_terms[term] <= 0:
                del self.score_terms[term]
        self.with_affinity -= pod.has_affinity
        self.with_required_anti_affinity -= bool(pod.required_anti_affinity_terms)
        self.terminating -= pod.terminating


class Snapshot:
    """NodeInfos by name plus the side objects plugins consult; updated in place."""

    def __init__(self) -> None:
        self._nodes: MutableMapping[str, NodeInfo] = {}
        self._sorted: list[NodeInfo] | None = None
        self._table: NodeTable | None = None
        self._pod_node: dict[str, str] = {}
        # Pods bound to a node the informer has not delivered yet (upstream keeps
        # them in a NodeInfo without a Node and leaves that out of the snapshot).
        self._orphans: dict[str, dict[str, PodInfo]] = {}
        self.images = ImageIndex()
        self.pods = PodIndex()
        self.namespaces: dict[str, Mapping[str, str]] = {}
        self.workloads: dict[str, dict[tuple[str, str], Mapping[str, Any]]] = {kind: {} for kind in WORKLOAD_KINDS}
        self.pvcs: dict[str, Mapping[str, Any]] = {}
        self.pvs: dict[str, Mapping[str, Any]] = {}
        self.storage_classes: dict[str, Mapping[str, Any]] = {}
        self.csinodes: dict[str, Mapping[str, Any]] = {}
        self.generation = 0

    # --- construction -----------------------------------------------------------------

    @classmethod
    def from_objects(
        cls,
        nodes: Iterable[Mapping[str, Any]] = (),
        pods: Iterable[Mapping[str, Any]] = (),
        namespaces: Iterable[Mapping[str, Any]] = (),
        workloads: Iterable[Mapping[str, Any]] = (),
        pvcs: Iterable[Mapping[str, Any]] = (),
        pvs: Iterable[Mapping[str, Any]] = (),
        storage_classes: Iterable[Mapping[str, Any]] = (),
        csinodes: Iterable[Mapping[str, Any]] = (),
    ) -> Snapshot:
        """Build a snapshot from lists of objects (what an initial LIST returns)."""
        snap = cls()
        for node in nodes:
            snap.add_node(node)
        for pod in pods:
            snap.add_pod(pod)
        for ns in namespaces:
            snap.add_namespace(ns)
        for obj in workloads:
            snap.add_workload(obj)
        for pvc in pvcs:
            snap.add_pvc(pvc)
        for pv in pvs:
            snap.add_pv(pv)
        for storage_class in storage_classes:
            snap.add_storage_class(storage_class)
        for csinode in csinodes:
            snap.add_csinode(csinode)
        return snap

    def _touch(self) -> None:
        self.generation += 1

    # --- nodes ------------------------------------------------------------------------

    def add_node(self, node: Mapping[str, Any]) -> NodeInfo:
        """Add a Node, or update it if already known."""
        name = _name(node)
        info = self._nodes.get(name)
        if info is not None:
            return self.update_node(node)
        info = NodeInfo(node, self.images)
        self.images.add_node(name, info.images)
        for pod in self._orphans.pop(name, {}).values():
            info.add_pod(pod)
        self._nodes[name] = info
        self._sorted = self._table = None
        self._touch()
        return info

    def update_node(self, node: Mapping[str, Any]) -> NodeInfo:
        """Replace a Node's object (labels, taints, allocatable, images); its Pods stay."""
        name = _name(node)
        info = self._nodes.get(name)
        if info is None:
            return self.add_node(node)
        # Most updates of a big cluster's nodes are status heartbeats: what the columns derived from every node
        # (label codes, taint groups, image presence) are built from stays as it was, and so do they.
        before = info.table_inputs
        self.images.remove_node(name, list(info.images))
        info.set_node(node)
        self.images.add_node(name, info.images)
        if self._table is not None:
            self._table.node_changed(name, derived=info.table_inputs != before)
        self._touch()
        return info

    def remove_node(self, node: Mapping[str, Any] | str) -> None:
        """Delete a Node; Pods still bound to it wait for the node's return (or their own deletion)."""
        name = node if isinstance(node, str) else _name(node)
        info = self._nodes.pop(name, None)
        if info is None:
            return
        self.images.remove_node(name, list(info.images))
        if info.pods:
            self._orphans[name] = dict(info.pods)
        self._sorted = self._table = None
        self._touch()

    def get(self, name: str) -> NodeInfo | None:
        """The NodeInfo of one node, or None."""
        return self._nodes.get(name)

    def list(self) -> list[NodeInfo]:
        """All NodeInfos, in node-name order (the order clusterviz evaluates and displays them)."""
        if self._sorted is None:
            self._sorted = [self._nodes[name] for name in sorted(self._nodes)]
        return self._sorted

    def table(self) -> NodeTable:
        """The nodes as a :class:`NodeTable` (rows in :meth:`list` order), kept current by every update."""
        if self._table is None:
            self._table = NodeTable(self.list())
        return self._table

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, name: object) -> bool:
        return name in self._nodes

    # --- pods -------------------------------------------------------------------------

    def add_pod(self, pod: Mapping[str, Any] | PodInfo) -> PodInfo | None:
        """Account for a Pod. Unbound and finished (Succeeded/Failed) Pods are not counted."""
        return self.update_pod(pod)

    def update_pod(self, pod: Mapping[str, Any] | PodInfo) -> PodInfo | None:
        """Add or move a Pod to the node its ``spec.nodeName`` names, or drop it if unbound/finished."""
        info = as_pod_info(pod)
        self._forget_pod(info.key)
        phase = (info.pod.get("status") or {}).get("phase")
        if not info.node_name or phase in _TERMINAL_PHASES:
            self._touch()
            return None
        node = self._nodes.get(info.node_name)
        if node is None:
            self._orphans.setdefault(info.node_name, {})[info.key] = info
        else:
            node.add_pod(info)
            self._refresh_row(info.node_name, info)
        self._pod_node[info.key] = info.node_name
        self.pods.add(info)
        self._touch()
        return info

    def remove_pod(self, pod: Mapping[str, Any] | PodInfo | str) -> None:
        """Forget a Pod given as object, PodInfo or ``namespace/name``."""
        if isinstance(pod, str):
            key = pod
        elif isinstance(pod, PodInfo):
            key = pod.key
        else:
            key = f"{_namespace(pod)}/{_name(pod)}"
        self._forget_pod(key)
        self._touch()

    def _forget_pod(self, key: str) -> None:
        node_name = self._pod_node.pop(key, None)
        if node_name is None:
            return
        node = self._nodes.get(node_name)
        if node is not None:
            info = node.remove_pod(key)
            self._refresh_row(node_name, info)
        else:
            info = self._orphans.get(node_name, {}).pop(key, None)
        if info is not None:
            self.pods.remove(info)

    def _refresh_row(self, node_name: str, pod: PodInfo | None) -> None:
        if self._table is not None:
            self._table.refresh(node_name, pod)

    def pod_node(self, key: str) -> str | None:
        """The node a Pod (``namespace/name``) is counted on, or None."""
        return self._pod_node.get(key)

    # --- namespaces, workloads, claims --------------------------------------------------

    def add_namespace(self, namespace: Mapping[str, Any]) -> None:
        """Add or update a Namespace (its labels feed ``namespaceSelector``)."""
        self.namespaces[_name(namespace)] = (namespace.get("metadata") or {}).get("labels") or {}
        self._touch()

    update_namespace = add_namespace

    def remove_namespace(self, namespace: Mapping[str, Any] | str) -> None:
        """Delete a Namespace."""
        self.namespaces.pop(namespace if isinstance(namespace, str) else _name(namespace), None)
        self._touch()

    def namespace_labels(self, namespace: str) -> Mapping[str, str]:
        """Labels of a namespace ({} when unknown, as upstream's lister miss gives no labels)."""
        return self.namespaces.get(namespace, {})

    def add_workload(self, obj: Mapping[str, Any], kind: str = "") -> None:
        """Add or update a Service, ReplicationController, ReplicaSet or StatefulSet.

        ``kind`` names it when the object lacks one (items of a LIST carry no ``kind``).
        """
        kind = kind or obj.get("kind") or ""
        if kind in self.workloads:
            self.workloads[kind][(_namespace(obj), _name(obj))] = obj
            self._touch()

    def remove_workload(self, obj: Mapping[str, Any], kind: str = "") -> None:
        """Forget a Service, ReplicationController, ReplicaSet or StatefulSet."""
        kind = kind or obj.get("kind") or ""
        if self.workloads.get(kind, {}).pop((_namespace(obj), _name(obj)), None) is not None:
            self._touch()

    def workload(self, kind: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        """Look up one workload object."""
        return self.workloads.get(kind, {}).get((namespace, name))

    def services(self, namespace: str) -> builtins.list[Mapping[str, Any]]:  # in here, "list" is the method
        """Services of a namespace, in name order."""
        return [svc for (ns, _), svc in sorted(self.workloads["Service"].items()) if ns == namespace]

    def add_pvc(self, pvc: Mapping[str, Any]) -> None:
        """Add or update a PersistentVolumeClaim."""
        self.pvcs[f"{_namespace(pvc)}/{_name(pvc)}"] = pvc
        self._touch()

    def remove_pvc(self, pvc: Mapping[str, Any]) -> None:
        """Forget a PersistentVolumeClaim."""
        self.pvcs.pop(f"{_namespace(pvc)}/{_name(pvc)}", None)
        self._touch()

    def add_pv(self, pv: Mapping[str, Any]) -> None:
        """Add or update a PersistentVolume (cluster-scoped, keyed by name)."""
        self.pvs[_name(pv)] = pv
        self._touch()

    def remove_pv(self, pv: Mapping[str, Any]) -> None:
        """Forget a PersistentVolume."""
        self.pvs.pop(_name(pv), None)
        self._touch()

    def add_storage_class(self, storage_class: Mapping[str, Any]) -> None:
        """Add or update a StorageClass."""
        self.storage_classes[_name(storage_class)] = storage_class
        self._touch()

    def remove_storage_class(self, storage_class: Mapping[str, Any]) -> None:
        """Forget a StorageClass."""
        self.storage_classes.pop(_name(storage_class), None)
        self._touch()

    def add_csinode(self, csinode: Mapping[str, Any]) -> None:
        """Add or update a CSINode (named after its Node)."""
        self.csinodes[_name(csinode)] = csinode
        self._touch()

    def remove_csinode(self, csinode: Mapping[str, Any]) -> None:
        """Forget a CSINode."""
        self.csinodes.pop(_name(csinode), None)
        self._touch()

    # --- views ------------------------------------------------------------------------

    def with_node(self, node_info: NodeInfo) -> Snapshot:
        """A view where one NodeInfo is replaced (preemption's what-if); the original is untouched."""
        view = copy.copy(self)
        # The one node in front of the shared map: a copy of a big cluster's map per what-if costs more than the
        # what-if itself.
        view._nodes = ChainMap({node_info.name: node_info}, self._nodes)
        view._sorted = view._table = None
        return view

    def node_changed_in_place(self, name: str) -> None:
        """A view's NodeInfo gained or lost Pods in place (preemption's what-ifs): refresh what derives from it."""
        self._refresh_row(name, None)
