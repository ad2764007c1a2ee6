"""How much memory a simulated container holds, and its limit: what metrics report and what gets OOMKilled.

No process allocates anything, so a container's memory comes from, in order: the Pod annotation
``clusterviz.io/memory-usage`` (shared evenly by its containers); the command of the stress tool
that Kubernetes' own memory exercises run (``stress --vm 1 --vm-bytes 250M``); what the image
typically holds. A container holding more than its ``resources.limits.memory`` is killed by the
kernel's OOM killer as it starts (exit code 137, reason OOMKilled), as the kubelet reports it.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.quantity import QuantityError, parse_quantity
from clusterviz.apimachinery.unstructured import dict_or_empty

MEMORY_ANNOTATION: Final = "clusterviz.io/memory-usage"
# What a container of these images typically holds in memory (KiB); others 10 MiB.
IMAGE_MEMORY_KIB: Final = {
    "nginx": 3 * 1024, "myapp": 3 * 1024, "httpd": 9 * 1024, "redis": 8 * 1024, "mysql": 380 * 1024,
    "postgres": 40 * 1024, "busybox": 512, "alpine": 512,
}
DEFAULT_MEMORY_KIB: Final = 10 * 1024
OOM_EXIT_CODE: Final = 137
OOM_REASON: Final = "OOMKilled"
# stress sizes are powers of 1024 (its own B, K, M, G suffixes).
_STRESS_UNITS: Final = {"b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def kib(value: Any) -> int | None:
    """A memory quantity in KiB (None if it is not one)."""
    try:
        return max(parse_quantity(str(value)).value() // 1024, 0)
    except QuantityError:
        return None


def _image(spec: dict[str, Any]) -> str:
    return str(spec.get("image") or "").rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0]


def _stress_kib(spec: dict[str, Any]) -> int | None:
    """``stress --vm N --vm-bytes SIZE``: N workers each holding SIZE (default 256M)."""
    argv = [str(a) for a in [*(spec.get("command") or []), *(spec.get("args") or [])]]
    if not argv or argv[0].rsplit("/", 1)[-1] != "stress" or "--vm" not in argv:
        return None
    options = dict(zip(argv[1::2], argv[2::2], strict=False))
    try:
        workers = int(options.get("--vm", "1"))
        size = options.get("--vm-bytes", "256M").strip().lower()
        number, unit = (size[:-1], size[-1]) if size[-1:] in _STRESS_UNITS else (size, "b")
        return max(workers, 0) * int(float(number) * _STRESS_UNITS[unit]) // 1024
    except (ValueError, IndexError):
        return None


def container_memory_kib(pod: dict[str, Any], spec: dict[str, Any]) -> int:
    """The memory the container ``spec`` of ``pod`` holds, in KiB."""
    annotations = dict_or_empty(dict_or_empty(pod.get("metadata")).get("annotations"))
    containers = [c for c in dict_or_empty(pod.get("spec")).get("containers") or [] if isinstance(c, dict)]
    shared = kib(annotations[MEMORY_ANNOTATION]) if MEMORY_ANNOTATION in annotations else None
    if shared is not None:
        return shared // max(len(containers), 1)
    stress = _stress_kib(spec)
    if stress is not None:
        return stress
    return IMAGE_MEMORY_KIB.get(_image(spec), DEFAULT_MEMORY_KIB)


def memory_limit_kib(spec: dict[str, Any]) -> int | None:
    """The container's memory limit in KiB, if it has one."""
    limits = dict_or_empty(dict_or_empty(spec.get("resources")).get("limits"))
    return kib(limits["memory"]) if "memory" in limits else None


def out_of_memory(pod: dict[str, Any], spec: dict[str, Any]) -> bool:
    """Whether the container holds more memory than its limit allows."""
    limit = memory_limit_kib(spec)
    return limit is not None and container_memory_kib(pod, spec) > limit
