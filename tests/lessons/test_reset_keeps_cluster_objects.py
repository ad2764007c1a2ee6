"""A lesson's reset removes the class's Secrets and ServiceAccounts, and keeps what every namespace has of its own."""

from __future__ import annotations

from typing import Any

from clusterviz.api.client import Client
from clusterviz.lessons import runner


async def test_a_reset_keeps_default_accounts_and_ca_config_maps_only(sim: Any) -> None:
    client = Client("demo", "kubectl")
    await client.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds"}, "stringData": {"a": "1"}})
    await client.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "builder"}})
    await client.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}})
    await sim.engine.until_settled()
    await runner.reset("demo")
    await sim.engine.until_settled()
    assert (await client.list("secrets"))["items"] == []
    accounts = {(a["metadata"]["namespace"], a["metadata"]["name"]) for a in (await client.list("serviceaccounts"))["items"]}
    config_maps = {(c["metadata"]["namespace"], c["metadata"]["name"]) for c in (await client.list("configmaps"))["items"]}
    namespaces = {"default", "kube-system", "kube-public", "kube-node-lease"}
    assert accounts == {(ns, "default") for ns in namespaces}
    assert config_maps == {(ns, "kube-root-ca.crt") for ns in namespaces}
