"""Field ownership (``metadata.managedFields``), as the API server's field manager keeps it.

Fields are named as FieldsV1 does: ``f:<field>`` for map keys, ``k:{"name":"web"}`` for an item
of a list merged by key, ``v:<value>`` for an item of a set, ``.`` for an item itself.

- Every create, update and patch records an ``Update`` entry for its manager (``?fieldManager=``,
  else the caller's User-Agent up to its first ``/``; ``kubelet``, ``kube-scheduler`` and
  ``kube-controller-manager`` for the components), owning the fields it changed; the same fields
  leave the other managers' entries. A status write is its own entry (``subresource: status``).
- An apply records an ``Apply`` entry with the fields its configuration sets. Its next apply removes
  from the object the fields it owned and no longer sets, unless another manager owns them too, so
  deleting a line from a manifest and applying it again deletes the field, as in Kubernetes.
- An apply that would change a field another manager owns is a conflict (409) unless forced; forced,
  the field changes hands.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from clusterviz.apimachinery.patch.strategic import MERGE, default_patch_meta
from clusterviz.apimachinery.unstructured import deep_copy

Path = tuple[str, ...]
ITEM = "."  # marks a list item itself, as FieldsV1 does
# What an applier's configuration may not own: identity and bookkeeping the server keeps.
NOT_OWNED = {"apiVersion", "kind"}
META_NOT_OWNED = {"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"}


def field_set(config: dict[str, Any]) -> set[Path]:
    """The leaf paths an applied configuration sets."""
    return set(leaves(config))


def leaves(obj: dict[str, Any]) -> dict[Path, Any]:
    """Each leaf path of an object with its value (an item of a keyed list is a leaf too, ``.``)."""
    out: dict[Path, Any] = {}
    for key, value in obj.items():
        if key in NOT_OWNED:
            continue
        if key == "metadata" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k not in META_NOT_OWNED}
            if not value:
                continue
        _collect(value, (f"f:{key}",), (key,), out)
    return out


def _collect(value: Any, path: Path, names: Path, out: dict[Path, Any]) -> None:
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            _collect(inner, (*path, f"f:{key}"), (*names, key), out)
        return
    if isinstance(value, list) and value:
        meta = default_patch_meta(names)
        if meta is not None and meta.strategy == MERGE:
            for item in value:
                if meta.merge_key is None:
                    out[(*path, _set_item(item))] = True
                elif isinstance(item, dict) and meta.merge_key in item:
                    key = _keyed_item(meta.merge_key, item[meta.merge_key])
                    out[(*path, key, ITEM)] = True
                    _collect(item, (*path, key), names, out)
            return
    out[path] = value


def _set_item(item: Any) -> str:
    """``v:<value>``, the name of an item of a set."""
    if type(item) in (str, int):
        return _spelled_set_item(item)
    return "v:" + json.dumps(item, sort_keys=True, separators=(",", ":"))


def _keyed_item(merge_key: str, value: Any) -> str:
    """``k:{"name":"web"}``, the name of an item of a list merged by ``merge_key``."""
    if type(value) in (str, int):
        return _spelled_keyed_item(merge_key, value)
    return "k:" + json.dumps({merge_key: value}, separators=(",", ":"))


# Every write names the items of every list of its object, and they are the same few (containers, ports,
# conditions) time after time: JSON-encoding them anew was a third of the cost of finding an object's
# fields. Only strings and ints are remembered: each of those has one spelling (0.0 and -0.0 have two).
@functools.lru_cache(maxsize=8192, typed=True)
def _spelled_set_item(item: str | int) -> str:
    return "v:" + json.dumps(item, sort_keys=True, separators=(",", ":"))


@functools.lru_cache(maxsize=8192, typed=True)
def _spelled_keyed_item(merge_key: str, value: str | int) -> str:
    return "k:" + json.dumps({merge_key: value}, separators=(",", ":"))


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
    _add_paths(tree, prefix, out)
    return out


def _add_paths(tree: dict[str, Any], prefix: Path, out: set[Path]) -> None:
    """Add the paths below the non-empty FieldsV1 node ``tree`` (at ``prefix``) to ``out``."""
    for part, inner in tree.items():
        path = (*prefix, part)
        if isinstance(inner, dict) and inner:
            _add_paths(inner, path, out)
        else:
            out.add(path)


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


# --- ownership by every writer -------------------------------------------------------------------

COMPONENT_MANAGERS = {"scheduler": "kube-scheduler", "controller-manager": "kube-controller-manager"}
_MISSING = object()


def manager_of(field_manager: str, user_agent: str, client: str) -> str:
    """The manager a write is recorded under, as the API server names it."""
    if field_manager:
        return field_manager
    if user_agent:
        return user_agent.split("/", 1)[0]
    if client.startswith("kubelet"):
        return "kubelet"
    return COMPONENT_MANAGERS.get(client, client)


def _key(entry: dict[str, Any]) -> tuple[Any, Any, Any]:
    return entry.get("manager"), entry.get("operation"), entry.get("subresource", "")


def _in_scope(paths: set[Path], subresource: str, has_status: bool) -> set[Path]:
    """A status write owns status fields only; a write of the main resource, of a kind with status, none of them."""
    if subresource == "status":
        return {p for p in paths if p[0] == "f:status"}
    if has_status:
        return {p for p in paths if p[0] != "f:status"}
    return paths


def _leaves_in_scope(obj: dict[str, Any], subresource: str, has_status: bool) -> dict[Path, Any]:
    """``leaves(obj)``, but only those ``_in_scope`` keeps (a status write needs none of a Pod's spec)."""
    if subresource == "status":
        return leaves({"status": obj["status"]} if "status" in obj else {})
    if has_status:
        return leaves({key: value for key, value in obj.items() if key != "status"})
    return leaves(obj)


def track_update(
    old: dict[str, Any] | None, new: dict[str, Any], manager: str, subresource: str, api_version: str, time: str,
    *, has_status: bool,
) -> dict[str, Any]:
    """Record ``manager``'s Update of ``old`` into ``new`` (``old`` None: a create) in ``new``'s managedFields."""
    new_leaves = leaves(new)
    old_leaves = _leaves_in_scope(old, subresource, has_status) if old is not None else {}
    changed = _in_scope({p for p, v in new_leaves.items() if old_leaves.get(p, _MISSING) != v}, subresource, has_status)
    meta = new.setdefault("metadata", {})
    sent = meta.get("managedFields")
    if isinstance(sent, list) and sent:
        base = sent
    else:  # the old object's entries, copied: ``old`` may be the watch cache's own, and ``new`` is handed on
        base = deep_copy(((old or {}).get("metadata") or {}).get("managedFields") or [])
    me = (manager, "Update", subresource)
    entries: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None  # the manager's own entry so far
    owned = set(changed)
    position = None
    for entry in base:
        if not isinstance(entry, dict):
            continue
        paths = from_fields_v1(entry.get("fieldsV1"))
        kept = {p for p in paths if p in new_leaves}
        if _key(entry) == me:
            previous, position = entry, len(entries)
            owned |= kept
            continue
        kept -= changed
        if kept:
            entries.append(entry if kept == paths else {**entry, "fieldsV1": to_fields_v1(kept)})
    if owned:
        entry = {"manager": manager, "operation": "Update", "apiVersion": api_version,
                 "time": time if changed or previous is None else previous.get("time", time),
                 "fieldsType": "FieldsV1", "fieldsV1": to_fields_v1(owned)}
        if subresource:
            entry["subresource"] = subresource
        entries.insert(len(entries) if position is None else position, entry)
    if entries:
        meta["managedFields"] = entries
    else:
        meta.pop("managedFields", None)
    return new


def owned_by_others(obj: dict[str, Any], manager: str) -> dict[Path, list[dict[str, Any]]]:
    """Each field some other manager owns, with the entries that own it."""
    out: dict[Path, list[dict[str, Any]]] = {}
    for entry in (obj.get("metadata") or {}).get("managedFields") or []:
        if isinstance(entry, dict) and not (entry.get("manager") == manager and entry.get("operation") == "Apply"):
            for path in from_fields_v1(entry.get("fieldsV1")):
                out.setdefault(path, []).append(entry)
    return out


def conflicts(old: dict[str, Any], new: dict[str, Any], applied: set[Path], manager: str) -> dict[Path, list[str]]:
    """Fields the apply sets to a value other than the one another manager set: path -> those managers."""
    others = owned_by_others(old, manager)
    old_leaves, new_leaves = leaves(old), leaves(new)
    return {
        path: [str(e.get("manager")) for e in others[path]]
        for path in sorted(applied)
        if path in others and path in old_leaves and old_leaves[path] != new_leaves.get(path, _MISSING)
    }


def strip(obj: dict[str, Any], paths: set[Path], manager: str) -> dict[str, Any]:
    """Take ``paths`` from every manager but ``manager``'s Apply entry (a forced apply takes them over)."""
    meta = obj.setdefault("metadata", {})
    entries = []
    for entry in meta.get("managedFields") or []:
        if not isinstance(entry, dict):
            continue
        if entry.get("manager") == manager and entry.get("operation") == "Apply":
            entries.append(entry)
            continue
        kept = from_fields_v1(entry.get("fieldsV1")) - paths
        if kept:
            entries.append({**entry, "fieldsV1": to_fields_v1(kept)})
    meta["managedFields"] = entries
    return obj


def describe_path(path: Path) -> str:
    """A field as conflict messages name it: ``.spec.template.spec.containers[name="web"].image``."""
    out = ""
    for part in path:
        if part.startswith("f:"):
            out += "." + part[2:]
        elif part.startswith("k:"):
            key = json.loads(part[2:])
            out += "[" + ",".join(f"{k}={json.dumps(v)}" for k, v in key.items()) + "]"
        elif part.startswith("v:"):
            out += f"[={part[2:]}]"
    return out


def conflict_message(found: dict[Path, list[str]], api_version: str) -> tuple[str, list[dict[str, str]]]:
    """Upstream's "Apply failed with N conflict(s)" message and its causes."""
    by_manager: dict[str, list[str]] = {}
    causes = []
    for path, managers in found.items():
        for manager in managers:
            by_manager.setdefault(manager, []).append(describe_path(path))
            causes.append({"reason": "FieldManagerConflict",
                           "message": f'conflict with "{manager}" using {api_version}', "field": describe_path(path)})
    if len(causes) == 1:
        (manager, (field,)), = by_manager.items()
        return f'Apply failed with 1 conflict: conflict with "{manager}" using {api_version}: {field}', causes
    parts = [
        f'conflicts with "{manager}" using {api_version}:\n' + "\n".join(f"- {f}" for f in fields)
        for manager, fields in by_manager.items()
    ]
    return f"Apply failed with {len(causes)} conflicts: " + "\n".join(parts), causes
