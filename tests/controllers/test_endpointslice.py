"""The EndpointSlice controller never acts on a cache that has yet to show its own writes."""

from __future__ import annotations

from typing import Any

from clusterviz.controllers.endpointslice import EndpointSliceController

from .helpers import Cluster, deployment
from .test_endpoints import service


async def slices_of(cluster: Cluster, service_name: str) -> list[dict[str, Any]]:
    return [
        s for s in (await cluster.kubectl.list("endpointslices", "default"))["items"]
        if s["metadata"]["labels"]["kubernetes.io/service-name"] == service_name
    ]


async def test_a_sync_before_the_informer_shows_the_slice_just_made_makes_no_second_slice(cluster: Cluster) -> None:
    await cluster.kubectl.create(deployment())
    await cluster.settle()
    [controller] = [c for c in cluster.cm.controllers if isinstance(c, EndpointSliceController)]
    made: list[str] = []
    create = controller.client.create

    async def counted(body: dict[str, Any], namespace: str) -> dict[str, Any]:
        if body["kind"] == "EndpointSlice":  # the controllers share one client
            made.append(body["metadata"]["generateName"])
        return await create(body, namespace)

    controller.client.create = counted  # type: ignore[method-assign]
    # The informer lags (under load the slice's watch event comes late): syncs meanwhile, such as one
    # for a Pod that changed, see a cache without the slice just made and must not make another.
    shown = controller._owned
    controller._owned = lambda namespace, name: []  # type: ignore[method-assign]
    await cluster.kubectl.create(service())
    await cluster.settle()
    await controller.sync("default/myapp")
    controller._owned = shown  # type: ignore[method-assign]
    controller.client.create = create  # type: ignore[method-assign]
    assert made == ["myapp-"]
    await cluster.settle()

    slices = await slices_of(cluster, "myapp")
    assert len(slices) == 1, [s["metadata"]["name"] for s in slices]
    pods = await cluster.pods("app=myapp")
    assert {e["targetRef"]["name"] for e in slices[0]["endpoints"]} == {p["metadata"]["name"] for p in pods}
