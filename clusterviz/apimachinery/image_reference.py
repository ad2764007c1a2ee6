"""Image references (``nginx``, ``registry:5000/team/app:v1@sha256:...``) after the grammar of the
distribution/reference package, and the pull policy the API server defaults from them."""

from __future__ import annotations

import re
from typing import Any

_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?"
_NAME = rf"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(rf"({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?")


def image_pull_policy(image: Any) -> str:
    """``Always`` for a ``:latest`` or untagged image, else ``IfNotPresent`` (also for unparsable ones)."""
    if not isinstance(image, str):
        return "IfNotPresent"
    match = _REFERENCE.fullmatch(image)
    if match is None or len(match.group(1)) > 255:
        return "IfNotPresent"
    tag, digest = match.group(2) or "", match.group(3) or ""
    if not tag and not digest:
        tag = "latest"
    return "Always" if tag == "latest" else "IfNotPresent"
