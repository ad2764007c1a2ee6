"""EndpointSlices through the real kubectl: made for a Service's Pods, read by kubectl describe service."""

from __future__ import annotations

import json

from tests.conftest import Kubectl
from tests.e2e.test_kubectl import header, ok
from tests.livesim import wait_until


def _slices(kubectl: Kubectl, service: str) -> list[dict]:
    out = ok(kubectl("get", "endpointslices", "-l", f"kubernetes.io/service-name={service}", "-o", "json"))
    return json.loads(out)["items"]


def test_a_service_gets_an_endpoint_slice_of_its_pods_that_kubectl_describe_reads(kubectl: Kubectl):
    ok(kubectl("create", "deployment", "sliced", "--image=nginx", "--replicas=3"))
    ok(kubectl("expose", "deployment", "sliced", "--port=80", "--target-port=80"))

    def three_ready() -> bool:
        slices = _slices(kubectl, "sliced")
        return len(slices) == 1 and sum(e["conditions"]["ready"] for e in slices[0]["endpoints"] or []) == 3

    # Should this ever time out again (it did once in a full run under load), say what the cluster showed.
    assert wait_until(three_ready, 60), (
        f"slices: {_slices(kubectl, 'sliced')}\npods:\n{kubectl('get', 'pods', '-o', 'wide').stdout}"
    )
    [slice_] = _slices(kubectl, "sliced")
    assert slice_["addressType"] == "IPv4"
    assert slice_["metadata"]["name"].startswith("sliced-")
    assert slice_["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"] == "endpointslice-controller.k8s.io"
    [owner] = slice_["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["controller"]) == ("Service", "sliced", True)
    assert slice_["ports"] == [{"name": "", "port": 80, "protocol": "TCP"}]
    pods = json.loads(ok(kubectl("get", "pods", "-l", "app=sliced", "-o", "json")))["items"]
    ips = sorted(p["status"]["podIP"] for p in pods)
    assert sorted(e["addresses"][0] for e in slice_["endpoints"]) == ips
    assert {e["targetRef"]["name"] for e in slice_["endpoints"]} == {p["metadata"]["name"] for p in pods}
    assert all(e["nodeName"] == p["spec"]["nodeName"] for e in slice_["endpoints"] for p in pods
               if p["metadata"]["name"] == e["targetRef"]["name"])

    table = ok(kubectl("get", "endpointslices", "-l", "kubernetes.io/service-name=sliced"))
    assert header(table) == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert table.splitlines()[1].split()[1:3] == ["IPv4", "80"]
    endpoints_line = next(line for line in ok(kubectl("describe", "service", "sliced")).splitlines()
                          if line.startswith("Endpoints:"))
    assert sorted(endpoints_line.split()[1].split(",")) == sorted(f"{ip}:80" for ip in ips)

    # No Pods: one empty slice; no Service: no slices.
    ok(kubectl("scale", "deployment", "sliced", "--replicas=0"))
    assert wait_until(lambda: [s.get("endpoints") for s in _slices(kubectl, "sliced")] in ([None], [[]]), 60)
    ok(kubectl("delete", "service", "sliced"))
    assert wait_until(lambda: _slices(kubectl, "sliced") == [], 60)
    ok(kubectl("delete", "deployment", "sliced", "--wait=false"))


def test_an_endpoint_slice_is_validated_as_the_real_api_server_does(kubectl: Kubectl):
    bad = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "hand-made"},
           "addressType": "IPv5", "endpoints": [{"addresses": []}]}
    refused = kubectl("create", "-f", "-", stdin=json.dumps(bad))
    assert refused.returncode != 0
    assert 'addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"' in refused.stderr
    assert "endpoints[0].addresses: Required value: must contain at least 1 address" in refused.stderr
    good = {**bad, "addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.9"]}]}
    ok(kubectl("create", "-f", "-", stdin=json.dumps(good)))
    changed = kubectl("patch", "endpointslice", "hand-made", "--type=merge", "-p", '{"addressType":"IPv6"}')
    assert "addressType: Invalid value: \"IPv6\": field is immutable" in changed.stderr
    ok(kubectl("delete", "endpointslice", "hand-made"))
