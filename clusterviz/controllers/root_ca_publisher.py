"""The root CA publisher: a ``kube-root-ca.crt`` ConfigMap with the cluster's CA in every namespace.

Pods read it through their ``kube-api-access-*`` volume (``ca.crt``) to trust
the API server. As upstream's controller, it watches namespaces (a new one
gets the ConfigMap) and ConfigMaps (a deleted or edited one is put back).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from clusterviz.api import errors
from clusterviz.api.cluster_ca import (
    DESCRIPTION,
    DESCRIPTION_ANNOTATION,
    ROOT_CA_CONFIG_MAP,
    root_ca_config_map,
)
from clusterviz.api.informer import Handler

from .util import Obj, Worker, deleting, meta

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT: Final = "root-ca-certificate-publisher"


class RootCAPublisher:
    """Keeps ``kube-root-ca.crt`` present and current in every active namespace."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.cluster = cm.ctx.cluster
        self.namespaces = cm.informers["namespaces"]
        self.config_maps = cm.informers["configmaps"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.namespaces.add_handler(Handler(self._namespace_seen, lambda old, new: self._namespace_seen(new)))
        self.config_maps.add_handler(Handler(None, lambda old, new: self._config_map_seen(new), self._config_map_seen))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _namespace_seen(self, namespace: Obj) -> None:
        self.worker.add(str(meta(namespace).get("name", "")))

    def _config_map_seen(self, config_map: Obj) -> None:
        if meta(config_map).get("name") == ROOT_CA_CONFIG_MAP:
            self.worker.add(str(meta(config_map).get("namespace", "")))

    async def sync(self, namespace: str) -> None:
        """Create the namespace's ConfigMap, or put its CA and description back."""
        ns = self.namespaces.get(namespace)
        if ns is None or deleting(ns):
            return
        wanted = root_ca_config_map(namespace, self.cluster)
        current = self.config_maps.get(f"{namespace}/{ROOT_CA_CONFIG_MAP}")
        try:
            if current is None:
                await self.client.create(wanted, namespace)
            elif (
                current.get("data") != wanted["data"]
                or (meta(current).get("annotations") or {}).get(DESCRIPTION_ANNOTATION) != DESCRIPTION
            ):
                # Upstream replaces the data outright: keys someone added go too.
                data: dict[str, Any] = dict.fromkeys(current.get("data") or {}) | wanted["data"]
                patch = {"metadata": {"annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}}, "data": data}
                await self.client.patch("configmaps", ROOT_CA_CONFIG_MAP, patch, namespace)
        except errors.StatusError as exc:
            # Already there (the cache is behind), gone, or the namespace began terminating meanwhile.
            if exc.code not in (403, 404, 409):
                raise
