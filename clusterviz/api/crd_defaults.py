"""Defaults of CustomResourceDefinitions (apiextensions.k8s.io/v1), as upstream's SetDefaults_CustomResourceDefinition."""

from __future__ import annotations

from typing import Any, Final

DEFAULT_WEBHOOK_PORT: Final = 443


def default_custom_resource_definition(crd: dict[str, Any]) -> None:
    """Fill in what the API server does, in place: the singular name and list kind from the kind, conversion
    strategy None, the conversion webhook Service's port 443, and the storage version as the first stored one.

    Values of unexpected types are left for validation to report.
    """
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return
    names = spec.get("names")
    if isinstance(names, dict):
        kind = names.get("kind")
        if isinstance(kind, str):
            if not names.get("singular"):
                names["singular"] = kind.lower()
            if not names.get("listKind") and kind:
                names["listKind"] = kind + "List"
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}
    _default_webhook_port(spec["conversion"])
    _default_stored_versions(crd, spec)


def _default_webhook_port(conversion: Any) -> None:
    webhook = conversion.get("webhook") if isinstance(conversion, dict) else None
    client = webhook.get("clientConfig") if isinstance(webhook, dict) else None
    service = client.get("service") if isinstance(client, dict) else None
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = DEFAULT_WEBHOOK_PORT


def _default_stored_versions(crd: dict[str, Any], spec: dict[str, Any]) -> None:
    versions = spec.get("versions")
    storage = [v["name"] for v in versions if isinstance(v, dict) and v.get("storage") is True
               and isinstance(v.get("name"), str)] if isinstance(versions, list) else []
    if not storage:
        return
    if crd.get("status") is None:
        crd["status"] = {}
    status = crd["status"]
    if isinstance(status, dict) and not status.get("storedVersions"):
        status["storedVersions"] = storage[:1]
