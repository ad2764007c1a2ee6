"""ImageLocality: size thresholds, container-count scaling and spread scaling."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.plugins.image_locality import (
    MAX_CONTAINER_THRESHOLD,
    MIN_THRESHOLD,
    ImageLocality,
    calculate_priority,
    normalized_image_name,
)
from tests.scheduler.helpers import MiB, container, make_node, make_pod, scores, snap


def image_scores(pod, nodes):
    return scores(ImageLocality(), pod, snap(nodes))["raw"]


def test_thresholds_are_23_and_1000_mb():
    assert (MIN_THRESHOLD, MAX_CONTAINER_THRESHOLD) == (23 * MiB, 1000 * MiB)


def test_spec_example_500mib_on_one_of_three_nodes_scores_14():
    nodes = [make_node("node-a", images=[(["nginx:1.25"], 500 * MiB)]), make_node("node-b"), make_node("node-c")]
    assert image_scores(make_pod("demo"), nodes) == {"node-a": 14, "node-b": 0, "node-c": 0}


def test_image_on_every_node_counts_its_full_size():
    nodes = [make_node(n, images=[(["big:1"], 1000 * MiB)]) for n in ("a", "b")]
    assert image_scores(make_pod("p", image="big:1"), nodes) == {"a": 100, "b": 100}


def test_maximum_scales_with_the_number_of_containers():
    nodes = [make_node("a", images=[(["big:1"], 1000 * MiB)])]
    pod = make_pod("p", containers=[container(image="big:1"), container("b", image="other:1")])
    assert image_scores(pod, nodes) == {"a": 49}  # 100 * (1000-23) / (2000-23)


def test_images_below_the_minimum_score_zero():
    nodes = [make_node("a", images=[(["tiny:1"], 20 * MiB)])]
    assert image_scores(make_pod("p", image="tiny:1"), nodes) == {"a": 0}


def test_init_container_images_count_too():
    nodes = [make_node("a", images=[(["init:1"], 1000 * MiB)])]
    pod = make_pod("p", image="absent:1", init_containers=[container("i", image="init:1")])
    assert image_scores(pod, nodes) == {"a": 49}


def test_pod_without_containers_scores_zero():
    assert calculate_priority(0, 0) == 0


@pytest.mark.parametrize(
    ("image", "normalized"),
    [
        ("nginx", "nginx:latest"),
        ("nginx:1.25", "nginx:1.25"),
        ("registry.local:5000/team/app", "registry.local:5000/team/app:latest"),
        ("docker.io/library/nginx:1.25", "docker.io/library/nginx:1.25"),
        ("app@sha256:abcd", "app@sha256:abcd"),
    ],
)
def test_image_names_get_latest_only_without_a_tag(image, normalized):
    assert normalized_image_name(image) == normalized


def test_no_registry_prefix_is_added():
    nodes = [make_node("a", images=[(["docker.io/library/nginx:latest"], 500 * MiB)])]
    assert image_scores(make_pod("p", image="nginx"), nodes) == {"a": 0}
