"""The kubelet's pure parts: image references and sizes, durations, Pod IPs, admission."""

from clusterviz.kubelet import images
from clusterviz.kubelet.admission import admit
from clusterviz.kubelet.runtime import PodIPAM
from clusterviz.kubelet.status import go_duration

from .helpers import pinned_pod

NODE = {
    "metadata": {"name": "node01", "labels": {"kubernetes.io/hostname": "node01"}},
    "spec": {"podCIDR": "10.244.1.0/24"},
    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "2"}},
}


def test_short_image_names_are_qualified_like_containerd_does():
    assert images.parse("nginx").qualified == "docker.io/library/nginx:latest"
    assert images.parse("soscscs/myapp:v1").qualified == "docker.io/soscscs/myapp:v1"
    assert images.parse("registry.k8s.io/pause:3.10").qualified == "registry.k8s.io/pause:3.10"
    assert images.parse("localhost:5000/app").qualified == "localhost:5000/app:latest"


def test_normalized_names_match_the_schedulers_rule():
    assert images.normalized_name("nginx") == "nginx:latest"
    assert images.normalized_name("soscscs/myapp:v1") == "soscscs/myapp:v1"


def test_image_ids_are_stable_and_differ_per_tag():
    assert images.image_id("nginx:1.27") == images.image_id("docker.io/library/nginx:1.27")
    assert images.image_id("nginx:1.27") != images.image_id("nginx:1.26")
    assert images.image_id("nginx:1.27").startswith("docker.io/library/nginx@sha256:")


def test_well_known_images_have_realistic_sizes_and_others_a_stable_one():
    assert 65_000_000 < images.size_bytes("nginx:1.27") < 80_000_000
    assert images.size_bytes("busybox") < 3_000_000
    assert images.size_bytes("mysql:8.0") > images.size_bytes("redis:7")
    assert images.size_bytes("example.com/team/tool:2") == images.size_bytes("example.com/team/tool:2")
    assert 5 * 2**20 <= images.size_bytes("example.com/team/tool:2") < 200 * 2**20


def test_pull_policy_defaults_like_the_api_server():
    assert images.pull_policy({"image": "nginx"}) == "Always"
    assert images.pull_policy({"image": "nginx:1.27"}) == "IfNotPresent"
    assert images.pull_policy({"image": "nginx:1.27", "imagePullPolicy": "Never"}) == "Never"


def test_durations_print_as_go_does():
    assert go_duration(0.3134) == "313ms"
    assert go_duration(1.6612) == "1.661s"
    assert go_duration(2.0) == "2s"
    assert go_duration(63.5) == "1m3.5s"


def test_pod_ips_start_at_two_and_go_round_robin():
    ipam = PodIPAM()
    assert ipam.allocate("a") is None  # no podCIDR yet
    ipam.configure("10.244.1.0/24")
    assert [ipam.allocate(uid) for uid in ("a", "b", "c")] == ["10.244.1.2", "10.244.1.3", "10.244.1.4"]
    assert ipam.allocate("a") == "10.244.1.2"
    ipam.release("b")
    assert ipam.allocate("d") == "10.244.1.5"  # host-local hands out the next one, not the freed one


def test_pod_ips_wrap_around_to_freed_addresses():
    ipam = PodIPAM()
    ipam.configure("10.244.9.0/29")  # .2 to .6 usable
    assert [ipam.allocate(str(i)) for i in range(5)] == [f"10.244.9.{n}" for n in range(2, 7)]
    assert ipam.allocate("full") is None
    ipam.release("1")
    assert ipam.allocate("again") == "10.244.9.3"


def test_admission_rejects_with_upstreams_reason_and_numbers():
    verdict = admit(pinned_pod("big", cpu="3"), NODE, [pinned_pod("first", cpu="2")])
    assert (verdict.admitted, verdict.reason) == (False, "OutOfcpu")
    assert verdict.message == "Node didn't have enough resource: cpu, requested: 3000, used: 2000, capacity: 4000"


def test_admission_counts_pods_before_resources():
    verdict = admit(pinned_pod("third"), NODE, [pinned_pod("a"), pinned_pod("b")])
    assert verdict.reason == "OutOfpods"
    assert verdict.message == "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2"


def test_admission_checks_host_ports_and_no_execute_taints():
    with_port = pinned_pod("web")
    with_port["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    assert admit(with_port, NODE, [with_port]).reason == "NodePorts"
    tainted = {**NODE, "spec": {"taints": [{"key": "maintenance", "effect": "NoExecute"}]}}
    assert admit(pinned_pod("x"), tainted, []).reason == "TaintToleration"
    assert admit(pinned_pod("x"), NODE, []).admitted
