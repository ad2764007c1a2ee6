"""The store's failures, which the API server maps to Status errors."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of the store's failures; the API server maps them to Status errors."""


class ClusterNotFound(StoreError):
    pass


class KeyExists(StoreError):
    pass


class KeyNotFound(StoreError):
    pass


class RevisionConflict(StoreError):
    """The caller's resourceVersion (or uid precondition) is not the stored one."""


class StoreUnavailable(StoreError):
    """The database could not be reached, or the connection broke; nothing was written."""


class Compacted(StoreError):
    """The requested revision is older than what the watch log still holds."""

    def __init__(self, requested: int, oldest: int) -> None:
        super().__init__(f"too old resource version: {requested} ({oldest})")
        self.requested = requested
        self.oldest = oldest
