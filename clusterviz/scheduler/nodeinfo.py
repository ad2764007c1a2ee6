"""Per-node aggregates the plugins read, after upstream's ``framework.NodeInfo``.

A :class:`NodeInfo` is built from a Node object (Kubernetes JSON) plus the Pods
bound to it. It keeps, incrementally: allocatable resources, the sum of the
Pods' requests as the filter sees them (``requested``) and as scoring sees them
(``non_zero_requested``, with 100m CPU / 200Mi memory for missing keys), the
host ports in use, the images on the node, PVC reference counts and each Pod's
parsed affinity terms (:class:`PodInfo`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from clusterviz.apimachinery.labels import Selector, SelectorError, aggregate, nothing, selector_from_label_selector

if TYPE_CHECKING:
    from clusterviz.scheduler.snapshot import ImageIndex

# pkg/scheduler/util/pod_resources.go: what scoring assumes for a container that
# leaves cpu or memory unset.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"
DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


@lru_cache(maxsize=4096)
def _parse(name: str, text: str) -> int:
    from clusterviz.apimachinery.quantity import QuantityError, parse_quantity

    try:
        quantity = parse_quantity(text)
    except QuantityError:
        return 0  # the API server rejects these; a stray one counts as nothing
    return quantity.milli_value() if name == CPU else quantity.value()


def quantity_to_int(name: str, value: Any) -> int:
    """Convert a resource quantity to the integer the scheduler uses: millicores for cpu, else units."""
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, int) and name != CPU:
        return value
    return _parse(name, str(value))


@dataclass
class Resource:
    """A resource vector: cpu in millicores, everything else in base units.

    ``scalar`` holds extended resources, hugepages and the like. Mutable, because
    NodeInfo keeps running sums; PodInfo's copies are never mutated.
    """

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, resources: Mapping[str, Any] | None) -> Resource:
        """Build from a ResourceList such as ``status.allocatable`` (quantity strings)."""
        out = cls()
        for name, value in (resources or {}).items():
            out.set(name, quantity_to_int(name, value))
        return out

    def get(self, name: str) -> int:
        """The amount of one named resource."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar.get(name, 0)

    def set(self, name: str, amount: int) -> None:
        """Set one named resource."""
        if name == CPU:
            self.milli_cpu = amount
        elif name == MEMORY:
            self.memory = amount
        elif name == EPHEMERAL_STORAGE:
            self.ephemeral_storage = amount
        elif name == PODS:
            self.allowed_pod_number = amount
        else:
            self.scalar[name] = amount

    def add(self, other: Resource, sign: int = 1) -> None:
        """Add (or with ``sign=-1`` subtract) another vector in place."""
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        self.allowed_pod_number += sign * other.allowed_pod_number
        for name, amount in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) + sign * amount

    def copy(self) -> Resource:
        """An independent copy."""
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pod_number, dict(self.scalar))


def _container_requests(container: Mapping[str, Any], non_zero: bool) -> dict[str, int]:
    raw = (container.get("resources") or {}).get("requests") or {}
    reqs = {name: quantity_to_int(name, value) for name, value in raw.items()}
    if non_zero:
        # Only a missing key gets the default; an explicit 0 stays 0.
        reqs.setdefault(CPU, DEFAULT_MILLI_CPU_REQUEST)
        reqs.setdefault(MEMORY, DEFAULT_MEMORY_REQUEST)
    return reqs


def _add_into(target: dict[str, int], extra: Mapping[str, int]) -> None:
    for name, amount in extra.items():
        target[name] = target.get(name, 0) + amount


def _max_into(target: dict[str, int], other: Mapping[str, int]) -> None:
    for name, amount in other.items():
        if amount > target.get(name, 0):
            target[name] = amount


