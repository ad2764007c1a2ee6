"""ImageLocality score cases from upstream
``pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go`` (TestImageLocalityPriority,
the version whose maximum threshold is 1000 MB per container and that counts init containers)."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.plugins.image_locality import ImageLocality, normalized_image_name
from tests.scheduler.helpers import MiB, container, make_node, make_pod, scores, snap

NODE_40_300_2000 = (
    (("gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"), 40),
    (("gcr.io/300:latest", "gcr.io/300:v1"), 300),
    (("gcr.io/2000:latest",), 2000),
)
NODE_250_10 = ((("gcr.io/250:latest",), 250), (("gcr.io/10:latest", "gcr.io/10:v1"), 10))
NODE_600_40_900 = ((("gcr.io/600:latest",), 600), (("gcr.io/40:latest",), 40), (("gcr.io/900:latest",), 900))
NODE_300_600_900 = ((("gcr.io/300:latest",), 300), (("gcr.io/600:latest",), 600), (("gcr.io/900:latest",), 900))
NODE_4000_30 = ((("gcr.io/4000:latest",), 4000), (("gcr.io/30:latest",), 30))
NODE_20_30_40 = ((("gcr.io/20:latest",), 20), (("gcr.io/30:latest",), 30), (("gcr.io/40:latest",), 40))
NO_IMAGES = ()


def image_node(name: str, images) -> dict:
    return make_node(name, images=[(names, size_mb * MiB) for names, size_mb in images])


def image_pod(*images: str, init: tuple[str, ...] = ()) -> dict:
    return make_pod(
        "p",
        containers=[container(f"c{i}", image) for i, image in enumerate(images)],
        init_containers=[container(f"i{i}", image) for i, image in enumerate(init)],
    )


@pytest.mark.parametrize(
    ("pod", "node_images", "want"),
    [
        pytest.param(
            image_pod("gcr.io/40", "gcr.io/250"),
            (NODE_40_300_2000, NODE_250_10),
            [0, 5],
            id="two images spread on two nodes, prefer the larger image one",
        ),
        pytest.param(
            image_pod("gcr.io/40", "gcr.io/300"),
            (NODE_40_300_2000, NODE_250_10),
            [7, 0],
            id="two images on one node, prefer this node",
        ),
        pytest.param(
            image_pod("gcr.io/10", "gcr.io/4000"),
            (NODE_4000_30, NODE_250_10),
            [100, 0],
            id="if exceed limit, use limit",
        ),
        pytest.param(
            image_pod("gcr.io/10", "gcr.io/4000"),
            (NODE_4000_30, NODE_250_10, NO_IMAGES),
            [66, 0, 0],
            id="if exceed limit, use limit (with node which has no images present)",
        ),
        pytest.param(
            image_pod("gcr.io/300", "gcr.io/600", "gcr.io/900"),
            (NODE_600_40_900, NODE_300_600_900, NO_IMAGES),
            [32, 36, 0],
            id="pod with multiple large images, node2 is preferred",
        ),
        pytest.param(
            image_pod("gcr.io/30", "gcr.io/40"),
            (NODE_20_30_40, NODE_4000_30),
            [1, 0],
            id="pod with multiple small images",
        ),
        pytest.param(
            image_pod("gcr.io/30", init=("gcr.io/300",)),
            (NODE_40_300_2000, NODE_20_30_40),
            [6, 0],
            id="include InitContainers: two images spread on two nodes, prefer the larger image one",
        ),
    ],
)
def test_image_locality_priority(pod, node_images, want):
    nodes = [image_node(f"node{i + 1}", images) for i, images in enumerate(node_images)]
    got = scores(ImageLocality(), pod, snap(nodes))["normalized"]
    assert [got[f"node{i + 1}"] for i in range(len(nodes))] == want


@pytest.mark.parametrize(
    ("image", "want"),
    [
        pytest.param("root", "root:latest", id="add :latest postfix 1"),
        pytest.param("gcr.io:5000/root", "gcr.io:5000/root:latest", id="add :latest postfix 2"),
        pytest.param("root:tag", "root:tag", id="keep it as is 1"),
        pytest.param("root@sha256:" + "ab" * 32, "root@sha256:" + "ab" * 32, id="keep it as is 2"),
    ],
)
def test_normalized_image_name(image, want):
    assert normalized_image_name(image) == want
