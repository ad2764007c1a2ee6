"""Strategic merge patch (``application/strategic-merge-patch+json``).

This is what ``kubectl apply`` (client-side), ``kubectl patch``, ``set image``
and ``rollout restart`` send. It is a JSON merge patch with two differences:

* some lists are merged element by element instead of being replaced:
  ``containers`` by ``name``, container ``ports`` by ``containerPort``, a
  Service's ``ports`` by ``port``, ``conditions`` by ``type`` and so on;
* the patch may carry directives: ``$patch`` (``replace``/``delete`` on a map,
  ``replace``/``delete`` inside a merged list), ``$retainKeys``,
  ``$setElementOrder/<list>`` and ``$deleteFromPrimitiveList/<list>``.

Which lists merge, and on what key, comes from the Go struct tags
(``patchStrategy``/``patchMergeKey``) upstream. There are no Go types here, so
the decision is made from the **path**: the tuple of map keys walked from the
document root to the list, with list positions left out. For example a
Deployment's container ports live at
``("spec", "template", "spec", "containers", "ports")``. :data:`MERGE_RULES`
matches the end of that tuple (a leading ``"^"`` anchors a rule at the root),
which is how container ``ports`` (``(..., "containers", "ports")``) and Service
``ports`` (``("^", "spec", "ports")``) are told apart. Callers can supply their
own ``lookup`` function for other shapes.

Lists without a rule are replaced, as for untagged Go fields (``tolerations``
is one of them upstream). The merge order of elements follows upstream's
algorithm: ``$setElementOrder`` wins, then the order in the patch, then the
live order; without ``$setElementOrder`` a newly added element goes in front
of the existing ones, exactly as a real API server does.

Result documents never contain ``$``-directives. Malformed patches raise
:class:`PatchError` with upstream's wording where there is one.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final, Literal

from clusterviz.apimachinery.patch.errors import PatchError
from clusterviz.apimachinery.unstructured import deep_copy

DIRECTIVE_MARKER = "$patch"
RETAIN_KEYS_DIRECTIVE = "$retainKeys"
SET_ELEMENT_ORDER_PREFIX = "$setElementOrder"
DELETE_FROM_PRIMITIVE_LIST_PREFIX = "$deleteFromPrimitiveList"

MERGE = "merge"
REPLACE = "replace"

Path = tuple[str, ...]


@dataclass(frozen=True)
class PatchMeta:
    """How a list field is patched.

    ``strategy`` is ``"merge"`` or ``"replace"``. A merged list of objects
    needs ``merge_key``; a merged list of scalars (``finalizers``) has none and
    is treated as a set.
    """

    strategy: str = REPLACE
    merge_key: str | None = None


PatchMetaLookup = Callable[[Path], "PatchMeta | None"]

_BY_NAME = PatchMeta(MERGE, "name")
_SET = PatchMeta(MERGE, None)

# Suffix rules mirroring the patchStrategy/patchMergeKey tags of core/v1,
# apps/v1 and meta/v1. Pod-spec fields are written as ("spec", field) because a
# PodSpec always sits under a "spec" key (pod.spec, template.spec).
_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
MERGE_RULES: tuple[tuple[Path, PatchMeta], ...] = (
    # PodSpec
    *((("spec", field), _BY_NAME) for field in _CONTAINER_LISTS),
    (("spec", "volumes"), _BY_NAME),
    (("spec", "imagePullSecrets"), _BY_NAME),
    (("spec", "hostAliases"), PatchMeta(MERGE, "ip")),
    (("spec", "topologySpreadConstraints"), PatchMeta(MERGE, "topologyKey")),
    (("spec", "schedulingGates"), _BY_NAME),
    (("spec", "resourceClaims"), _BY_NAME),
    # Container (and init/ephemeral containers)
    *(((field, "ports"), PatchMeta(MERGE, "containerPort")) for field in _CONTAINER_LISTS),
    *(((field, "env"), _BY_NAME) for field in _CONTAINER_LISTS),
    *(((field, "volumeMounts"), PatchMeta(MERGE, "mountPath")) for field in _CONTAINER_LISTS),
    *(((field, "volumeDevices"), PatchMeta(MERGE, "devicePath")) for field in _CONTAINER_LISTS),
    # Service: only the top-level spec has ports merged by "port".
    (("^", "spec", "ports"), PatchMeta(MERGE, "port")),
    # Node
    (("^", "spec", "podCIDRs"), _SET),
    (("status", "addresses"), PatchMeta(MERGE, "type")),
    # Status conditions of pods, nodes, deployments, replicasets, namespaces...
    (("status", "conditions"), PatchMeta(MERGE, "type")),
    (("status", "podIPs"), PatchMeta(MERGE, "ip")),
    (("status", "hostIPs"), PatchMeta(MERGE, "ip")),
    # ObjectMeta
    (("metadata", "finalizers"), _SET),
    (("metadata", "ownerReferences"), PatchMeta(MERGE, "uid")),
    # ServiceAccount
    (("^", "secrets"), _BY_NAME),
    (("^", "imagePullSecrets"), _BY_NAME),
)


def _rule_matches(pattern: Path, path: Path) -> bool:
    if pattern and pattern[0] == "^":
        return path == pattern[1:]
    return len(path) >= len(pattern) and path[len(path) - len(pattern) :] == pattern


# Every write's field ownership asks for each list of the object (``managedfields.leaves``): the answer
# for a path never changes, and objects repeat the same few paths.
@functools.lru_cache(maxsize=4096)
def default_patch_meta(path: Path) -> PatchMeta | None:
    """Return the patch metadata for the list at ``path`` per :data:`MERGE_RULES`, or None (replace)."""
    for pattern, meta in MERGE_RULES:
        if _rule_matches(pattern, path):
            return meta
    return None


def strategic_merge_patch(
    target: dict[str, Any] | None,
    patch: dict[str, Any],
    *,
    lookup: PatchMetaLookup = default_patch_meta,
) -> dict[str, Any]:
    """Apply a strategic merge patch to a JSON object and return the result.

    Neither argument is modified. ``lookup`` maps a list's path (see the module
    docstring) to its :class:`PatchMeta`; the default knows the built-in kinds
    kubectl works with. Raises :class:`PatchError` for malformed patches.
    """
    if target is None:
        target = {}
    if not isinstance(target, dict) or not isinstance(patch, dict):
        raise PatchError("invalid JSON document")
    merger = _Merger(lookup)
    result = merger.merge_map(deep_copy(target), deep_copy(patch), ())
    return {} if result is _DELETED else result


# --- Go-style rendering for error messages ------------------------------------


def _go_float(value: float) -> str:
    # fmt's %v for a float64: shortest digits, exponent form when the decimal
    # exponent is below -4 or at least 6 (so 1000000 prints as "1e+06").
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(float(value))).normalize().as_tuple()
    assert isinstance(exponent, int)
    text_digits = "".join(map(str, digits))
    point = len(text_digits) + exponent
    exp10 = point - 1
    prefix = "-" if sign else ""
    if exp10 < -4 or exp10 >= 6:
        mantissa = text_digits[0] + ("." + text_digits[1:] if len(text_digits) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{text_digits}"
    if point >= len(text_digits):
        return prefix + text_digits + "0" * (point - len(text_digits))
    return f"{prefix}{text_digits[:point]}.{text_digits[point:]}"


def _go(value: Any) -> str:
    """Render a decoded JSON value like Go's ``%v`` does for ``interface{}`` values."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _go_float(float(value))
    if isinstance(value, dict):
        # Go's fmt prints map keys sorted.
        return "map[" + " ".join(f"{k}:{_go(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go(item) for item in value) + "]"
    return str(value)


