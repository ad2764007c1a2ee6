"""The endpoints controller: each Service with a selector gets an Endpoints object listing its Pods.

Ready Pods are ``addresses``, the others ``notReadyAddresses`` (unless the
Service publishes not-ready addresses); a Pod without an IP, finished or
terminating is left out. Ports come from the Service, a named targetPort
resolved against each Pod's container ports. Services without a selector
are left to whoever manages their Endpoints.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from clusterviz.api import errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery import labels
from clusterviz.apimachinery.unstructured import deep_copy

from .util import Obj, Worker, deleting, is_pod_ready, labels_of, meta, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT = "endpoint-controller"
HEADLESS_LABEL = "service.kubernetes.io/headless"


def service_selector(service: Obj) -> labels.Selector | None:
    """The Service's selector, or None when it has none (a nil map, not an empty one)."""
    raw = spec(service).get("selector")
    return labels.selector_from_set(raw) if isinstance(raw, dict) else None


def should_be_in_endpoints(pod: Obj, include_terminating: bool) -> bool:
    """ShouldPodBeInEndpoints: has an IP, is not finished, and (unless asked) is not terminating."""
    if status(pod).get("phase") in ("Succeeded", "Failed"):
        return False
    if not status(pod).get("podIP") and not status(pod).get("podIPs"):
        return False
    return include_terminating or not deleting(pod)


def find_port(pod: Obj, service_port: dict[str, Any]) -> int | None:
    """podutil.FindPort: a numeric targetPort as is, a named one looked up in the containers."""
    target = service_port.get("targetPort", service_port.get("port"))
    if isinstance(target, int) and not isinstance(target, bool):
        return target
    protocol = service_port.get("protocol") or "TCP"
    for container in spec(pod).get("containers") or []:
        for port in container.get("ports") or []:
            if port.get("name") == target and (port.get("protocol") or "TCP") == protocol:
                return port.get("containerPort")
    return None


def address_of(service: Obj, pod: Obj) -> dict[str, Any]:
    """podToEndpointAddressForService."""
    address: dict[str, Any] = {"ip": status(pod).get("podIP") or (status(pod).get("podIPs") or [{}])[0].get("ip")}
    if spec(pod).get("nodeName"):
        address["nodeName"] = spec(pod)["nodeName"]
    address["targetRef"] = {
        "kind": "Pod",
        "namespace": meta(pod).get("namespace"),
        "name": meta(pod).get("name"),
        "uid": meta(pod).get("uid"),
    }
    hostname = spec(pod).get("hostname")
    if hostname and spec(pod).get("subdomain") == meta(service).get("name"):
        address["hostname"] = hostname
    return address


def repack(entries: list[tuple[dict[str, Any], bool, dict[str, Any] | None]]) -> list[dict[str, Any]]:
    """RepackSubsets: one subset per distinct set of ports, addresses sorted; not-ready wins over ready."""
    addresses: dict[tuple[str, str], dict[str, Any]] = {}
    by_port: dict[tuple[Any, ...], dict[tuple[str, str], bool]] = {}
    ports: dict[tuple[Any, ...], dict[str, Any] | None] = {}
    for address, ready, port in entries:
        addr_key = (str(address.get("ip")), str((address.get("targetRef") or {}).get("uid", "")))
        addresses.setdefault(addr_key, address)
        port_key = (port.get("name", ""), port.get("port"), port.get("protocol")) if port else ("", -1, "")
        ports[port_key] = port
        readiness = by_port.setdefault(port_key, {})
        readiness[addr_key] = readiness.get(addr_key, True) and ready
    groups: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
    for port_key, readiness in by_port.items():
        groups.setdefault(tuple(sorted(readiness.items())), []).append(port_key)
    subsets = []
    for readiness_key, port_keys in groups.items():
        subset: dict[str, Any] = {}
        ready_addresses = [addresses[a] for a, ok in readiness_key if ok]
        not_ready = [addresses[a] for a, ok in readiness_key if not ok]
        if ready_addresses:
            subset["addresses"] = ready_addresses
        if not_ready:
            subset["notReadyAddresses"] = not_ready
        subset_ports = [
            ports[k] for k in sorted(port_keys, key=lambda k: (str(k[0]), k[1] or 0, str(k[2]))) if ports[k]
        ]
        if subset_ports:
            subset["ports"] = subset_ports
        subsets.append(subset)
    return sorted(
        subsets,
        key=lambda s: [
            (a["ip"], (a.get("targetRef") or {}).get("uid", ""))
            for a in s.get("addresses", []) + s.get("notReadyAddresses", [])
        ],
    )


