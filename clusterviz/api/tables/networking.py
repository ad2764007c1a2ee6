"""The Ingress and IngressClass printers: what kubectl get ingress and kubectl get ingressclass show."""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty, str_or_empty

from .common import Printed, _meta, _since

# Hosts listed before the rest are counted ("a,b,c + 2 more...").
_HOSTS_SHOWN = 3


def _hosts(rules: list[Any]) -> str:
    """The first three hosts the rules name; ``*`` when none names one; a count of the rules after the third host."""
    shown: list[str] = []
    more = False
    for rule in rules:
        if len(shown) == _HOSTS_SHOWN:
            more = True
            break
        if isinstance(rule, dict) and rule.get("host"):
            shown.append(str(rule["host"]))
    if not shown:
        return "*"
    joined = ",".join(shown)
    return f"{joined} + {len(rules) - _HOSTS_SHOWN} more..." if more else joined


def ingress_addresses(status: dict[str, Any]) -> str:
    """Each ingress point's IP or hostname, sorted and without repeats (the server prints tables wide)."""
    points = list_or_empty(dict_or_empty(status.get("loadBalancer")).get("ingress"))
    found = {str(p.get("ip") or p.get("hostname"))
             for p in points if isinstance(p, dict) and (p.get("ip") or p.get("hostname"))}
    return ",".join(sorted(found))


def _print_ingress(ingress: dict[str, Any], now_ns: int) -> Printed:
    spec, status = dict_or_empty(ingress.get("spec")), dict_or_empty(ingress.get("status"))
    class_name = spec.get("ingressClassName")
    return [
        str_or_empty(_meta(ingress).get("name")),
        class_name if isinstance(class_name, str) else "<none>",
        _hosts(list_or_empty(spec.get("rules"))),
        ingress_addresses(status),
        "80, 443" if list_or_empty(spec.get("tls")) else "80",
        _since(_meta(ingress).get("creationTimestamp"), now_ns),
    ], []


def parameters_reference(params: Any) -> str:
    """``Kind.group/name`` of an IngressClass's parameters, ``<none>`` without them."""
    if not isinstance(params, dict):
        return "<none>"
    text = str_or_empty(params.get("kind"))
    if isinstance(params.get("apiGroup"), str):
        text += "." + params["apiGroup"]
    return f"{text}/{str_or_empty(params.get('name'))}"


def _print_ingress_class(ingress_class: dict[str, Any], now_ns: int) -> Printed:
    spec = dict_or_empty(ingress_class.get("spec"))
    return [
        str_or_empty(_meta(ingress_class).get("name")),
        str_or_empty(spec.get("controller")),
        parameters_reference(spec.get("parameters")),
        _since(_meta(ingress_class).get("creationTimestamp"), now_ns),
    ], []
