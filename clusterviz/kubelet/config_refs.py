"""What a Pod takes from ConfigMaps and Secrets: its containers' environment and its volumes' files.

The kubelet reads each referenced object through the API server (the real
kubelet's secret and configmap managers do the same, from a cache fed by the
API), so a missing one shows exactly as upstream reports it:

* an environment reference that cannot be resolved stops that container
  with ``CreateContainerConfigError`` (``secret "x" not found``,
  ``couldn't find key k in Secret ns/x``) until it can;
* a volume that cannot be set up keeps the whole Pod in ``ContainerCreating``
  with ``FailedMount`` (``MountVolume.SetUp failed for volume "v" : ...``).

An ``optional: true`` reference to something missing is skipped, as upstream.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from typing import Any

Obj = dict[str, Any]
# Reads an object (plural, namespace, name) through the API; None when it does not exist.
Fetch = Callable[[str, str, str], Awaitable[Obj | None]]

# The singular nouns of upstream's messages (its NotFound errors and its key errors).
_NOUN = {"secrets": ("secret", "Secret"), "configmaps": ("configmap", "ConfigMap")}
# How each volume plugin reports an ``items`` key its object lacks.
_MISSING_ITEM = {
    "secrets": "references non-existent secret key: ",
    "configmaps": "configmap references non-existent config key: ",
}


class ConfigRefError(Exception):
    """A reference that cannot be resolved; ``str()`` is upstream's message."""


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _values(obj: Obj, plural: str) -> dict[str, str]:
    """The object's entries as text: a Secret's bytes decoded, a ConfigMap's data and binaryData."""
    out: dict[str, str] = {}
    encoded = [_dict(obj.get("data"))] if plural == "secrets" else [_dict(obj.get("binaryData"))]
    for section in encoded:
        for key, value in section.items():
            try:
                out[key] = base64.b64decode(str(value or "")).decode("utf-8", errors="replace")
            except (binascii.Error, ValueError):
                out[key] = ""
    if plural == "configmaps":
        out.update({k: str(v) for k, v in _dict(obj.get("data")).items() if v is not None})
    return out


class Resolver:
    """Resolves one Pod's references, reading each object at most once per pass."""

    def __init__(self, fetch: Fetch, pod: Obj) -> None:
        self.fetch = fetch
        self.namespace = str(_dict(pod.get("metadata")).get("namespace") or "default")
        self.pod = pod
        self._read: dict[tuple[str, str], dict[str, str] | None] = {}

    async def entries(self, plural: str, name: str, optional: bool) -> dict[str, str] | None:
        """The named object's entries; None when it is missing but optional."""
        if (plural, name) not in self._read:
            obj = await self.fetch(plural, self.namespace, name)
            self._read[(plural, name)] = None if obj is None else _values(obj, plural)
        found = self._read[(plural, name)]
        if found is None and not optional:
            raise ConfigRefError(f'{_NOUN[plural][0]} "{name}" not found')
        return found

    async def container_env(self, container: Obj) -> dict[str, str]:
        """``envFrom`` then ``env`` (later entries win), with the values of the references filled in."""
        env: dict[str, str] = {}
        for source in container.get("envFrom") or []:
            source = _dict(source)
            prefix = str(source.get("prefix") or "")
            for field, plural in (("configMapRef", "configmaps"), ("secretRef", "secrets")):
                ref = source.get(field)
                if isinstance(ref, dict):
                    found = await self.entries(plural, str(ref.get("name") or ""), ref.get("optional") is True)
                    env.update({prefix + k: v for k, v in (found or {}).items()})
        for var in container.get("env") or []:
            var = _dict(var)
            name = str(var.get("name") or "")
            value_from = _dict(var.get("valueFrom"))
            for field, plural in (("configMapKeyRef", "configmaps"), ("secretKeyRef", "secrets")):
                ref = value_from.get(field)
                if not isinstance(ref, dict):
                    continue
                optional = ref.get("optional") is True
                source_name, key = str(ref.get("name") or ""), str(ref.get("key") or "")
                found = await self.entries(plural, source_name, optional)
                if found is not None and key in found:
                    env[name] = found[key]
                elif found is not None and not optional:
                    raise ConfigRefError(f"couldn't find key {key} in {_NOUN[plural][1]} {self.namespace}/{source_name}")
                break
            else:
                if not value_from:
                    env[name] = str(var.get("value") or "")
        return env

    async def _volume_source(self, plural: str, source: Obj, name_field: str) -> None:
        optional = source.get("optional") is True
        found = await self.entries(plural, str(source.get(name_field) or ""), optional)
        if found is None:
            return
        for item in source.get("items") or []:
            key = str(_dict(item).get("key") or "")
            if key not in found and not optional:
                raise ConfigRefError(_MISSING_ITEM[plural] + key)

    async def volume_error(self) -> tuple[str, str] | None:
        """The first volume that cannot be set up, with why; None when all can."""
        for volume in _dict(self.pod.get("spec")).get("volumes") or []:
            volume = _dict(volume)
            try:
                if isinstance(volume.get("secret"), dict):
                    await self._volume_source("secrets", volume["secret"], "secretName")
                if isinstance(volume.get("configMap"), dict):
                    await self._volume_source("configmaps", volume["configMap"], "name")
                for projection in _dict(volume.get("projected")).get("sources") or []:
                    projection = _dict(projection)
                    if isinstance(projection.get("secret"), dict):
                        await self._volume_source("secrets", projection["secret"], "name")
                    if isinstance(projection.get("configMap"), dict):
                        await self._volume_source("configmaps", projection["configMap"], "name")
            except ConfigRefError as exc:
                return str(volume.get("name") or ""), str(exc)
        return None