def services_selecting(services: Iterable[Obj], pod: Obj) -> list[Obj]:
    """The Services of the Pod's namespace whose selector matches it."""
    namespace = meta(pod).get("namespace")
    found = []
    for service in services:
        selector = service_selector(service)
        if meta(service).get("namespace") == namespace and selector is not None and selector.matches(labels_of(pod)):
            found.append(service)
    return found


def services_to_resync(services: Iterable[Obj], old: Obj, new: Obj) -> list[Obj]:
    """The Services whose endpoints a Pod update may change: those selecting it before or after, when what
    endpoints show of it (labels, readiness, phase, IP, node, host name, deletion) changed; else none."""
    if meta(old).get("resourceVersion") == meta(new).get("resourceVersion"):
        return []
    relevant = (
        labels_of(old) != labels_of(new)
        or deleting(old) != deleting(new)
        or is_pod_ready(old) != is_pod_ready(new)
        or status(old).get("phase") != status(new).get("phase")
        or status(old).get("podIP") != status(new).get("podIP")
        or any(spec(old).get(f) != spec(new).get(f) for f in ("nodeName", "hostname", "subdomain"))
    )
    if not relevant:
        return []
    listed = list(services)
    return list({key_of(s): s for s in services_selecting(listed, old) + services_selecting(listed, new)}.values())


class EndpointsController:
    """Keeps Endpoints in step with Services and their Pods."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.client = cm.client
        self.services = cm.informers["services"]
        self.pods = cm.informers["pods"]
        self.endpoints = cm.informers["endpoints"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        enqueue = self._enqueue
        self.services.add_handler(Handler(enqueue, lambda old, new: enqueue(new), enqueue))
        self.pods.add_handler(Handler(self._pod_added, self._pod_updated, self._pod_added))
        self.endpoints.add_handler(Handler(on_delete=enqueue))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _enqueue(self, obj: Obj) -> None:
        self.worker.add(key_of(obj))

    def _pod_added(self, pod: Obj) -> None:
        for service in services_selecting(self.services.items(), pod):
            self._enqueue(service)

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        for service in services_to_resync(self.services.items(), old, new):
            self._enqueue(service)

    async def sync(self, key: str) -> None:
        """syncService."""
        namespace, _, name = key.partition("/")
        service = self.services.get(key)
        if service is None:
            try:
                await self.client.delete("endpoints", name, namespace)
            except errors.StatusError as exc:
                if exc.code != 404:
                    raise
            return
        selector = service_selector(service)
        if spec(service).get("type") == "ExternalName" or selector is None:
            return
        subsets = repack(self._entries(service, selector))
        wanted_labels = dict(labels_of(service))
        if spec(service).get("clusterIP") == "None":
            wanted_labels[HEADLESS_LABEL] = ""
        current = self.endpoints.get(key)
        if current is not None and (current.get("subsets") or []) == subsets and labels_of(current) == wanted_labels:
            return
        body: Obj = (
            deep_copy(current)
            if current is not None
            else {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name, "namespace": namespace}}
        )
        body["metadata"]["labels"] = wanted_labels
        if not wanted_labels:
            body["metadata"].pop("labels")
        if subsets:
            body["subsets"] = subsets
        else:
            body.pop("subsets", None)
        if current is None:
            await self.client.create(body, namespace)
        else:
            await self.client.update(body)

    def _entries(
        self, service: Obj, selector: labels.Selector
    ) -> list[tuple[dict[str, Any], bool, dict[str, Any] | None]]:
        """(address, ready, port) for every selected Pod and Service port, as addEndpointSubset produces them."""
        publish = spec(service).get("publishNotReadyAddresses") is True
        service_ports = [p for p in spec(service).get("ports") or [] if isinstance(p, dict)]
        entries: list[tuple[dict[str, Any], bool, dict[str, Any] | None]] = []
        for pod in self.cm.pods_by_namespace.get(meta(service).get("namespace", "")):
            if not selector.matches(labels_of(pod)) or not should_be_in_endpoints(pod, publish):
                continue
            address = address_of(service, pod)
            ready = publish or is_pod_ready(pod)
            if not service_ports:
                if spec(service).get("clusterIP") == "None":
                    entries.append((address, ready, None))
                continue
            for service_port in service_ports:
                number = find_port(pod, service_port)
                if number is None:
                    continue
                port: dict[str, Any] = {"port": number, "protocol": service_port.get("protocol") or "TCP"}
                if service_port.get("name"):
                    port["name"] = service_port["name"]
                if service_port.get("appProtocol"):
                    port["appProtocol"] = service_port["appProtocol"]
                entries.append((address, ready, port))
        return entries
