"""Defensive reads of an openAPIV3Schema node, shared by validation, defaulting and pruning.

The schema arrives as decoded JSON from a CRD that its own validation has
already judged, but nothing here trusts that: a keyword of the wrong type reads
as absent, so the algorithms never raise on a malformed schema.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

PRESERVE_UNKNOWN_FIELDS = "x-kubernetes-preserve-unknown-fields"
EMBEDDED_RESOURCE = "x-kubernetes-embedded-resource"
INT_OR_STRING = "x-kubernetes-int-or-string"


def as_schema(value: Any) -> Schema | None:
    """``value`` if it is a schema object, else None (no schema at all)."""
    return value if isinstance(value, dict) else None


def properties(schema: Schema) -> dict[str, Schema]:
    """The ``properties`` whose values are schema objects."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return {}
    return {name: prop for name, prop in props.items() if isinstance(prop, dict)}


def items(schema: Schema) -> Schema | None:
    """The single ``items`` schema (tuple-style item lists are not structural and read as none)."""
    return as_schema(schema.get("items"))


def additional_properties(schema: Schema) -> tuple[bool, Schema | None]:
    """Whether ``additionalProperties`` is set, and its schema when it is one (``true`` has none).

    Upstream's structural schema keeps ``additionalProperties: true`` as "set, without a schema",
    which pruning treats as "prune everything below", and ``false`` as not set at all.
    """
    value = schema.get("additionalProperties")
    if isinstance(value, dict):
        return True, value
    return value is True, None


def flag(schema: Schema | None, name: str) -> bool:
    """A boolean keyword or extension, false unless it is literally ``true``."""
    return schema is not None and schema.get(name) is True


def has_default(schema: Schema | None) -> bool:
    """Whether a usable ``default`` is declared (a ``null`` default counts as none, as upstream)."""
    return schema is not None and schema.get("default") is not None
