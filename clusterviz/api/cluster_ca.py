"""The cluster's certificate authority, and the ``kube-root-ca.crt`` ConfigMap that publishes it.

Each cluster has its own CA, derived from its name: an Ed25519 key and a
certificate with fixed dates, so every run and every restart gives the very
same bytes (Ed25519 signatures are deterministic) and a publisher that
compares what is stored with what it would write never rewrites for nothing.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
from typing import Any, Final

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.x509.oid import NameOID

__all__ = ["CA_KEY", "DESCRIPTION", "DESCRIPTION_ANNOTATION", "ROOT_CA_CONFIG_MAP", "cluster_ca_pem", "root_ca_config_map"]

ROOT_CA_CONFIG_MAP: Final = "kube-root-ca.crt"
CA_KEY: Final = "ca.crt"
DESCRIPTION_ANNOTATION: Final = "kubernetes.io/description"
DESCRIPTION: Final = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the "
    "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "
    "Kubernetes clusters."
)
_NOT_BEFORE: Final = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
_VALID_FOR: Final = datetime.timedelta(days=3650)  # kubeadm's CA lives ten years


@functools.cache
def cluster_ca_pem(cluster: str) -> str:
    """The PEM certificate of ``cluster``'s CA (the same for the same name, every time)."""
    seed = hashlib.sha256(f"clusterviz cluster CA {cluster}".encode()).digest()
    key = ed25519.Ed25519PrivateKey.from_private_bytes(seed)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubernetes")])
    unused = ("content_commitment", "data_encipherment", "key_agreement", "crl_sign", "encipher_only", "decipher_only")
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(int.from_bytes(seed[:8]) | 1)
        .not_valid_before(_NOT_BEFORE)
        .not_valid_after(_NOT_BEFORE + _VALID_FOR)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, key_encipherment=True, key_cert_sign=True, **dict.fromkeys(unused, False)
            ),
            critical=True,
        )
        .sign(key, None)
    )
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def root_ca_config_map(namespace: str, cluster: str) -> dict[str, Any]:
    """The ``kube-root-ca.crt`` ConfigMap of ``namespace``, as the root CA publisher writes it."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": ROOT_CA_CONFIG_MAP,
            "namespace": namespace,
            "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION},
        },
        "data": {CA_KEY: cluster_ca_pem(cluster)},
    }
