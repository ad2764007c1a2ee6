"""The CRD registration: an APIService for every group version the cluster's CustomResourceDefinitions serve.

Upstream kube-apiserver's crdRegistrationController hands these to its
autoregister controller, which labels them automanaged ("true", where the
built-in ones made at start say "onstart") and removes them when no definition
serves the group version any more. The simulator hosts it with the other controllers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from clusterviz.api import errors
from clusterviz.api.apiservices import AUTOMANAGED_LABEL, name_of
from clusterviz.api.customresources import resources_of
from clusterviz.api.informer import Handler

from .util import Obj, Worker, labels_of, meta

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT: Final = "crd-registration"
# Custom groups rank below every built-in one; their versions sort among themselves kube-like.
GROUP_PRIORITY: Final = 1000
VERSION_PRIORITY: Final = 100


class CRDRegistrationController:
    """Keeps one automanaged APIService per served custom group version."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.crds = cm.informers["customresourcedefinitions"]
        self.api_services = cm.informers["apiservices"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.crds.add_handler(Handler(self._crd_seen, lambda old, new: self._crd_seen(new), self._crd_seen))
        self.api_services.add_handler(Handler(None, None, self._api_service_gone))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _crd_seen(self, crd: Obj) -> None:
        group = str((crd.get("spec") or {}).get("group", ""))
        for version in (crd.get("spec") or {}).get("versions") or []:
            if isinstance(version, dict):
                self.worker.add(name_of(group, str(version.get("name", ""))))
        for api_service in self.api_services.items():
            # A version dropped from a definition: its APIService may have to go.
            if labels_of(api_service).get(AUTOMANAGED_LABEL) == "true":
                self.worker.add(str(meta(api_service).get("name", "")))

    def _api_service_gone(self, api_service: Obj) -> None:
        self.worker.add(str(meta(api_service).get("name", "")))

    async def sync(self, name: str) -> None:
        """Create the group version's APIService while a definition serves it; delete an automanaged one after."""
        version, _, group = name.partition(".")
        served = any((r.group, r.version) == (group, version) for crd in self.crds.items() for r in resources_of(crd))
        current = self.api_services.get(name)
        try:
            if served and current is None:
                await self.client.create({
                    "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
                    "metadata": {"name": name, "labels": {AUTOMANAGED_LABEL: "true"}},
                    "spec": {"group": group, "version": version,
                             "groupPriorityMinimum": GROUP_PRIORITY, "versionPriority": VERSION_PRIORITY},
                })
            elif not served and current is not None and labels_of(current).get(AUTOMANAGED_LABEL) == "true":
                await self.client.delete("apiservices", name)
        except errors.StatusError as exc:
            # Made or removed meanwhile: the cache catches up and brings the name back if need be.
            if exc.code not in (404, 409):
                raise
