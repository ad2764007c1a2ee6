"""The availability check of APIServices: is the extension API server behind each one reachable?

Upstream the aggregator in kube-apiserver runs this (AvailableConditionController);
the simulator hosts it with the other controllers. It keeps each APIService's
Available condition current as the Service it names and that Service's
Endpoints come and go: ServiceNotFound, ServicePortError, EndpointsNotFound,
MissingEndpoints, and, since no real extension server answers, FailedDiscoveryCheck.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from clusterviz.api import clock, errors
from clusterviz.api.apiservices import availability, condition, is_local
from clusterviz.api.informer import Handler

from .util import Obj, Worker, meta, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT: Final = "apiservice-availability"


class APIServiceAvailabilityController:
    """Writes each APIService's Available condition when what it depends on changes."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.api_services = cm.informers["apiservices"]
        self.services = cm.informers["services"]
        self.endpoints = cm.informers["endpoints"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.api_services.add_handler(Handler(self._api_service_seen, lambda old, new: self._api_service_seen(new)))
        for informer in (self.services, self.endpoints):
            informer.add_handler(Handler(self._backend_seen, lambda old, new: self._backend_seen(new), self._backend_seen))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _api_service_seen(self, api_service: Obj) -> None:
        self.worker.add(str(meta(api_service).get("name", "")))

    def _backend_seen(self, obj: Obj) -> None:
        """A Service or Endpoints changed: recheck the APIServices that name it."""
        key = (meta(obj).get("namespace"), meta(obj).get("name"))
        for api_service in self.api_services.items():
            ref = spec(api_service).get("service")
            if isinstance(ref, dict) and (ref.get("namespace"), ref.get("name")) == key:
                self.worker.add(str(meta(api_service).get("name", "")))

    async def sync(self, name: str) -> None:
        """Judge one APIService and write its condition when the verdict changed."""
        api_service = self.api_services.get(name)
        if api_service is None:
            return
        backend: tuple[Obj | None, Obj | None] = (None, None)
        if not is_local(api_service):
            ref = spec(api_service)["service"]
            key = f"{ref.get('namespace', '')}/{ref.get('name', '')}"
            backend = (self.services.get(key), self.endpoints.get(key))
        verdict = availability(api_service, *backend)
        current = _available(api_service)
        if current is not None and (current.get("status"), current.get("reason"), current.get("message")) == verdict:
            return
        now = clock.rfc3339()
        wanted = condition(*verdict, now)
        if current is not None and current.get("status") == verdict[0]:
            wanted["lastTransitionTime"] = current.get("lastTransitionTime", now)
        others = [c for c in status(api_service).get("conditions") or [] if c is not current]
        updated: dict[str, Any] = {**api_service, "status": {**status(api_service), "conditions": [*others, wanted]}}
        try:
            await self.client.update(updated, sub="status")
        except errors.StatusError as exc:
            # Gone, or changed since the cache saw it: the next event brings it back here.
            if exc.code not in (404, 409):
                raise


def _available(api_service: Obj) -> dict[str, Any] | None:
    for c in status(api_service).get("conditions") or []:
        if isinstance(c, dict) and c.get("type") == "Available":
            return c
    return None