def _go_type(value: Any) -> str:
    if value is None:
        return "%!s(<nil>)"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    return type(value).__name__


def _bad_arg_type(expected: str, actual: Any) -> PatchError:
    return PatchError(f"expected a {expected}, but received a {_go_type(actual)}")


def _no_merge_key(item: dict[str, Any], key: str) -> PatchError:
    return PatchError(f"map: {_go(item)} does not contain declared merge key: {key}")


def _bad_patch_type(directive: Any, item: dict[str, Any]) -> PatchError:
    return PatchError(f"unknown patch type: {_go(directive)} in map: {_go(item)}")


_MAP_TYPE = "map[string]interface {}"
_LIST_TYPE = "[]interface {}"


# --- the merge ------------------------------------------------------------------


class _Marker(enum.Enum):
    """Markers a type checker can tell apart from the values they stand beside."""

    # Returned when a map patch carries ``$patch: delete``.
    DELETED = enum.auto()
    # A key the map does not have (None is a value: the key deletes).
    MISSING = enum.auto()


_Deleted = Literal[_Marker.DELETED]
_DELETED: Final = _Marker.DELETED
_MISSING: Final = _Marker.MISSING


def _kind(value: Any) -> str:
    # Decoded JSON has these kinds; ints and floats are one kind (Go float64).
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


