"""Odd Ingress, IngressClass, ResourceQuota and LimitRange bodies: validation, defaults, the printers, the page's
describers and the admission steps take any JSON without raising."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterviz.api.admission import limitranger, resourcequota
from clusterviz.api.defaulting import apply_defaults
from clusterviz.api.tables import build_table
from clusterviz.api.validation import validate
from clusterviz.web.describe_networking import describe_ingress, describe_ingress_class
from clusterviz.web.describe_quota import describe_limit_range, describe_resource_quota

NOW = datetime(2026, 1, 1, tzinfo=UTC)
leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                   st.sampled_from(["", "1", "500m", "Prefix", "Exact", "Container", "Pod", "*.a.com", "/x", "cpu",
                                    "pods", "PersistentVolumeClaim", "Namespace", "-1", "1Gi"]))
json_values = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.sampled_from(["spec", "rules", "http", "paths", "backend", "service", "port", "number", "name",
                                     "host", "path", "pathType", "tls", "hosts", "defaultBackend", "resource", "kind",
                                     "limits", "type", "max", "min", "default", "defaultRequest", "hard", "scopes",
                                     "status", "used", "controller", "parameters", "scope", "loadBalancer",
                                     "ingress", "ip", "maxLimitRequestRatio", "scopeSelector", "matchExpressions"]),
                    inner, max_size=4)), max_leaves=25)
KINDS = [("networking.k8s.io/v1", "Ingress", "ingresses"), ("networking.k8s.io/v1", "IngressClass", "ingressclasses"),
         ("v1", "ResourceQuota", "resourcequotas"), ("v1", "LimitRange", "limitranges")]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(kind=st.sampled_from(KINDS), spec=json_values, status=json_values)
def test_odd_bodies_never_raise(kind: tuple[str, str, str], spec: Any, status: Any):
    api_version, name, plural = kind
    obj: dict[str, Any] = {"apiVersion": api_version, "kind": name, "metadata": {"name": "x", "namespace": "default"},
                           "spec": spec, "status": status}
    validate(name, obj)
    validate(name, obj, obj)
    defaulted = apply_defaults(name, obj)
    build_table(plural, [defaulted], NOW)
    describe = {"Ingress": lambda o: describe_ingress(o, [], []), "IngressClass": describe_ingress_class,
                "ResourceQuota": describe_resource_quota, "LimitRange": describe_limit_range}[name]
    str(describe(defaulted))
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "resources": spec}]}}
    if name == "LimitRange":
        limitranger.refusal(limitranger.default_pod(pod, [obj]), [obj])
        limitranger.claim_refusal({"spec": {"resources": spec}}, [obj])
    if name == "ResourceQuota":
        resourcequota.admit([obj], "pods", "", pod, [pod])
        resourcequota.admit([obj], "services", "", {"spec": spec}, [], {"spec": status})
