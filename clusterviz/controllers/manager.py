"""The controller manager: one process, shared informers, one worker loop per controller.

As kube-controller-manager's shared informer factory does, each resource
type is listed and watched once for all controllers, so each change reaches
the controller manager as one message on the bus. Indexes over the caches
(Pods by owner, by node, ...) are kept here and shared by the controllers.
"""

from __future__ import annotations

from typing import Any

from clusterviz.api.component import Context
from clusterviz.api.informer import Handler, Informer, key_of

from .apiservice_availability import APIServiceAvailabilityController
from .clusterrole_aggregation import ClusterRoleAggregationController
from .crd_registration import CRDRegistrationController
from .cronjob import CronJobController
from .daemonset import DaemonSetController
from .deployment import DeploymentController
from .disruption import DisruptionController
from .endpoints import EndpointsController
from .endpointslice import EndpointSliceController
from .garbage_collector import GarbageCollector
from .horizontal import HorizontalController
from .job import JobController
from .namespace import NamespaceController
from .node_lifecycle import NodeLifecycleController
from .persistent_volume import PersistentVolumeController
from .persistent_volume_protection import ClaimProtectionController, VolumeProtectionController
from .persistent_volume_provisioner import Provisioner
from .persistent_volume_resizer import Resizer
from .pod_gc import PodGarbageCollector
from .replicaset import REPLICA_SET, REPLICATION_CONTROLLER, ReplicaSetController
from .resource_quota import ResourceQuotaController
from .root_ca_publisher import RootCAPublisher
from .serviceaccounts import ServiceAccountsController
from .statefulset import StatefulSetController
from .taint_eviction import TaintEvictionController
from .ttl_after_finished import TTLAfterFinishedController
from .util import (
    Index,
    Obj,
    by_controller_uid,
    by_namespace,
    by_namespace_if_orphan,
    by_node_name,
    is_pod_ready,
    meta,
)

COMPONENT = "controller-manager"
# Simulated seconds between lists while the cluster is still empty.
EMPTY_CLUSTER_RELIST = 1.0

# (plural, namespace): the order of the initial lists, owners before what they own.
INFORMERS = (
    ("nodes", ""),
    ("leases", "kube-node-lease"),
    ("deployments", ""),
    ("replicasets", ""),
    ("replicationcontrollers", ""),
    ("daemonsets", ""),
    ("statefulsets", ""),
    ("controllerrevisions", ""),
    ("cronjobs", ""),
    ("jobs", ""),
    ("services", ""),
    ("pods", ""),
    ("endpoints", ""),
    ("endpointslices", ""),
    ("namespaces", ""),
    ("poddisruptionbudgets", ""),
    ("horizontalpodautoscalers", ""),
    ("storageclasses", ""),
    ("persistentvolumes", ""),
    ("persistentvolumeclaims", ""),
    ("csinodes", ""),
    ("serviceaccounts", ""),
    ("configmaps", ""),
    ("resourcequotas", ""),
    ("apiservices", ""),
    ("customresourcedefinitions", ""),
    ("clusterroles", ""),
)


class ControllerManager:
    """kube-controller-manager for one simulated cluster."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.engine = ctx.engine
        self.client = ctx.client(COMPONENT)
        self.informers = {plural: Informer(self.client, plural, namespace) for plural, namespace in INFORMERS}
        pods, replica_sets = self.informers["pods"], self.informers["replicasets"]
        # Indexes first: handlers run in order, so controllers' handlers see them up to date.
        self.pods_by_owner = Index(pods, by_controller_uid)
        self.orphan_pods = Index(pods, by_namespace_if_orphan)
        self.pods_by_node = Index(pods, by_node_name)
        self.pods_by_namespace = Index(pods, by_namespace)
        self.rs_by_owner = Index(replica_sets, by_controller_uid)
        self.orphan_rs = Index(replica_sets, by_namespace_if_orphan)
        self._seen: dict[str, int] = {}
        self._ready_since: dict[str, float] = {}
        for informer in (pods, replica_sets):
            informer.add_handler(Handler(self._note_seen, lambda old, new: self._note_seen(new), self._forget_seen))
        pods.add_handler(Handler(self._note_ready, lambda old, new: self._note_ready(new), self._forget_ready))
        self.controllers: list[Any] = [
            DeploymentController(self),
            ReplicaSetController(self, REPLICA_SET),
            ReplicaSetController(self, REPLICATION_CONTROLLER),
            DaemonSetController(self),
            StatefulSetController(self),
            JobController(self),
            CronJobController(self),
            TTLAfterFinishedController(self),
            NodeLifecycleController(self),
            TaintEvictionController(self),
            EndpointsController(self),
            EndpointSliceController(self),
            GarbageCollector(self),
            PodGarbageCollector(self),
            NamespaceController(self),
            DisruptionController(self),
            ResourceQuotaController(self),
            HorizontalController(self),
            PersistentVolumeController(self),
            Provisioner(self),
            Resizer(self),
            ClaimProtectionController(self),
            VolumeProtectionController(self),
            ServiceAccountsController(self),
            RootCAPublisher(self),
            APIServiceAvailabilityController(self),
            CRDRegistrationController(self),
            ClusterRoleAggregationController(self),
        ]

    async def run(self) -> None:
        """List every resource once (WaitForCacheSync), then start the watches and the controllers."""
        for informer in self.informers.values():
            await informer.list_once()
            while informer.resource_version in ("", "0"):
                # An empty cluster (engines start on the first write, before it commits). The API server
                # would serve a watch from revision 0 as a plain stream, outside the simulation, so list
                # again once the bootstrap writes are in.
                await self.engine.sleep(
                    EMPTY_CLUSTER_RELIST, background=True, what=f"the controller manager lists {informer.plural} again"
                )
                await informer.list_once()
        for (plural, _), informer in zip(INFORMERS, self.informers.values(), strict=True):
            self.engine.spawn(f"{COMPONENT}/informer/{plural}", informer.run)
        for controller in self.controllers:
            controller.start()

    # --- shared bookkeeping ---------------------------------------------------------------------

    def _note_seen(self, obj: Obj) -> None:
        uid = meta(obj).get("uid", "")
        if uid not in self._seen:
            self._seen[uid] = len(self._seen)

    def _forget_seen(self, obj: Obj) -> None:
        self._seen.pop(meta(obj).get("uid", ""), None)

    def creation_rank(self, obj: Obj) -> tuple[str, int]:
        """Creation order: creationTimestamp, then the order the watch delivered the objects.

        Timestamps have one-second resolution and, in fast-forward, many objects
        share a second; the watch order breaks those ties the same way every run.
        """
        uid = meta(obj).get("uid", "")
        return str(meta(obj).get("creationTimestamp") or ""), self._seen.get(uid, len(self._seen))

    def _note_ready(self, pod: Obj) -> None:
        key = key_of(pod)
        if is_pod_ready(pod):
            self._ready_since.setdefault(key, self.engine.now)
        else:
            self._ready_since.pop(key, None)

    def _forget_ready(self, pod: Obj) -> None:
        self._ready_since.pop(key_of(pod), None)

    def ready_since(self, pod: Obj) -> float | None:
        """Simulated time since which the Pod has been seen Ready (minReadySeconds counts in simulated time)."""
        return self._ready_since.get(key_of(pod))