def pod_requests(pod: Mapping[str, Any], non_zero: bool = False) -> Resource:
    """A Pod's effective requests, as ``component-helpers/resource.PodRequests``.

    ``max(sum(app containers) + sum(sidecars), max over classic init containers of
    (its requests + the sidecars started before it)) + overhead``. With
    ``non_zero`` every container missing a cpu/memory key counts 100m / 200Mi.
    Pod-level ``spec.resources.requests`` for cpu, memory and hugepages replace the sums.
    """
    spec = pod.get("spec") or {}
    total: dict[str, int] = {}
    for container in spec.get("containers") or []:
        _add_into(total, _container_requests(container, non_zero))
    sidecars: dict[str, int] = {}
    init_peak: dict[str, int] = {}
    for container in spec.get("initContainers") or []:
        reqs = _container_requests(container, non_zero)
        if container.get("restartPolicy") == "Always":
            # A sidecar keeps running next to the app containers.
            _add_into(total, reqs)
            _add_into(sidecars, reqs)
            in_use = dict(sidecars)
        else:
            in_use = dict(reqs)
            _add_into(in_use, sidecars)
        _max_into(init_peak, in_use)
    _max_into(total, init_peak)
    pod_level = (spec.get("resources") or {}).get("requests") or {}
    for name, value in pod_level.items():
        # PodLevelResources (on by default since v1.34) covers cpu, memory and hugepages.
        if name in (CPU, MEMORY) or name.startswith("hugepages-"):
            total[name] = quantity_to_int(name, value)
    for name, value in (spec.get("overhead") or {}).items():
        total[name] = total.get(name, 0) + quantity_to_int(name, value)
    out = Resource()
    for name, amount in total.items():
        out.set(name, amount)
    return out


@dataclass(frozen=True)
class HostPort:
    """One wanted or used host port, normalised (empty IP -> 0.0.0.0, empty protocol -> TCP)."""

    ip: str
    protocol: str
    port: int


