"""The EndpointSlice controller: each Service with a selector gets EndpointSlices listing its Pods.

Upstream: ``pkg/controller/endpointslice`` (with ``staging/.../endpointslice/reconciler.go``). A
slice holds the endpoints that share one set of ports (a named targetPort may resolve differently
per Pod), at most 100 of them; an endpoint is a Pod with an IP that has not finished, with its
``ready`` / ``serving`` / ``terminating`` conditions, node, zone and Pod reference. A Service
whose Pods are none keeps one empty placeholder slice. Slices are named ``<service>-<random>``,
labelled with the Service's name and this controller as their manager, and owned by the Service.
This is what kube-proxy and ``kubectl describe service`` read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clusterviz.api import errors
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery.unstructured import deep_copy, resource_version

from .endpoints import (
    HEADLESS_LABEL,
    find_port,
    service_selector,
    services_selecting,
    services_to_resync,
    should_be_in_endpoints,
)
from .util import Obj, Worker, deleting, is_pod_ready, labels_of, meta, new_controller_ref, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT = "endpointslice-controller"
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
MANAGED_BY = "endpointslice-controller.k8s.io"
ZONE_LABEL = "topology.kubernetes.io/zone"
MAX_ENDPOINTS_PER_SLICE = 100
# What ``EndpointSliceController.written`` notes for a slice it deleted.
DELETED = -1


def endpoint_of(service: Obj, pod: Obj, zone: str) -> dict[str, Any]:
    """podToEndpoint: the Pod's address, conditions, node, zone and reference."""
    terminating = deleting(pod)
    serving = spec(service).get("publishNotReadyAddresses") is True or is_pod_ready(pod)
    endpoint: dict[str, Any] = {
        "addresses": [status(pod).get("podIP") or (status(pod).get("podIPs") or [{}])[0].get("ip")],
        "conditions": {"ready": serving and not terminating, "serving": serving, "terminating": terminating},
        "targetRef": {
            "kind": "Pod", "namespace": meta(pod).get("namespace"), "name": meta(pod).get("name"),
            "uid": meta(pod).get("uid"),
        },
    }
    hostname = spec(pod).get("hostname")
    if hostname and spec(pod).get("subdomain") == meta(service).get("name"):
        endpoint["hostname"] = hostname
    if spec(pod).get("nodeName"):
        endpoint["nodeName"] = spec(pod)["nodeName"]
    if zone:
        endpoint["zone"] = zone
    return endpoint


def ports_for(service: Obj, pod: Obj) -> list[dict[str, Any]]:
    """getEndpointPorts: each Service port as this Pod serves it (a named targetPort it lacks is left out)."""
    ports = []
    for service_port in spec(service).get("ports") or []:
        if not isinstance(service_port, dict):
            continue
        number = find_port(pod, service_port)
        if number is None:
            continue
        port: dict[str, Any] = {"name": service_port.get("name") or "", "port": number,
                                "protocol": service_port.get("protocol") or "TCP"}
        if service_port.get("appProtocol"):
            port["appProtocol"] = service_port["appProtocol"]
        ports.append(port)
    return ports


def desired_slices(service: Obj, pods: list[Obj], zones: dict[str, str]) -> list[tuple[list[dict[str, Any]], list[Any]]]:
    """(ports, endpoints) of each slice the Service should have: endpoints grouped by their ports, 100 a slice,
    sorted by Pod name; one placeholder with no endpoints when there are none."""
    groups: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    for pod in sorted(pods, key=lambda p: str(meta(p).get("name", ""))):
        ports = ports_for(service, pod)
        signature = repr(ports)
        entry = groups.setdefault(signature, (ports, []))
        entry[1].append(endpoint_of(service, pod, zones.get(str(spec(pod).get("nodeName") or ""), "")))
    slices: list[tuple[list[dict[str, Any]], list[Any]]] = []
    for ports, endpoints in groups.values():
        for start in range(0, len(endpoints), MAX_ENDPOINTS_PER_SLICE):
            slices.append((ports, endpoints[start:start + MAX_ENDPOINTS_PER_SLICE]))
    return slices or [([], [])]


