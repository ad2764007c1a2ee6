"""Custom resources: the REST resources each cluster's CustomResourceDefinitions add to its API.

Built-in kinds are the same in every cluster (``api/resources.py``); what a
CustomResourceDefinition defines exists only in its cluster, so its resources
are read from that cluster's store when a request or discovery needs them.
Each served version of an Established definition is one ``Resource`` whose
``custom`` field carries what the API server judges and prints its objects by.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty, str_or_empty
from clusterviz.store import kv
from clusterviz.store.threads import in_thread

from .resources import ALL_VERBS, Resource

CRD_KEY: Final = "customresourcedefinitions.apiextensions.k8s.io"
# What a version without additionalPrinterColumns shows, as the CRD handler serves it.
AGE_COLUMN: Final = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp",
                     "description": "CreationTimestamp is a timestamp representing the server time when this object "
                                    "was created."}

_crds_of = in_thread(kv.list_objects)


@dataclass(frozen=True)
class CustomVersion:
    """One served version of a CustomResourceDefinition, as its objects are judged and printed by."""

    crd: str
    schema: dict[str, Any]
    columns: tuple[dict[str, Any], ...]
    # specReplicasPath, statusReplicasPath and labelSelectorPath of the scale subresource ({} without one).
    scale: dict[str, Any]


def is_established(crd: dict[str, Any]) -> bool:
    """Whether the definition's names were accepted and its resources are served."""
    return any(isinstance(c, dict) and c.get("type") == "Established" and c.get("status") == "True"
               for c in list_or_empty(dict_or_empty(crd.get("status")).get("conditions")))


def resources_of(crd: dict[str, Any]) -> list[Resource]:
    """The REST resource of each served version of an Established definition."""
    if not is_established(crd) or dict_or_empty(crd.get("metadata")).get("deletionTimestamp"):
        return []
    spec = dict_or_empty(crd.get("spec"))
    names = dict_or_empty(spec.get("names"))
    versions = [v for v in list_or_empty(spec.get("versions")) if isinstance(v, dict)]
    storage = next((str_or_empty(v.get("name")) for v in versions if v.get("storage") is True), "")
    out = []
    for version in versions:
        if version.get("served") is not True:
            continue
        name = str_or_empty(version.get("name"))
        subresources = dict_or_empty(version.get("subresources"))
        subs = tuple(s for s in ("status", "scale") if isinstance(subresources.get(s), dict))
        columns = [c for c in list_or_empty(version.get("additionalPrinterColumns")) if isinstance(c, dict)]
        out.append(Resource(
            str_or_empty(spec.get("group")), name, str_or_empty(names.get("plural")), str_or_empty(names.get("kind")),
            spec.get("scope") == "Namespaced",
            tuple(str(n) for n in list_or_empty(names.get("shortNames"))),
            tuple(str(c) for c in list_or_empty(names.get("categories"))),
            ALL_VERBS, subs, has_status="status" in subs, tracks_generation=True,
            storage_version="" if name == storage else storage,
            custom=CustomVersion(
                str_or_empty(dict_or_empty(crd.get("metadata")).get("name")),
                dict_or_empty(dict_or_empty(version.get("schema")).get("openAPIV3Schema")),
                tuple(columns) or (AGE_COLUMN,),
                dict_or_empty(subresources.get("scale")),
            ),
        ))
    return out


async def served(cid: int) -> list[Resource]:
    """Every custom resource the cluster's definitions serve, in the definitions' name order."""
    crds, _ = await _crds_of(cid, CRD_KEY, None)
    return [r for crd in sorted(crds, key=lambda c: str(dict_or_empty(c.get("metadata")).get("name")))
            for r in resources_of(crd)]


def status_on_create(crd: dict[str, Any], now: str) -> dict[str, Any]:
    """A new definition's status: its names accepted and its resources established at once, the storage
    version recorded (what the naming and establishing controllers write in the first moment)."""
    spec = dict_or_empty(crd.get("spec"))
    storage = [str_or_empty(v.get("name")) for v in list_or_empty(spec.get("versions"))
               if isinstance(v, dict) and v.get("storage") is True]
    return {
        "conditions": [
            {"type": "NamesAccepted", "status": "True", "lastTransitionTime": now, "reason": "NoConflicts",
             "message": "no conflicts found"},
            {"type": "Established", "status": "True", "lastTransitionTime": now, "reason": "InitialNamesAccepted",
             "message": "the initial names have been accepted"},
        ],
        "acceptedNames": dict_or_empty(spec.get("names")),
        "storedVersions": storage,
    }


def follow_spec(crd: dict[str, Any]) -> None:
    """After a change of the definition: its names are accepted, and a new storage version joins storedVersions."""
    spec, status = dict_or_empty(crd.get("spec")), crd["status"]
    status["acceptedNames"] = dict_or_empty(spec.get("names"))
    stored = [str(v) for v in list_or_empty(status.get("storedVersions"))]
    for version in list_or_empty(spec.get("versions")):
        if isinstance(version, dict) and version.get("storage") is True and version.get("name") not in stored:
            stored.append(str_or_empty(version.get("name")))
    status["storedVersions"] = stored


def at_path(obj: dict[str, Any], path: str) -> Any:
    """The value at a simple JSON path of a scale subresource (``.spec.replicas``), None when absent."""
    value: Any = obj
    for name in path.strip(".").split("."):
        value = value.get(name) if isinstance(value, dict) else None
    return value


def set_path(obj: dict[str, Any], path: str, value: Any) -> None:
    """Write ``value`` at a simple JSON path, making the objects on the way."""
    *parents, last = path.strip(".").split(".")
    here = obj
    for name in parents:
        if not isinstance(here.get(name), dict):
            here[name] = {}
        here = here[name]
    here[last] = value


def scale_paths(resource: Resource) -> tuple[str, str, str]:
    """(spec replicas, status replicas, label selector) paths of a resource's scale subresource."""
    scale = resource.custom.scale if resource.custom is not None else {}
    return (str(scale.get("specReplicasPath") or ".spec.replicas"), str(scale.get("statusReplicasPath") or
            ".status.replicas"), str(scale.get("labelSelectorPath") or ""))
