"""A Pod's PersistentVolumeClaims, as the kubelet's volume manager sees them before it mounts their volumes.

Every claim a Pod's volumes name must exist, not be being deleted, and be
Bound to a volume; until then the Pod stays in ``ContainerCreating`` with a
``FailedMount`` event in upstream's words (``Unable to attach or mount
volumes: unmounted volumes=[...], unattached volumes=[...], failed to process
volumes=[...]: error processing PVC ns/name: PVC is not bound``).
"""

from __future__ import annotations

from typing import Any

from .config_refs import Fetch


def _claim_error(claim: dict[str, Any] | None, namespace: str, name: str) -> str:
    """What createVolumeSpec says of one claim; "" when its volume can be mounted."""
    prefix = f"error processing PVC {namespace}/{name}: "
    if claim is None:
        return prefix + f'failed to fetch PVC from API server: persistentvolumeclaims "{name}" not found'
    if (claim.get("metadata") or {}).get("deletionTimestamp"):
        return prefix + "can't start pod because PVC is being deleted"
    if (claim.get("status") or {}).get("phase") != "Bound" or not (claim.get("spec") or {}).get("volumeName"):
        return prefix + "PVC is not bound"
    return ""


async def mount_error(fetch: Fetch, pod: dict[str, Any]) -> str | None:
    """The FailedMount message while a claim of the Pod cannot be mounted; None when all can."""
    namespace = str((pod.get("metadata") or {}).get("namespace") or "default")
    volumes = [v for v in (pod.get("spec") or {}).get("volumes") or [] if isinstance(v, dict)]
    failed: list[str] = []
    first = ""
    for volume in volumes:
        source = volume.get("persistentVolumeClaim")
        if not isinstance(source, dict):
            continue
        claim_name = str(source.get("claimName") or "")
        error = _claim_error(await fetch("persistentvolumeclaims", namespace, claim_name), namespace, claim_name)
        if error:
            failed.append(str(volume.get("name") or ""))
            first = first or error
    if not failed:
        return None
    names = sorted(str(v.get("name") or "") for v in volumes)
    return (
        f"Unable to attach or mount volumes: unmounted volumes=[{' '.join(names)}], unattached volumes=[{' '.join(names)}], "
        f"failed to process volumes=[{' '.join(failed)}]: {first}"
    )