class EndpointSliceController:
    """Keeps EndpointSlices in step with Services and their Pods."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.client = cm.client
        self.services = cm.informers["services"]
        self.slices = cm.informers["endpointslices"]
        self.nodes = cm.informers["nodes"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        # upstream's EndpointSliceTracker: per Service, the slices this controller wrote (name -> the
        # resourceVersion written, DELETED for a deletion) that the informer has not shown yet. A sync
        # on a cache that misses them would make a second slice for the same endpoints.
        self.written: dict[str, dict[str, int]] = {}
        enqueue = self._enqueue
        self.services.add_handler(Handler(enqueue, lambda old, new: enqueue(new), enqueue))
        cm.informers["pods"].add_handler(Handler(self._pod_changed, self._pod_updated, self._pod_changed))
        self.slices.add_handler(
            Handler(self._slice_changed, lambda old, new: self._slice_changed(new), self._slice_deleted)
        )

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _enqueue(self, obj: Obj) -> None:
        self.worker.add(key_of(obj))

    def _service_key(self, slice_: Obj) -> str | None:
        """The key of the Service a slice of this controller's is for."""
        name = labels_of(slice_).get(SERVICE_NAME_LABEL)
        if name and labels_of(slice_).get(MANAGED_BY_LABEL) == MANAGED_BY:
            return f"{meta(slice_).get('namespace')}/{name}"
        return None

    def _slice_changed(self, slice_: Obj) -> None:
        key = self._service_key(slice_)
        if key is not None and key in self.written:
            self.worker.add(key)  # a sync held back for this write can go on

    def _slice_deleted(self, slice_: Obj) -> None:
        key = self._service_key(slice_)
        if key is not None:
            # Gone, whoever deleted it: no version of it is still to come.
            self.written.get(key, {}).pop(str(meta(slice_).get("name", "")), None)
            self.worker.add(key)

    def _stale(self, key: str, existing: list[Obj]) -> bool:
        """Whether the informer has yet to show a write of this controller's to the Service's slices."""
        pending = self.written.get(key)
        if not pending:
            return False
        shown = {str(meta(s).get("name", "")): resource_version(s) for s in existing}
        for name, version in list(pending.items()):
            if (name not in shown) if version == DELETED else shown.get(name, 0) >= version:
                del pending[name]
        if not pending:
            del self.written[key]
        return bool(pending)

    def _wrote(self, key: str, slice_: Obj, deleted: bool = False) -> None:
        version = DELETED if deleted else resource_version(slice_)
        self.written.setdefault(key, {})[str(meta(slice_).get("name", ""))] = version

    def _pod_changed(self, pod: Obj) -> None:
        for service in services_selecting(self.services.items(), pod):
            self._enqueue(service)

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        for service in services_to_resync(self.services.items(), old, new):
            self._enqueue(service)

    def _owned(self, namespace: str, name: str) -> list[Obj]:
        """The slices this controller made for the Service, oldest first."""
        found = [
            s for s in self.slices.items()
            if meta(s).get("namespace") == namespace and labels_of(s).get(SERVICE_NAME_LABEL) == name
            and labels_of(s).get(MANAGED_BY_LABEL) == MANAGED_BY
        ]
        return sorted(found, key=lambda s: (str(meta(s).get("creationTimestamp", "")), str(meta(s).get("name", ""))))

    async def _delete(self, key: str, slice_: Obj) -> None:
        try:
            await self.client.delete("endpointslices", meta(slice_).get("name", ""), meta(slice_).get("namespace", ""))
        except errors.StatusError as exc:
            if exc.code != 404:
                raise
            return
        self._wrote(key, slice_, deleted=True)

    async def sync(self, key: str) -> None:
        """syncService: make, update and remove the Service's slices until they list its Pods."""
        namespace, _, name = key.partition("/")
        existing = self._owned(namespace, name)
        if self._stale(key, existing):
            return  # the informer brings the write soon, and with it this Service again
        service = self.services.get(key)
        selector = service_selector(service) if service is not None else None
        if service is None or selector is None or spec(service).get("type") == "ExternalName":
            for slice_ in existing:
                await self._delete(key, slice_)
            return
        pods = [
            p for p in self.cm.pods_by_namespace.get(namespace)
            if selector.matches(labels_of(p)) and should_be_in_endpoints(p, include_terminating=True)
        ]
        zones = {str(meta(n).get("name", "")): labels_of(n).get(ZONE_LABEL, "") for n in self.nodes.items()}
        wanted_labels = {**labels_of(service), SERVICE_NAME_LABEL: name, MANAGED_BY_LABEL: MANAGED_BY}
        if spec(service).get("clusterIP") == "None":
            wanted_labels[HEADLESS_LABEL] = ""
        wanted = desired_slices(service, pods, zones)
        for index, (ports, endpoints) in enumerate(wanted):
            current = existing[index] if index < len(existing) else None
            if current is not None and current.get("endpoints") == endpoints and current.get("ports") == ports \
                    and labels_of(current) == wanted_labels:
                continue
            body: Obj = deep_copy(current) if current is not None else {
                "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4",
                "metadata": {"generateName": f"{name}-", "namespace": namespace,
                             "ownerReferences": [{**new_controller_ref(service), "apiVersion": "v1", "kind": "Service"}]},
            }
            body["metadata"]["labels"] = wanted_labels
            body["endpoints"], body["ports"] = endpoints, ports
            if current is None:
                self._wrote(key, await self.client.create(body, namespace))
            else:
                self._wrote(key, await self.client.update(body))
        for extra in existing[len(wanted):]:
            await self._delete(key, extra)