def _scalar_eq(a: Any, b: Any) -> bool:
    # Go compares interface{} values: different kinds are never equal, so
    # true is not 1 even though Python says otherwise.
    return _kind(a) == _kind(b) and a == b


def _element_kind(*lists: list[Any]) -> str:
    """The common element kind of some lists, as upstream's sliceElementType."""
    kind: str | None = None
    for items in lists:
        for item in items:
            current = _kind(item)
            if kind is None:
                if current == "list":
                    raise PatchError("lists of lists are not supported")
                kind = current
            elif current != kind:
                rendered = "[" + " ".join(_go(each) for each in lists) + "]"
                raise PatchError(f"list element types are not identical: {rendered}")
    if kind is None:
        raise PatchError("no elements in any of the given slices")
    return kind


def _key_of(item: Any, merge_key: str | None) -> Any:
    if merge_key is None:
        return item
    return item.get(merge_key) if isinstance(item, dict) else None


def _index_in(order: list[Any], item: Any, merge_key: str | None) -> int:
    wanted = _key_of(item, merge_key)
    for i, candidate in enumerate(order):
        if _scalar_eq(_key_of(candidate, merge_key), wanted):
            return i
    return -1


def _sort_by_order(items: list[Any], order: list[Any], merge_key: str | None) -> list[Any]:
    # Items the order list does not mention keep their relative order after
    # the ones it does; in practice every item is found.
    positions = [_index_in(order, item, merge_key) for item in items]
    found = sorted((p, i) for i, p in enumerate(positions) if p >= 0)
    return [items[i] for _, i in found] + [item for item, p in zip(items, positions, strict=True) if p < 0]


def _merge_sorted(
    server_only: list[Any], patch_items: list[Any], server_order: list[Any], merge_key: str | None
) -> list[Any]:
    """Interleave two ordered lists, upstream's mergeSortedSlice.

    A server-only element goes first only when it and the next patch element
    both exist in the live list and it came earlier there; otherwise the patch
    element goes first. That is why an element the live list does not have
    yet ends up in front.
    """
    out: list[Any] = []
    i = j = 0
    while i < len(server_only) or j < len(patch_items):
        if i >= len(server_only):
            out.append(patch_items[j])
            j += 1
        elif j >= len(patch_items):
            out.append(server_only[i])
            i += 1
        else:
            left = _index_in(server_order, server_only[i], merge_key)
            right = _index_in(server_order, patch_items[j], merge_key)
            if left >= 0 and right >= 0 and left < right:
                out.append(server_only[i])
                i += 1
            else:
                out.append(patch_items[j])
                j += 1
    return out


