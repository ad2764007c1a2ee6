"""Server-side apply's field ownership, as far as an applier needs it: what it stops applying goes.

Each apply records, in ``metadata.managedFields``, the fields its configuration set (FieldsV1:
``f:<field>`` for map keys, ``k:{"name":"web"}`` for an item of a list merged by key,
``v:<value>`` for an item of a set, ``.`` for an item itself). The next apply by the same manager
removes from the object the fields it owned before and no longer sets, so deleting a line from a
manifest and applying it again deletes the field, as in Kubernetes. Ownership by other writers
(updates, patches) is not tracked: a field this applier gives up goes even if another also set it.
"""

from __future__ import annotations

import json
from typing import Any

from clusterviz.apimachinery.patch.strategic import MERGE, default_patch_meta

Path = tuple[str, ...]
ITEM = "."  # marks a list item itself, as FieldsV1 does
# What an applier's configuration may not own: identity and bookkeeping the server keeps.
NOT_OWNED = {"apiVersion", "kind"}
META_NOT_OWNED = {"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"}


def field_set(config: dict[str, Any]) -> set[Path]:
    """The leaf paths an applied configuration sets."""
    out: set[Path] = set()
    for key, value in config.items():
        if key in NOT_OWNED:
            continue
        if key == "metadata" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k not in META_NOT_OWNED}
            if not value:
                continue
        _collect(value, (f"f:{key}",), (key,), out)
    return out


def _collect(value: Any, path: Path, names: Path, out: set[Path]) -> None:
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            _collect(inner, (*path, f"f:{key}"), (*names, key), out)
        return
    if isinstance(value, list) and value:
        meta = default_patch_meta(names)
        if meta is not None and meta.strategy == MERGE:
            for item in value:
                if meta.merge_key is None:
                    out.add((*path, "v:" + json.dumps(item, sort_keys=True, separators=(",", ":"))))
                elif isinstance(item, dict) and meta.merge_key in item:
                    key = "k:" + json.dumps({meta.merge_key: item[meta.merge_key]}, separators=(",", ":"))
                    out.add((*path, key, ITEM))
                    _collect(item, (*path, key), names, out)
            return
    out.add(path)


def to_fields_v1(paths: set[Path]) -> dict[str, Any]:
    """The nested FieldsV1 form of a set of paths."""
    root: dict[str, Any] = {}
    for path in paths:
        node = root
        for part in path:
            node = node.setdefault(part, {})
    return root


def from_fields_v1(tree: Any, prefix: Path = ()) -> set[Path]:
    """The paths of a FieldsV1 tree (its leaves, and the ``.`` markers of list items)."""
    if not isinstance(tree, dict) or not tree:
        return {prefix} if prefix else set()
    out: set[Path] = set()
    for part, inner in tree.items():
        out |= from_fields_v1(inner, (*prefix, part))
    return out


def applied_by(obj: dict[str, Any], manager: str) -> set[Path]:
    """The fields ``manager`` owned through its last apply."""
    for entry in (obj.get("metadata") or {}).get("managedFields") or []:
        if isinstance(entry, dict) and entry.get("manager") == manager and entry.get("operation") == "Apply":
            return from_fields_v1(entry.get("fieldsV1"))
    return set()


def remove(obj: dict[str, Any], paths: set[Path]) -> dict[str, Any]:
    """Delete ``paths`` from ``obj`` in place; maps and lists they leave empty go too.

    A list item no longer applied goes whole, with the fields the server defaulted in it.
    """
    items = {path[:-1] for path in paths if path[-1] == ITEM}
    for path in sorted(items, key=len, reverse=True):
        _remove(obj, list(path))
    for path in sorted(paths, key=len, reverse=True):
        if path[-1] != ITEM and not any(path[: len(item)] == item for item in items):
            _remove(obj, list(path))
    return obj


def _remove(node: Any, path: list[str]) -> bool:
    """Remove ``path`` below ``node``; True when ``node`` was emptied by it."""
    part, rest = path[0], path[1:]
    if part.startswith("f:") and isinstance(node, dict):
        key = part[2:]
        if key not in node:
            return False
        if not rest:
            del node[key]
        elif _remove(node[key], rest) and node[key] in ({}, []):
            del node[key]
        return not node
    if isinstance(node, list) and (part.startswith("k:") or part.startswith("v:")):
        wanted = json.loads(part[2:])
        for i, item in enumerate(node):
            hit = (
                isinstance(item, dict) and all(item.get(k) == v for k, v in wanted.items())
                if part.startswith("k:")
                else item == wanted
            )
            if not hit:
                continue
            if not rest or rest == [ITEM]:
                del node[i]
            elif _remove(item, rest) and item == {}:
                del node[i]
            break
        return not node
    return False


def record(obj: dict[str, Any], manager: str, paths: set[Path], api_version: str, time: str) -> dict[str, Any]:
    """Set ``manager``'s Apply entry in ``obj``'s managedFields to ``paths``."""
    meta = obj.setdefault("metadata", {})
    entries = [
        e for e in meta.get("managedFields") or []
        if isinstance(e, dict) and not (e.get("manager") == manager and e.get("operation") == "Apply")
    ]  # fmt: skip
    entries.append({
        "manager": manager, "operation": "Apply", "apiVersion": api_version, "time": time,
        "fieldsType": "FieldsV1", "fieldsV1": to_fields_v1(paths),
    })  # fmt: skip
    meta["managedFields"] = entries
    return obj
