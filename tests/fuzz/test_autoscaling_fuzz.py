"""Fuzzing both versions of HorizontalPodAutoscalers: odd v1 and v2 bodies never fail with 5xx, and a refusal writes
nothing (the conversion between the versions included)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz.fuzzing import (
    FUZZ,
    assert_refusal_is_a_status,
    bodies,
    junk,
    mostly,
    mutated,
    names,
    queries,
    revision,
    send,
)

pytestmark = pytest.mark.django_db(transaction=True)

# Copied into each drawn object: a mutation changes the copy, never what the next draw starts from.
TARGET = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"


@st.composite
def v1_objects(draw: st.DrawFn) -> dict[str, Any]:
    """A v1 autoscaler, its annotations sometimes carrying v2's metrics or behavior (or junk in their place)."""
    annotations = draw(st.one_of(st.just({}), st.fixed_dictionaries({}, optional={
        "autoscaling.alpha.kubernetes.io/metrics": mostly(st.just(
            '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}]')),
        "autoscaling.alpha.kubernetes.io/behavior": mostly(st.just('{"ScaleDown":{"StabilizationWindowSeconds":60}}')),
    })))
    return {
        "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": draw(names), "annotations": annotations},
        "spec": {"scaleTargetRef": draw(mostly(st.builds(dict, st.just(TARGET)))), "minReplicas": draw(mostly(st.integers(-1, 5))),
                 "maxReplicas": draw(mostly(st.integers(0, 10))),
                 "targetCPUUtilizationPercentage": draw(mostly(st.integers(-5, 200)))},
    }


@st.composite
def v2_objects(draw: st.DrawFn) -> dict[str, Any]:
    """A v2 autoscaler with a resource metric and sometimes a behavior."""
    target = draw(mostly(st.fixed_dictionaries({"type": mostly(st.sampled_from(["Utilization", "AverageValue"]))},
                                                optional={"averageUtilization": mostly(st.integers(-1, 200)),
                                                          "averageValue": mostly(st.just("100m"))})))
    spec: dict[str, Any] = {
        "scaleTargetRef": dict(TARGET), "maxReplicas": draw(mostly(st.integers(0, 10))),
        "metrics": [{"type": draw(mostly(st.sampled_from(["Resource", "Pods"]))),
                     "resource": {"name": draw(mostly(st.just("cpu"))), "target": target}}],
    }
    if draw(st.booleans()):
        spec["behavior"] = {"scaleUp": {"selectPolicy": draw(mostly(st.sampled_from(["Max", "Min", "Disabled"]))),
                                        "policies": [{"type": "Pods", "value": draw(mostly(st.integers(-1, 4))),
                                                      "periodSeconds": draw(mostly(st.integers(0, 2000)))}]}}
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": draw(names)}, "spec": spec}


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, str, dict[str, str], bytes, str]:
    path = draw(st.sampled_from([V1, V2]))
    method = draw(st.sampled_from(["POST", "PUT", "PATCH"]))
    made = v1_objects() if path == V1 else v2_objects()
    body, content_type = draw(bodies(st.one_of(made, mutated(made), junk), method))
    return method, path if method == "POST" else f"{path}/web", draw(queries), body, content_type


@settings(max_examples=300, **FUZZ)
@given(request=requests())
async def test_random_autoscaler_writes_never_fail_with_5xx_and_a_refusal_writes_nothing(async_client, request):
    method, path, query, body, content_type = request
    before = await revision()
    resp = await send(async_client, method, path, query, body, content_type)
    assert_refusal_is_a_status(resp.status_code, resp.content, resp.get("Content-Type", ""), method)
    if resp.status_code >= 400 or query.get("dryRun"):
        assert await revision() == before, (resp.status_code, resp.content[:300])
    if resp.status_code < 300:
        # Whatever was stored reads back through both versions.
        name = "" if method == "POST" else path.rsplit("/", 1)[-1]
        for version in (V1, V2):
            again = await async_client.get(f"{version}/{name}" if name else version)
            assert again.status_code < 500, again.content[:300]