def _normalize_order(
    patch_items: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str | None,
) -> list[Any]:
    patch_items = _sort_by_order(patch_items, patch_order, merge_key)
    server_only = _sort_by_order(server_only, server_order, merge_key)
    return _merge_sorted(server_only, patch_items, server_order, merge_key)


def _partition(merged: list[Any], partition_by: list[Any], merge_key: str | None) -> tuple[list[Any], list[Any]]:
    """Split into (present in partition_by, not present), keeping order."""
    present: list[Any] = []
    absent: list[Any] = []
    for item in merged:
        if merge_key is not None:
            if not isinstance(item, dict):
                raise _bad_arg_type(_MAP_TYPE, item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
        (present if _index_in(partition_by, item, merge_key) >= 0 else absent).append(item)
    return present, absent


def _dedupe(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if not any(_scalar_eq(item, seen) for seen in out):
            out.append(item)
    return out


def _split_directive_key(key: str, prefix: str, error: str) -> str:
    parts = key.split("/", 1)
    if len(parts) < 2 or parts[0] != prefix:
        raise PatchError(error)
    return parts[1]


class _Merger:
    def __init__(self, lookup: PatchMetaLookup) -> None:
        self.lookup = lookup

    def list_meta(self, path: Path) -> PatchMeta | None:
        meta = self.lookup(path)
        if meta is not None and meta.strategy == MERGE:
            return meta
        return None

    # -- maps --

    def merge_map(self, original: dict[str, Any], patch: dict[str, Any], path: Path) -> dict[str, Any] | _Deleted:
        """Merge ``patch`` into ``original`` (both private copies, edited in place)."""
        if DIRECTIVE_MARKER in patch:
            directive = patch[DIRECTIVE_MARKER]
            if directive == REPLACE:
                rest = {k: v for k, v in patch.items() if k != DIRECTIVE_MARKER}
                # Merging onto an empty map drops nulls and resolves nested
                # directives, so the replacement is stored clean.
                return self.merge_map({}, rest, path)
            if directive == "delete":
                return _DELETED
            raise _bad_patch_type(directive, patch)

        self.apply_retain_keys(original, patch)
        self.apply_set_element_order(original, patch, path)

        # Deletions from scalar lists run before the plain keys, so a patch
        # that removes "a" and adds "b" reads as "replace a with b".
        for key in [k for k in patch if k.startswith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)]:
            self.delete_from_primitive_list(original, key, patch.pop(key))

        for key, patch_value in patch.items():
            if key.startswith("$"):
                raise PatchError(f"unknown patch directive: {key}")
            if patch_value is None:
                original.pop(key, None)
                continue
            child = path + (key,)
            current = original.get(key, _MISSING)
            if isinstance(patch_value, dict):
                base = current if isinstance(current, dict) else {}
                merged = self.merge_map(base, patch_value, child)
                if merged is _DELETED:
                    original.pop(key, None)
                else:
                    original[key] = merged
            elif isinstance(patch_value, list):
                base_list = current if isinstance(current, list) else []
                original[key] = self.merge_list_field(base_list, patch_value, child)
            else:
                original[key] = patch_value
        return original

    def clean_map(self, value: dict[str, Any], path: Path) -> dict[str, Any]:
        merged = self.merge_map({}, value, path)
        return {} if merged is _DELETED else merged

    def apply_retain_keys(self, original: dict[str, Any], patch: dict[str, Any]) -> None:
        if RETAIN_KEYS_DIRECTIVE not in patch:
            return
        retain = patch.pop(RETAIN_KEYS_DIRECTIVE)
        if not isinstance(retain, list) or not all(isinstance(k, str) for k in retain):
            raise PatchError("invalid patch format of retainKeys")
        allowed = set(retain)
        for key, value in patch.items():
            if value is None or key.startswith((DELETE_FROM_PRIMITIVE_LIST_PREFIX, SET_ELEMENT_ORDER_PREFIX)):
                continue
            # Every field the patch sets must be one of the retained keys.
            if key not in allowed:
                raise PatchError("invalid patch format of retainKeys")
        for key in [k for k in original if k not in allowed]:
            del original[key]

    def delete_from_primitive_list(self, original: dict[str, Any], key: str, to_delete: Any) -> None:
        field = _split_directive_key(key, DELETE_FROM_PRIMITIVE_LIST_PREFIX, "invalid patch format of primitive list")
        if not isinstance(to_delete, list):
            raise _bad_arg_type(_LIST_TYPE, to_delete)
        if any(isinstance(item, dict | list) for item in to_delete):
            raise PatchError("invalid patch format of primitive list")
        current = original.get(field)
        if current is None:
            # Nothing to delete from. (Upstream would store the deletion list
            # itself as the field's value here, which is never what was meant.)
            return
        if not isinstance(current, list):
            raise _bad_arg_type(_LIST_TYPE, current)
        original[field] = [item for item in current if not any(_scalar_eq(item, gone) for gone in to_delete)]

    def apply_set_element_order(self, original: dict[str, Any], patch: dict[str, Any], path: Path) -> None:
        for key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER_PREFIX)]:
            order = patch.pop(key)
            if not isinstance(order, list):
                raise _bad_arg_type(_LIST_TYPE, order)
            field = _split_directive_key(key, SET_ELEMENT_ORDER_PREFIX, "invalid patch format of setElementOrder list")
            child = path + (field,)
            meta = self.list_meta(child)
            if meta is None:
                # Ordering only applies to merged lists; a replaced list simply
                # takes the patch's order, so the directive has nothing to do.
                continue
            merge_key = meta.merge_key

            current = original.get(field)
            patch_list = patch.get(field, _MISSING)
            if current is not None and not isinstance(current, list):
                raise _bad_arg_type(_LIST_TYPE, current)
            if patch_list is None:
                # The list is being deleted; the plain-key pass does that.
                continue
            if patch_list is not _MISSING and not isinstance(patch_list, list):
                raise _bad_arg_type(_LIST_TYPE, patch_list)
            if patch_list is not _MISSING:
                self.validate_patch_with_order(patch_list, order, merge_key)
            if merge_key is not None:
                for item in order:
                    if not isinstance(item, dict):
                        raise _bad_arg_type(_MAP_TYPE, item)
                    if merge_key not in item:
                        raise _no_merge_key(item, merge_key)

            if current is not None and patch_list is not _MISSING:
                merged = self.merge_slice(current, patch_list, merge_key, child)
            elif patch_list is not _MISSING:
                merged = self.merge_slice([], patch_list, merge_key, child)
            elif current is not None:
                merged = current
            else:
                continue

            patch_items, server_only = _partition(merged, order, merge_key)
            original[field] = _normalize_order(patch_items, server_only, order, current or [], merge_key)
            patch.pop(field, None)

    def validate_patch_with_order(self, patch_list: list[Any], order: list[Any], merge_key: str | None) -> None:
        """Check the patch list is a subsequence of ``$setElementOrder`` (upstream's check)."""
        if not order or not patch_list:
            return
        if merge_key is not None:
            for item in patch_list:
                if not isinstance(item, dict):
                    raise _bad_arg_type(_MAP_TYPE, item)
            candidates = [item for item in patch_list if item.get(DIRECTIVE_MARKER) != "delete"]
        else:
            candidates = list(patch_list)
        p = s = 0
        while p < len(candidates) and s < len(order):
            item = candidates[p]
            if isinstance(item, dict) and DIRECTIVE_MARKER in item:
                p += 1
                continue
            if self.merge_key_equal(item, order[s], merge_key):
                p += 1
            s += 1
        if p < len(candidates) and s >= len(order):
            raise PatchError(
                f"The order in patch list:\n{_go(patch_list)}\n doesn't match "
                f"{SET_ELEMENT_ORDER_PREFIX} list:\n{_go(order)}\n"
            )

    @staticmethod
    def merge_key_equal(left: Any, right: Any, merge_key: str | None) -> bool:
        if merge_key is None:
            return _scalar_eq(left, right)
        for item in (left, right):
            if not isinstance(item, dict):
                raise _bad_arg_type(_MAP_TYPE, item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
        return _scalar_eq(left[merge_key], right[merge_key])

    # -- lists --

    def merge_list_field(self, original: list[Any], patch: list[Any], path: Path) -> list[Any]:
        meta = self.list_meta(path)
        if meta is None:
            return self.clean_replaced_list(patch, path)
        return self.merge_slice(original, patch, meta.merge_key, path)

    def clean_replaced_list(self, items: list[Any], path: Path) -> list[Any]:
        """A replaced list is stored as sent, minus directives.

        A ``$patch: replace`` element is redundant (the list is replaced
        anyway) and a ``$patch: delete`` element has nothing to delete from,
        so both are dropped rather than stored.
        """
        out: list[Any] = []
        for item in items:
            if isinstance(item, dict):
                if DIRECTIVE_MARKER in item:
                    if item[DIRECTIVE_MARKER] in (REPLACE, "delete"):
                        continue
                    raise _bad_patch_type(item[DIRECTIVE_MARKER], item)
                out.append(self.clean_map(item, path))
            else:
                out.append(item)
        return out

    def merge_slice(self, original: list[Any], patch: list[Any], merge_key: str | None, path: Path) -> list[Any]:
        """Merge two lists of a merge-strategy field, upstream's mergeSlice."""
        if not original and not patch:
            return []
        kind = _element_kind(original, patch)

        if kind != "map":
            # A merged scalar list is a set: union, then ordered like maps are.
            merged = _dedupe(original + patch)
            patch_items, server_only = _partition(merged, patch, None)
            return _normalize_order(patch_items, server_only, patch, original, None)

        if merge_key is None:
            raise PatchError("cannot merge lists without merge key for type map")

        original, patch = self.apply_list_directives(original, patch, merge_key, path)
        server_order = list(original)
        merged = list(original)
        for item in patch:
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            position = next(
                (
                    i
                    for i, existing in enumerate(merged)
                    if merge_key in existing and _scalar_eq(existing[merge_key], item[merge_key])
                ),
                None,
            )
            if position is None:
                merged.append(self.clean_map(item, path))
            else:
                result = self.merge_map(merged[position], item, path)
                assert result is not _DELETED  # directives were taken out above
                merged[position] = result

        patch_items, server_only = _partition(merged, patch, merge_key)
        return _normalize_order(patch_items, server_only, patch, server_order, merge_key)

    def apply_list_directives(
        self, original: list[Any], patch: list[Any], merge_key: str, path: Path
    ) -> tuple[list[Any], list[Any]]:
        """Handle ``$patch`` elements; return the new original and the remaining patch."""
        remaining: list[Any] = []
        replace = False
        for item in patch:
            if DIRECTIVE_MARKER not in item:
                remaining.append(item)
                continue
            directive = item[DIRECTIVE_MARKER]
            if directive == "delete":
                if merge_key not in item:
                    raise _no_merge_key(item, merge_key)
                # Every element carrying that key value goes, not just the first.
                original = [
                    existing
                    for existing in original
                    if not (merge_key in existing and _scalar_eq(existing[merge_key], item[merge_key]))
                ]
            elif directive == REPLACE:
                # Keep scanning so every other directive element is pruned too.
                replace = True
            elif directive == MERGE:
                raise PatchError("merging lists cannot yet be specified in the patch")
            else:
                raise _bad_patch_type(directive, item)
        if replace:
            return [self.clean_map(item, path) for item in remaining], []
        return original, remaining
