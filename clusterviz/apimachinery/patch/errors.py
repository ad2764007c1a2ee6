"""The error type shared by the patch implementations."""

from __future__ import annotations


class PatchError(ValueError):
    """A patch is malformed or cannot be applied to the document; ``str()`` is the message.

    The API server reports these as 422 Unprocessable Entity (JSON patch) or
    400/422 (strategic merge patch); the caller picks the status.
    """

    @property
    def message(self) -> str:
        """The human-readable message."""
        return str(self.args[0]) if self.args else ""