def _containers_with_ports(spec: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    yield from spec.get("containers") or []
    # Sidecars hold their ports for the Pod's lifetime; classic init containers don't.
    for container in spec.get("initContainers") or []:
        if container.get("restartPolicy") == "Always":
            yield container


def pod_host_ports(pod: Mapping[str, Any]) -> tuple[HostPort, ...]:
    """Every container port of the Pod with ``hostPort > 0``."""
    ports: list[HostPort] = []
    for container in _containers_with_ports(pod.get("spec") or {}):
        for port in container.get("ports") or []:
            host_port = int(port.get("hostPort") or 0)
            if host_port > 0:
                ports.append(
                    HostPort(port.get("hostIP") or DEFAULT_BIND_ALL_HOST_IP, port.get("protocol") or "TCP", host_port)
                )
    return tuple(ports)


class HostPortInfo:
    """The host ports in use on a node: ip -> counter of (protocol, port)."""

    def __init__(self) -> None:
        self._by_ip: dict[str, Counter[tuple[str, int]]] = {}

    def add(self, hp: HostPort) -> None:
        """Record a port in use."""
        self._by_ip.setdefault(hp.ip, Counter())[(hp.protocol, hp.port)] += 1

    def remove(self, hp: HostPort) -> None:
        """Release a port."""
        counter = self._by_ip.get(hp.ip)
        if counter is None:
            return
        counter[(hp.protocol, hp.port)] -= 1
        if counter[(hp.protocol, hp.port)] <= 0:
            del counter[(hp.protocol, hp.port)]
        if not counter:
            del self._by_ip[hp.ip]

    def conflicts(self, hp: HostPort) -> bool:
        """Upstream's ``HostPortInfo.CheckConflict``: 0.0.0.0 clashes with every IP on that protocol/port."""
        if hp.port <= 0:
            return False
        key = (hp.protocol, hp.port)
        if hp.ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(counter.get(key, 0) > 0 for counter in self._by_ip.values())
        return any(self._by_ip.get(ip, Counter()).get(key, 0) > 0 for ip in (DEFAULT_BIND_ALL_HOST_IP, hp.ip))

    def __len__(self) -> int:
        return sum(len(counter) for counter in self._by_ip.values())

    def copy(self) -> HostPortInfo:
        """An independent copy."""
        out = HostPortInfo()
        out._by_ip = {ip: Counter(counter) for ip, counter in self._by_ip.items()}
        return out


@dataclass(frozen=True)
class AffinityTerm:
    """A parsed PodAffinityTerm: which Pods it selects and over which topology key."""

    namespaces: frozenset[str]
    namespace_selector: Selector
    selector: Selector
    topology_key: str

    def __hash__(self) -> int:
        # Terms key the per-node counters of every placed Pod: hash the nested selectors once.
        try:
            return self.__dict__["_hash"]
        except KeyError:
            value = hash((self.namespaces, self.namespace_selector, self.selector, self.topology_key))
            object.__setattr__(self, "_hash", value)
            return value

    def matches(self, pod: PodInfo, namespace_labels: Mapping[str, str] | None) -> bool:
        """Does ``pod`` (whose namespace carries ``namespace_labels``) fall under this term?"""
        if pod.namespace in self.namespaces or self.namespace_selector.matches(namespace_labels or {}):
            return self.selector.matches(pod.labels)
        return False


@dataclass(frozen=True)
class WeightedAffinityTerm:
    """A preferred term and its weight."""

    term: AffinityTerm
    weight: int


def parse_affinity_term(namespace: str, raw: Mapping[str, Any]) -> AffinityTerm:
    """Parse a PodAffinityTerm owned by a Pod in ``namespace``.

    No ``namespaces`` and no ``namespaceSelector`` mean the owner's namespace.
    A missing label selector selects nothing. Raises SelectorError when invalid.
    Equal terms come back as the same (immutable) object, so callers may memoise by identity.
    """
    # The Pods of one workload carry identical terms: parse each distinct one once and share it.
    return _parse_affinity_term(namespace, json.dumps(raw, sort_keys=True))


@lru_cache(maxsize=4096)
def _parse_affinity_term(namespace: str, text: str) -> AffinityTerm:
    raw = json.loads(text)
    names = raw.get("namespaces") or []
    ns_selector_raw = raw.get("namespaceSelector")
    namespaces = frozenset(names) if (names or ns_selector_raw is not None) else frozenset({namespace})
    return AffinityTerm(
        namespaces=namespaces,
        namespace_selector=selector_from_label_selector(ns_selector_raw) if ns_selector_raw is not None else nothing(),
        selector=selector_from_label_selector(raw.get("labelSelector")),
        topology_key=raw.get("topologyKey") or "",
    )


# Kinds of a placed Pod's scoring term: required affinity (weighted by the plugin's
# hardPodAffinityWeight), preferred affinity, preferred anti-affinity.
HARD = "hard"
AFFINITY = "affinity"
ANTI_AFFINITY = "antiAffinity"
ScoreTerm = tuple[str, AffinityTerm, int]


@dataclass(frozen=True, eq=False)
class PodInfo:
    """A Pod plus what the plugins derive from it once: requests, ports, affinity terms."""

    pod: Mapping[str, Any]
    key: str
    uid: str
    name: str
    namespace: str
    labels: Mapping[str, str]
    node_name: str
    priority: int
    requests: Resource
    non_zero_requests: Resource
    host_ports: tuple[HostPort, ...]
    required_affinity_terms: tuple[AffinityTerm, ...] = ()
    required_anti_affinity_terms: tuple[AffinityTerm, ...] = ()
    preferred_affinity_terms: tuple[WeightedAffinityTerm, ...] = ()
    preferred_anti_affinity_terms: tuple[WeightedAffinityTerm, ...] = ()
    pvc_keys: tuple[str, ...] = ()
    terminating: bool = False
    parse_error: str = ""
    group: tuple[str, tuple[tuple[str, str], ...]] = ("", ())

    @classmethod
    def from_pod(cls, pod: Mapping[str, Any]) -> PodInfo:
        """Parse a Pod object (Kubernetes JSON)."""
        meta = pod.get("metadata") or {}
        spec = pod.get("spec") or {}
        namespace = meta.get("namespace") or "default"
        name = meta.get("name") or ""
        errors: list[str] = []
        affinity = spec.get("affinity") or {}
        pod_aff = affinity.get("podAffinity") or {}
        pod_anti = affinity.get("podAntiAffinity") or {}

        # As upstream's NewPodInfo: each list stops at its first bad term, named by the list.
        def required(block: Mapping[str, Any], label: str) -> tuple[AffinityTerm, ...]:
            out = []
            for raw in block.get("requiredDuringSchedulingIgnoredDuringExecution") or []:
                try:
                    out.append(parse_affinity_term(namespace, raw))
                except SelectorError as err:
                    errors.append(f"{label}: {err}")
                    break
            return tuple(out)

        def preferred(block: Mapping[str, Any], label: str) -> tuple[WeightedAffinityTerm, ...]:
            out = []
            for raw in block.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
                try:
                    term = parse_affinity_term(namespace, raw.get("podAffinityTerm") or {})
                except SelectorError as err:
                    errors.append(f"{label}: {err}")
                    break
                out.append(WeightedAffinityTerm(term, int(raw.get("weight") or 0)))
            return tuple(out)

        pvc_keys = []
        for volume in spec.get("volumes") or []:
            if volume.get("persistentVolumeClaim"):
                pvc_keys.append(f"{namespace}/{volume['persistentVolumeClaim'].get('claimName', '')}")
            elif volume.get("ephemeral"):
                pvc_keys.append(f"{namespace}/{name}-{volume.get('name', '')}")
        return cls(
            pod=pod,
            key=f"{namespace}/{name}",
            uid=meta.get("uid") or "",
            name=name,
            namespace=namespace,
            labels=meta.get("labels") or {},
            node_name=spec.get("nodeName") or "",
            priority=int(spec.get("priority") or 0),
            requests=pod_requests(pod),
            non_zero_requests=pod_requests(pod, non_zero=True),
            host_ports=pod_host_ports(pod),
            required_affinity_terms=required(pod_aff, "requiredAffinityTerms"),
            required_anti_affinity_terms=required(pod_anti, "requiredAntiAffinityTerms"),
            preferred_affinity_terms=preferred(pod_aff, "preferredAffinityTerms"),
            preferred_anti_affinity_terms=preferred(pod_anti, "preferredAntiAffinityTerms"),
            pvc_keys=tuple(pvc_keys),
            terminating=bool(meta.get("deletionTimestamp")),
            parse_error=aggregate(errors) if errors else "",
            group=(namespace, tuple(sorted((meta.get("labels") or {}).items()))),
        )

    @property
    def spec(self) -> Mapping[str, Any]:
        """The Pod's spec (empty mapping if absent)."""
        return self.pod.get("spec") or {}

    @cached_property
    def score_terms(self) -> tuple[ScoreTerm, ...]:
        """The terms with which this Pod, once placed, pulls or pushes later Pods (InterPodAffinity scoring).

        Worked out once: every bind, removal and preemption what-if of the Pod counts them."""
        return (
            *((HARD, t, 0) for t in self.required_affinity_terms),
            *((AFFINITY, wt.term, wt.weight) for wt in self.preferred_affinity_terms),
            *((ANTI_AFFINITY, wt.term, wt.weight) for wt in self.preferred_anti_affinity_terms),
        )

    @property
    def has_affinity(self) -> bool:
        """True when the Pod carries any pod affinity or anti-affinity term."""
        return bool(
            self.required_affinity_terms
            or self.required_anti_affinity_terms
            or self.preferred_affinity_terms
            or self.preferred_anti_affinity_terms
        )


def _decrement(counter: Counter[Hashable], key: Hashable) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


def as_pod_info(pod: Mapping[str, Any] | PodInfo) -> PodInfo:
    """Accept either a Pod object or an already parsed PodInfo."""
    return pod if isinstance(pod, PodInfo) else PodInfo.from_pod(pod)


@dataclass(frozen=True)
class ImageStateSummary:
    """An image as ImageLocality sees it: its size and on how many nodes it is present."""

    size: int
    num_nodes: int


def _node_images(node: Mapping[str, Any]) -> dict[str, int]:
    images: dict[str, int] = {}
    for image in (node.get("status") or {}).get("images") or []:
        for name in image.get("names") or []:
            images.setdefault(name, int(image.get("sizeBytes") or 0))
    return images


class NodeInfo:
    """One node and the Pods bound to it, with running sums kept up to date by add/remove."""

    def __init__(self, node: Mapping[str, Any] | None = None, image_index: ImageIndex | None = None) -> None:
        self.node: Mapping[str, Any] = {}
        self.name = ""
        self.labels: Mapping[str, str] = {}
        self.taints: tuple[Mapping[str, Any], ...] = ()
        self.unschedulable = False
        self.table_inputs: tuple[Any, ...] = ()
        self.allocatable = Resource()
        self.images: dict[str, int] = {}
        self.pods: dict[str, PodInfo] = {}
        # Upstream's PodsWithAffinity / PodsWithRequiredAntiAffinity: InterPodAffinity
        # looks only at these, instead of every Pod of every node, for most incoming Pods.
        self.pods_with_affinity: dict[str, PodInfo] = {}
        self.pods_with_required_anti_affinity: dict[str, PodInfo] = {}
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.used_ports = HostPortInfo()
        self.pvc_ref_counts: Counter[str] = Counter()
        # Pods counted by (namespace, labels) and placed scoring terms counted by term: the
        # columns InterPodAffinity scores every node from at once.
        self.pod_groups: Counter[Hashable] = Counter()
        self.score_terms: Counter[Hashable] = Counter()
        self.generation = 0
        # Decision-record inputs kept for this node by plugin and by Filter (False) or Score (True), valid
        # while ``generation`` holds (see framework.NodeLocalExplanation): (plugin, generation, key, inputs,
        # their JSON text).
        self.explained: dict[tuple[str, bool], tuple[Any, int, Hashable, dict[str, Any] | None, bytes]] = {}
        self.image_index = image_index
        if node is not None:
            self.set_node(node)

    def set_node(self, node: Mapping[str, Any]) -> None:
        """Replace the Node object (labels, taints, allocatable, images) keeping the Pods."""
        meta = node.get("metadata") or {}
        spec = node.get("spec") or {}
        self.node = node
        self.name = meta.get("name") or ""
        self.labels = meta.get("labels") or {}
        self.taints = tuple(spec.get("taints") or ())
        self.unschedulable = bool(spec.get("unschedulable"))
        self.allocatable = Resource.from_list((node.get("status") or {}).get("allocatable"))
        self.images = _node_images(node)
        # What the node table's derived columns read of this node, as it was set (the object may be changed in
        # place later): an update that leaves it as it was leaves those columns too (Snapshot.update_node).
        self.table_inputs = (
            tuple(self.labels.items()),
            json.dumps(self.taints, sort_keys=True) if self.taints else "",
            self.unschedulable,
            tuple(self.images.items()),
        )
        self.generation += 1

    update_node = set_node

    def add_pod(self, pod: Mapping[str, Any] | PodInfo) -> PodInfo:
        """Account for a Pod bound to this node (replacing an older copy with the same key)."""
        info = as_pod_info(pod)
        if info.key in self.pods:
            self.remove_pod(info.key)
        self.pods[info.key] = info
        if info.has_affinity:
            self.pods_with_affinity[info.key] = info
        if info.required_anti_affinity_terms:
            self.pods_with_required_anti_affinity[info.key] = info
        self.requested.add(info.requests)
        self.non_zero_requested.milli_cpu += info.non_zero_requests.milli_cpu
        self.non_zero_requested.memory += info.non_zero_requests.memory
        for hp in info.host_ports:
            self.used_ports.add(hp)
        for key in info.pvc_keys:
            self.pvc_ref_counts[key] += 1
        self.pod_groups[info.group] += 1
        for term in info.score_terms:
            self.score_terms[term] += 1
        self.generation += 1
        return info

    def remove_pod(self, key: str) -> PodInfo | None:
        """Forget a Pod by ``namespace/name``; returns it, or None if it was not here."""
        info = self.pods.pop(key, None)
        if info is None:
            return None
        self.pods_with_affinity.pop(key, None)
        self.pods_with_required_anti_affinity.pop(key, None)
        self.requested.add(info.requests, -1)
        self.non_zero_requested.milli_cpu -= info.non_zero_requests.milli_cpu
        self.non_zero_requested.memory -= info.non_zero_requests.memory
        for hp in info.host_ports:
            self.used_ports.remove(hp)
        for key_ in info.pvc_keys:
            self.pvc_ref_counts[key_] -= 1
            if self.pvc_ref_counts[key_] <= 0:
                del self.pvc_ref_counts[key_]
        _decrement(self.pod_groups, info.group)
        for term in info.score_terms:
            _decrement(self.score_terms, term)
        self.generation += 1
        return info

    def image_state(self, name: str) -> ImageStateSummary | None:
        """The image's summary if this node has it; ``num_nodes`` is cluster-wide when indexed."""
        if name not in self.images:
            return None
        if self.image_index is not None:
            summary = self.image_index.summary(name)
            if summary is not None:
                return summary
        return ImageStateSummary(self.images[name], 1)

    def clone(self) -> NodeInfo:
        """An independent copy sharing the (immutable) PodInfos; used by preemption's dry run."""
        out = NodeInfo.__new__(NodeInfo)
        out.node = self.node
        out.name = self.name
        out.labels = self.labels
        out.taints = self.taints
        out.unschedulable = self.unschedulable
        out.table_inputs = self.table_inputs
        out.allocatable = self.allocatable.copy()
        out.images = dict(self.images)
        out.pods = dict(self.pods)
        out.pods_with_affinity = dict(self.pods_with_affinity)
        out.pods_with_required_anti_affinity = dict(self.pods_with_required_anti_affinity)
        out.requested = self.requested.copy()
        out.non_zero_requested = self.non_zero_requested.copy()
        out.used_ports = self.used_ports.copy()
        out.pvc_ref_counts = Counter(self.pvc_ref_counts)
        out.pod_groups = Counter(self.pod_groups)
        out.score_terms = Counter(self.score_terms)
        out.generation = self.generation
        out.explained = {}  # a what-if's nodes change apart from the snapshot's
        out.image_index = self.image_index
        return out

    def __repr__(self) -> str:
        return f"NodeInfo({self.name!r}, pods={len(self.pods)})"
