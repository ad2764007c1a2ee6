"""Image references and image sizes, as a container runtime sees them.

A reference such as ``nginx`` or ``soscscs/myapp:v1`` is normalised the way
containerd normalises it (``docker.io/library/nginx:latest``). Sizes of a few
images the lessons use are real-world compressed sizes; any other image gets
a size derived from a hash of its name, so every run pulls it equally long.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

DEFAULT_DOMAIN = "docker.io"
OFFICIAL_PREFIX = "library/"
DEFAULT_TAG = "latest"

MIB = 1024 * 1024

# Compressed sizes (bytes) of well-known images, by repository; tags vary a little around these.
KNOWN_SIZES: dict[str, int] = {
    "docker.io/library/nginx": 72_099_501,
    "docker.io/library/busybox": 2_167_176,
    "docker.io/library/redis": 45_104_232,
    "docker.io/library/mysql": 172_036_587,
    "docker.io/library/postgres": 153_905_210,
    "docker.io/library/httpd": 58_076_105,
    "docker.io/library/alpine": 3_645_890,
    "docker.io/library/ubuntu": 29_754_290,
    "docker.io/library/centos": 75_181_999,
    "docker.io/library/tomcat": 175_238_512,
    "docker.io/library/python": 381_211_834,
    "docker.io/library/node": 405_820_139,
    "docker.io/library/golang": 294_507_366,
    "docker.io/library/memcached": 32_519_880,
    "docker.io/library/mongo": 270_105_998,
    "docker.io/library/rabbitmq": 92_456_120,
    "docker.io/library/wordpress": 257_332_011,
    "docker.io/library/hello-world": 10_207,
    "docker.io/soscscs/myapp": 6_418_556,
    "registry.k8s.io/pause": 320_368,
}
# Tags of a known repository differ from its base size by at most this fraction.
TAG_SPREAD = 0.03
# Unknown images weigh between these bounds.
UNKNOWN_MIN, UNKNOWN_MAX = 5 * MIB, 200 * MIB


@dataclass(frozen=True)
class ImageRef:
    """A parsed image reference: registry domain, path, and a tag or digest."""

    domain: str
    path: str
    tag: str
    digest: str

    @property
    def repository(self) -> str:
        """``docker.io/library/nginx``."""
        return f"{self.domain}/{self.path}"

    @property
    def qualified(self) -> str:
        """The fully qualified reference, ``docker.io/library/nginx:1.27`` (or ``...@sha256:...``)."""
        return f"{self.repository}@{self.digest}" if self.digest and not self.tag else f"{self.repository}:{self.tag}"


def _has_domain(first: str) -> bool:
    return "." in first or ":" in first or first == "localhost"


def parse(reference: str) -> ImageRef:
    """Split a reference the way Docker's ``ParseNormalizedNamed`` does (no tag and no digest -> ``latest``)."""
    name, _, digest = reference.partition("@")
    tag = ""
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name, tag = name[:colon], name[colon + 1 :]
    first, _, rest = name.partition("/")
    if rest and _has_domain(first):
        domain, path = first, rest
    else:
        domain, path = DEFAULT_DOMAIN, name
        if "/" not in path:
            path = OFFICIAL_PREFIX + path
    if not tag and not digest:
        tag = DEFAULT_TAG
    return ImageRef(domain, path, tag, digest)


def normalized_name(reference: str) -> str:
    """The reference as written, with ``:latest`` appended when it has no tag (the scheduler's rule)."""
    if reference.rfind(":") <= reference.rfind("/"):
        return reference + ":" + DEFAULT_TAG
    return reference


def _hash(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


def size_bytes(reference: str) -> int:
    """How many bytes pulling ``reference`` transfers (and the node then reports)."""
    ref = parse(reference)
    base = KNOWN_SIZES.get(ref.repository)
    if base is None:
        return UNKNOWN_MIN + _hash(ref.repository) % (UNKNOWN_MAX - UNKNOWN_MIN)
    # A stable offset in [-spread, +spread] per tag, so v1 and v2 differ as real tags do.
    offset = (_hash(ref.qualified) % 2001 - 1000) / 1000 * TAG_SPREAD
    return int(base * (1 + offset))


def digest(reference: str) -> str:
    """The ``sha256:<64 hex>`` content digest of an image, stable for a given reference."""
    ref = parse(reference)
    if ref.digest:
        return ref.digest
    return "sha256:" + hashlib.sha256(f"clusterviz-image:{ref.qualified}".encode()).hexdigest()


def image_id(reference: str) -> str:
    """The image ID containerd reports, ``docker.io/library/nginx@sha256:...``."""
    return f"{parse(reference).repository}@{digest(reference)}"


def pull_policy(container: dict[str, object]) -> str:
    """The container's imagePullPolicy, defaulted as the API server does when it is missing."""
    policy = container.get("imagePullPolicy")
    if isinstance(policy, str) and policy:
        return policy
    ref = parse(str(container.get("image") or ""))
    return "Always" if ref.tag == DEFAULT_TAG else "IfNotPresent"
