"""One description per served kind, from which the OpenAPI documents and the unknown-field check are made.

Importing this package registers every description; ``for_kind`` finds a
kind's, or makes an open one for a kind no module describes yet.
"""

from __future__ import annotations

from . import (  # noqa: F401  (each registers its kinds)
    apiextensions,
    apiregistration,
    apps,
    autoscaling,
    batch,
    clusterviz,
    coordination,
    core,
    discovery,
    meta,
    metrics,
    networking,
    pod,
    policy,
    quota,
    rbac,
    reviews,
    scheduling,
    storage,
)
from .model import DEFINITIONS, Definition, kind

_BY_GVK: dict[tuple[str, str, str], Definition] = {d.gvk: d for d in DEFINITIONS.values() if d.gvk}


def for_kind(group: str, version: str, kind_name: str) -> Definition:
    """The description of a kind; a kind nobody described yet gets its top level, with everything below open."""
    found = _BY_GVK.get((group, version, kind_name))
    if found is None:
        prefix = ".".join(reversed(group.split("."))) if group else "io.k8s.api.core"
        found = kind(group, version, kind_name, f"{prefix}.{version}.{kind_name}", f"A {kind_name} object.")
        found.open = True
        _BY_GVK[(group, version, kind_name)] = found
    return found
