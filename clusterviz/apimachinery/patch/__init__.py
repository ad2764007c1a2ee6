"""The three PATCH flavours the API server accepts.

* :func:`merge_patch` - RFC 7386 JSON merge patch (``application/merge-patch+json``);
* :func:`json_patch` - RFC 6902 JSON patch (``application/json-patch+json``);
* :func:`strategic_merge_patch` - Kubernetes strategic merge patch
  (``application/strategic-merge-patch+json``).

All of them return a new document and leave their inputs untouched; failures
raise :class:`PatchError`.
"""

from clusterviz.apimachinery.patch.errors import PatchError
from clusterviz.apimachinery.patch.jsonpatch import json_patch, parse_pointer
from clusterviz.apimachinery.patch.merge import merge_patch
from clusterviz.apimachinery.patch.strategic import (
    MERGE_RULES,
    PatchMeta,
    default_patch_meta,
    strategic_merge_patch,
)

__all__ = [
    "MERGE_RULES",
    "PatchError",
    "PatchMeta",
    "default_patch_meta",
    "json_patch",
    "merge_patch",
    "parse_pointer",
    "strategic_merge_patch",
]
