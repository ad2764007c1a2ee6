"""The ServiceAccount admission plugin: a new Pod runs as an account and gets its API credentials.

On create, a Pod that names no account runs as ``default``; unless the Pod
or its account turns ``automountServiceAccountToken`` off, it gets the
projected ``kube-api-access-<5 letters>`` volume (a bound token, the
cluster's CA from the ``kube-root-ca.crt`` ConfigMap and its namespace),
mounted read-only in every container that has nothing at the token path.
A Pod without image pull secrets takes its account's.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.unstructured import deep_copy, list_or_empty

from ..cluster_ca import CA_KEY, ROOT_CA_CONFIG_MAP

__all__ = ["TOKEN_MOUNT_PATH", "account_name", "admit_pod"]

TOKEN_MOUNT_PATH: Final = "/var/run/secrets/kubernetes.io/serviceaccount"
VOLUME_PREFIX: Final = "kube-api-access-"
# A bound token lives an hour; upstream asks for 3607 s so it can tell its own tokens apart.
TOKEN_EXPIRATION_SECONDS: Final = 3607
DEFAULT_MODE: Final = 0o644


def account_name(pod: dict[str, Any]) -> str:
    """The account the Pod runs as: ``serviceAccountName``, the deprecated ``serviceAccount``, or ``default``."""
    spec = pod.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    for field in ("serviceAccountName", "serviceAccount"):
        if isinstance(spec.get(field), str) and spec[field]:
            return spec[field]
    return "default"


def _token_volume(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "projected": {
            "defaultMode": DEFAULT_MODE,
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
                {"configMap": {"name": ROOT_CA_CONFIG_MAP, "items": [{"key": CA_KEY, "path": CA_KEY}]}},
                {
                    "downwardAPI": {
                        "items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]
                    }
                },
            ],
        },
    }


def _automount(spec: dict[str, Any], account: dict[str, Any] | None) -> bool:
    if isinstance(spec.get("automountServiceAccountToken"), bool):
        return spec["automountServiceAccountToken"]
    if account is not None and isinstance(account.get("automountServiceAccountToken"), bool):
        return account["automountServiceAccountToken"]
    return True


def admit_pod(pod: dict[str, Any], account: dict[str, Any] | None, suffix: str) -> dict[str, Any]:
    """The Pod as the plugin leaves it, changed in place (it is the create's own); ``account`` is its
    ServiceAccount (None if not found), ``suffix`` random."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return pod  # nothing to mount into; validation reports the Pod
    spec["serviceAccountName"] = account_name(pod)
    if not spec.get("imagePullSecrets") and account is not None and isinstance(account.get("imagePullSecrets"), list):
        spec["imagePullSecrets"] = deep_copy(account["imagePullSecrets"])
    if not _automount(spec, account):
        return pod
    containers = [
        c for section in ("initContainers", "containers") for c in list_or_empty(spec.get(section)) if isinstance(c, dict)
    ]
    needing = [
        c
        for c in containers
        if not any(
            isinstance(m, dict) and m.get("mountPath") == TOKEN_MOUNT_PATH for m in list_or_empty(c.get("volumeMounts"))
        )
    ]
    volumes = spec.get("volumes")
    if not needing or (volumes is not None and not isinstance(volumes, list)):
        return pod
    # A Pod that already carries a token volume (a copy of an admitted Pod) keeps it and its name.
    existing = next(
        (
            v["name"]
            for v in list_or_empty(volumes)
            if isinstance(v, dict) and str(v.get("name", "")).startswith(VOLUME_PREFIX)
        ),
        None,
    )
    name = existing or VOLUME_PREFIX + suffix
    if existing is None:
        spec["volumes"] = [*list_or_empty(volumes), _token_volume(name)]
    for container in needing:
        mount = {"name": name, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH}
        container["volumeMounts"] = [*list_or_empty(container.get("volumeMounts")), mount]
    return pod
