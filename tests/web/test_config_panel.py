"""ConfigMaps, Secrets and ServiceAccounts on the cluster page: their tab and describe panels, values never shown,
in English and Chinese."""

import re

import pytest

from clusterviz.api.client import Client
from tests.web.test_language import chinese_page, names_in
from tests.web.test_objects import get, headings, rows
from tests.web.untranslated import untranslated_english

pytestmark = pytest.mark.django_db(transaction=True)

KUBECTL = Client("demo", "kubectl")
SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "creds", "namespace": "default"},
    "stringData": {"password": "s3cret-value", "user": "admin"},
}
ACCOUNT = {
    "apiVersion": "v1",
    "kind": "ServiceAccount",
    "metadata": {"name": "builder", "namespace": "default"},
    "secrets": [{"name": "creds"}, {"name": "gone"}],
    "imagePullSecrets": [{"name": "regcred"}],
}


def test_the_panel_has_a_config_tab(client):
    page = client.get("/c/demo/").content.decode()
    assert 'name="tab" value="config"' in page


async def test_the_tab_reads_like_kubectl_get_secrets_and_serviceaccounts(sim, async_client):
    await KUBECTL.create(SECRET)
    await KUBECTL.create(ACCOUNT)
    await sim.engine.until_settled()
    html = await get(async_client, "/c/demo/objects?tab=config")
    assert headings(html, "secrets") == ["NAMESPACE", "NAME", "TYPE", "DATA", "AGE"]
    assert [r[:4] for r in rows(html, "secrets")] == [["default", "creds", "Opaque", "2"]]
    assert headings(html, "serviceaccounts") == ["NAMESPACE", "NAME", "SECRETS", "AGE"]
    accounts = [r[:3] for r in rows(html, "serviceaccounts")]
    assert ["default", "builder", "2"] in accounts and ["kube-system", "default", "0"] in accounts
    assert ["default", "kube-root-ca.crt", "1"] in [r[:3] for r in rows(html, "configmaps")]
    assert "s3cret-value" not in html


async def test_describe_shows_sizes_not_values_and_the_accounts_secrets(sim, async_client):
    await KUBECTL.create(SECRET)
    await KUBECTL.create(ACCOUNT)
    await sim.engine.until_settled()
    secret = await get(async_client, "/c/demo/describe/secrets/creds?namespace=default")
    assert re.search(r"Type:\s+Opaque", secret)
    assert re.search(r"password:\s+12 bytes", secret) and re.search(r"user:\s+5 bytes", secret)
    assert "s3cret-value" not in secret and "YWRtaW4" not in secret
    account = await get(async_client, "/c/demo/describe/serviceaccounts/builder?namespace=default")
    assert re.search(r"Image pull secrets:\s+regcred", account)
    assert re.search(r"Mountable secrets: \s+creds\n\s+gone \(not found\)", account)
    assert re.search(r"Tokens:\s+&lt;none&gt;", account)
    config_map = await get(async_client, "/c/demo/describe/configmaps/kube-root-ca.crt?namespace=default")
    assert "ca.crt:\n----\n-----BEGIN CERTIFICATE-----" in config_map


async def test_the_tab_and_describe_have_no_english_left_in_chinese(sim, async_client):
    await KUBECTL.create(SECRET)
    await KUBECTL.create(ACCOUNT)
    await sim.engine.until_settled()
    page = await chinese_page(async_client, "/c/demo/")
    assert "ConfigMap（配置映射）+ Secret（密钥）+ ServiceAccount（服务账号）" in page
    names = await names_in("demo") | {"creds", "builder"}
    for describe in ("secrets/default/creds", "serviceaccounts/default/builder"):
        panel = await chinese_page(async_client, f"/c/demo/objects?tab=config&describe={describe}")
        assert untranslated_english(panel, names) == []


async def test_an_exported_lesson_leaves_the_ca_config_maps_to_the_cluster(async_client):
    await KUBECTL.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}})
    exported = (await async_client.get("/c/demo/export.yaml")).content.decode()
    assert "name: settings" in exported
    assert "kube-root-ca.crt" not in exported
