"""RFC 7386 JSON merge patch (``application/merge-patch+json``).

Used by ``kubectl label``/``annotate``/``scale``: objects merge key by key,
``null`` deletes a key, and anything that is not an object (lists included)
replaces the old value wholesale.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import deep_copy


def merge_patch(target: Any, patch: Any) -> Any:
    """Apply a JSON merge patch and return the result as a new value.

    Neither argument is modified, and the result shares no mutable parts with
    either of them. A non-object patch replaces the target; a ``null`` member
    of an object patch removes that member from the target.
    """
    # Copy the target once up front; the merge below then edits the copy in place.
    return _merge(deep_copy(target), patch)


def _merge(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return deep_copy(patch)
    # A non-object target is replaced by an empty object before merging, so
    # {"a": 1} patched onto a list or a string becomes {"a": 1}.
    result = target if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            # Recursing with the old value (None when absent) also strips
            # nulls nested inside newly added objects, as RFC 7386 requires.
            result[key] = _merge(result.get(key), value)
    return result
