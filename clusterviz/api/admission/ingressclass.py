"""The DefaultIngressClass admission plugin: a new Ingress that names no class gets the cluster's default one.

An Ingress with neither ``spec.ingressClassName`` nor the deprecated
``kubernetes.io/ingress.class`` annotation gets the IngressClass annotated
``ingressclass.kubernetes.io/is-default-class: "true"``; with several the
newest wins (then the first name), and with none the Ingress is left as it is.
"""

from __future__ import annotations

from typing import Any, Final

from clusterviz.apimachinery.unstructured import dict_or_empty

DEFAULT_CLASS_ANNOTATION: Final = "ingressclass.kubernetes.io/is-default-class"
_CLASS_ANNOTATION: Final = "kubernetes.io/ingress.class"


def _newest_first(ingress_class: dict[str, Any]) -> tuple[str, str]:
    meta = dict_or_empty(ingress_class.get("metadata"))
    return str(meta.get("creationTimestamp") or ""), str(meta.get("name") or "")


def admit_ingress(ingress: dict[str, Any], classes: list[dict[str, Any]]) -> None:
    """Set ``spec.ingressClassName`` of an Ingress being created (in place) when a default class exists."""
    spec = ingress.get("spec")
    annotations = dict_or_empty(dict_or_empty(ingress.get("metadata")).get("annotations"))
    if not isinstance(spec, dict) or spec.get("ingressClassName") is not None or _CLASS_ANNOTATION in annotations:
        return
    defaults = [c for c in classes
                if dict_or_empty(dict_or_empty(c.get("metadata")).get("annotations")).get(DEFAULT_CLASS_ANNOTATION)
                == "true"]
    if defaults:
        latest = max(_newest_first(c)[0] for c in defaults)
        chosen = min((c for c in defaults if _newest_first(c)[0] == latest), key=_newest_first)
        spec["ingressClassName"] = _newest_first(chosen)[1]
