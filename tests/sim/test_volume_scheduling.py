"""Scheduling Pods with PersistentVolumeClaims through the API: a WaitForFirstConsumer claim is
provisioned on the node the Pod lands on, a volume pinned to a node draws its Pod there, and a
claim nothing can satisfy keeps the Pod Pending with VolumeBinding's reason until a volume appears."""

from clusterviz.api.client import Client


def claim(name: str, storage_class: str | None = None, size: str = "1Gi") -> dict:
    spec: dict = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": spec}


def claim_pod(name: str, claim_name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}],
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}]}}


def local_volume(name: str, node: str, storage_class: str = "local", size: str = "5Gi") -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                     "persistentVolumeReclaimPolicy": "Retain", "local": {"path": "/mnt/disks/vol1"},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}}}


LOCAL_CLASS = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
               "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"}


def affinity_hosts(volume: dict) -> list[str]:
    terms = volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    return [v for term in terms for e in term.get("matchExpressions") or [] for v in e.get("values") or []]


async def test_a_wait_for_first_consumer_claim_is_provisioned_on_the_pods_node(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(claim("data"))  # the default class, standard, waits for its first consumer
    await sim.engine.until_settled()
    assert (await kubectl.get("persistentvolumeclaims", "data", "default"))["status"]["phase"] == "Pending"

    await kubectl.create(claim_pod("writer", "data"))
    await sim.engine.until_settled()
    pod = await kubectl.get("pods", "writer", "default")
    node = pod["spec"]["nodeName"]
    pvc = await kubectl.get("persistentvolumeclaims", "data", "default")
    assert pvc["status"]["phase"] == "Bound"
    assert pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == node
    volume = await kubectl.get("persistentvolumes", pvc["spec"]["volumeName"])
    assert node in affinity_hosts(volume)
    events = (await kubectl.list("events", "default", field_selector="involvedObject.name=writer"))["items"]
    assert "Scheduled" in [e["reason"] for e in events]


async def test_a_pod_goes_to_the_node_its_volume_is_pinned_to(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(LOCAL_CLASS)
    await kubectl.create(local_volume("local-node02", "node02"))
    await kubectl.create(claim("pinned", "local"))
    await kubectl.create(claim_pod("reader", "pinned"))
    await sim.engine.until_settled()
    pod = await kubectl.get("pods", "reader", "default")
    assert pod["spec"]["nodeName"] == "node02"
    volume = await kubectl.get("persistentvolumes", "local-node02")
    assert volume["spec"]["claimRef"]["name"] == "pinned"
    assert (await kubectl.get("persistentvolumeclaims", "pinned", "default"))["spec"]["volumeName"] == "local-node02"


async def test_a_claim_no_volume_satisfies_keeps_its_pod_pending_until_one_is_made(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(LOCAL_CLASS)
    await kubectl.create(claim("nowhere", "local"))
    await kubectl.create(claim_pod("waiting", "nowhere"))
    await sim.engine.until_settled()
    pod = await kubectl.get("pods", "waiting", "default")
    assert not pod["spec"].get("nodeName")
    events = (await kubectl.list("events", "default", field_selector="involvedObject.name=waiting"))["items"]
    failed = [e["message"] for e in events if e["reason"] == "FailedScheduling"]
    assert failed and failed[-1].startswith(
        "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind."
    )

    # A new PersistentVolume moves the Pod back to the active queue (VolumeBinding's PV/Add event).
    await kubectl.create(local_volume("local-node03", "node03"))
    await sim.engine.until_settled()
    assert (await kubectl.get("pods", "waiting", "default"))["spec"]["nodeName"] == "node03"


async def test_an_immediate_claim_holds_its_pod_until_the_pv_controller_binds_it(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create(claim_pod("early", "quick"))  # the claim does not exist yet
    await sim.engine.until_settled()
    events = (await kubectl.list("events", "default", field_selector="involvedObject.name=early"))["items"]
    assert [e["message"] for e in events if e["reason"] == "FailedScheduling"][0].startswith(
        '0/3 nodes are available: persistentvolumeclaim "quick" not found.'
    )
    # fast binds at once: the Pod is requeued when its claim appears and again when it is bound.
    await kubectl.create(claim("quick", "fast"))
    await sim.engine.until_settled()
    pod = await kubectl.get("pods", "early", "default")
    assert pod["spec"].get("nodeName")
    assert (await kubectl.get("persistentvolumeclaims", "quick", "default"))["status"]["phase"] == "Bound"


async def test_a_claim_nobody_provisions_waits_without_keeping_fast_forward_going(sim):
    kubectl = Client("demo", "kubectl")
    await kubectl.create({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "external"},
                          "provisioner": "example.com/nobody", "volumeBindingMode": "WaitForFirstConsumer"})
    await kubectl.create(claim("later", "external"))
    await kubectl.create(claim_pod("patient", "later"))
    await sim.engine.until_settled()  # returns: the binding cycle waits on the claim, not on a clock
    assert not (await kubectl.get("pods", "patient", "default"))["spec"].get("nodeName")
    pvc = await kubectl.get("persistentvolumeclaims", "later", "default")
    assert pvc["status"]["phase"] == "Pending"
    assert pvc["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] in ("node01", "node02", "node03")
    assert pvc["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"] == "example.com/nobody"
