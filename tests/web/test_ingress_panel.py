"""Ingresses and IngressClasses on the page: their tab reads like kubectl get -o wide, describe like kubectl's."""

import pytest

from tests.web.test_objects import KUBECTL, get, headings, rows

pytestmark = pytest.mark.django_db(transaction=True)

INGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "metadata": {"name": "simple", "namespace": "default"},
    "spec": {"ingressClassName": "nginx", "tls": [{"hosts": ["foo.com"], "secretName": "cert"}], "rules": [
        {"host": "foo.com", "http": {"paths": [
            {"path": "/bar", "pathType": "Exact", "backend": {"service": {"name": "svc1", "port": {"number": 8080}}}},
        ]}},
    ]},
}
CLASS = {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": {"name": "nginx"},
         "spec": {"controller": "k8s.io/ingress-nginx"}}


async def test_ingresses_tab_and_describe(sim, async_client):
    await KUBECTL.create(INGRESS)
    await KUBECTL.create(CLASS)
    html = await get(async_client, "/c/demo/objects?tab=ingresses")
    assert headings(html, "ingresses") == ["NAMESPACE", "NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]
    (row,) = rows(html, "ingresses")
    assert row[:6] == ["default", "simple", "nginx", "foo.com", "", "80, 443"]
    assert headings(html, "ingressclasses") == ["NAME", "CONTROLLER", "PARAMETERS", "AGE"]
    assert rows(html, "ingressclasses")[0][:3] == ["nginx", "k8s.io/ingress-nginx", "&lt;none&gt;"]
    described = await get(async_client, "/c/demo/describe/ingresses/simple?namespace=default")
    for line in ("Ingress Class:", "nginx", "cert terminates foo.com", "Host", "Backends", "/bar",
                 'svc1:8080 (&lt;error: services &quot;svc1&quot; not found&gt;)'):
        assert line in described
    described = await get(async_client, "/c/demo/describe/ingressclasses/nginx")
    assert "Controller:" in described and "k8s.io/ingress-nginx" in described
    async_client.cookies["django_language"] = "zh-hans"
    assert "Ingress（入口）+ IngressClass（入口类）" in await get(async_client, "/c/demo/")
