"""The coordination.k8s.io group (v1): Leases, the heartbeats and locks of components."""

from __future__ import annotations

from .model import INT32, MICRO_TIME, STRING, define, kind

_LEASE = "io.k8s.api.coordination.v1."

kind("coordination.k8s.io", "v1", "Lease", _LEASE + "Lease",
     "A lock or heartbeat held by one holder at a time (node heartbeats, leader election).", _LEASE + "LeaseSpec")
define(_LEASE + "LeaseSpec", "Who holds the lease and until when.", {
    "acquireTime": (MICRO_TIME, "When the current holder took it."),
    "holderIdentity": (STRING, "The current holder."),
    "leaseDurationSeconds": (INT32, "How long others wait after the last renewal before taking it."),
    "leaseTransitions": (INT32, "How many times the holder changed."),
    "preferredHolder": (STRING, "A holder the lease should move to."),
    "renewTime": (MICRO_TIME, "When the holder last renewed it."),
    "strategy": (STRING, "How the holder is chosen."),
})
