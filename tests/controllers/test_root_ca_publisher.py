"""The root CA publisher: ``kube-root-ca.crt`` in every namespace, with this cluster's CA, kept as it should be."""

from __future__ import annotations

from cryptography import x509

from clusterviz.api.cluster_ca import cluster_ca_pem

from .helpers import Cluster


async def test_a_new_namespace_gets_the_clusters_ca(cluster: Cluster) -> None:
    await cluster.kubectl.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    await cluster.settle()
    published = await cluster.kubectl.get("configmaps", "kube-root-ca.crt", "team-a")
    assert published["data"] == {"ca.crt": cluster_ca_pem("demo")}
    assert published["metadata"]["annotations"]["kubernetes.io/description"].startswith("Contains a CA bundle")
    ca = x509.load_pem_x509_certificate(published["data"]["ca.crt"].encode())
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True
    assert cluster_ca_pem("demo") == cluster_ca_pem("demo") != cluster_ca_pem("other")


async def test_an_edited_or_deleted_ca_config_map_is_put_back(cluster: Cluster) -> None:
    await cluster.kubectl.patch("configmaps", "kube-root-ca.crt", {"data": {"ca.crt": "forged", "extra": "x"}}, "default")
    await cluster.settle()
    restored = await cluster.kubectl.get("configmaps", "kube-root-ca.crt", "default")
    assert restored["data"] == {"ca.crt": cluster_ca_pem("demo")}
    await cluster.kubectl.delete("configmaps", "kube-root-ca.crt", "kube-public")
    await cluster.settle()
    recreated = await cluster.kubectl.get("configmaps", "kube-root-ca.crt", "kube-public")
    assert recreated["data"] == {"ca.crt": cluster_ca_pem("demo")}
