"""Conversion between the versions a kind is served in and the one it is stored in.

A Resource whose ``storage_version`` differs from its own version is a view:
bodies sent to it are converted to the stored version before defaulting,
validation and the write, and objects read through it are converted back.
Each (group, kind, version) pair has its converter in a module of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..resources import Resource
from . import autoscaling

Convert = Callable[[dict[str, Any]], dict[str, Any]]

# (group, kind, served version) -> (to the stored version, from the stored version).
CONVERTERS: dict[tuple[str, str, str], tuple[Convert, Convert]] = {
    ("autoscaling", "HorizontalPodAutoscaler", "v1"): (autoscaling.v1_to_v2, autoscaling.v2_to_v1),
}


def _pair(resource: Resource) -> tuple[Convert, Convert] | None:
    if resource.stored_as == resource.version:
        return None
    if resource.custom is not None:
        # A custom resource's versions differ only in apiVersion (conversion strategy None).
        served, stored = resource.group_version, resource.stored_group_version
        return (lambda obj: {**obj, "apiVersion": stored}), (lambda obj: {**obj, "apiVersion": served})
    return CONVERTERS.get((resource.group, resource.kind, resource.version))


def to_storage(resource: Resource, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj``, written in ``resource``'s version, as the store keeps it (itself when no conversion applies)."""
    pair = _pair(resource)
    if pair is None or obj.get("apiVersion") != resource.group_version:
        return obj
    return pair[0](obj)


def from_storage(resource: Resource, obj: dict[str, Any]) -> dict[str, Any]:
    """A stored object as ``resource``'s version shows it (itself when no conversion applies)."""
    pair = _pair(resource)
    if pair is None or obj.get("apiVersion") not in (resource.stored_group_version, None):
        return obj
    return pair[1](obj)
