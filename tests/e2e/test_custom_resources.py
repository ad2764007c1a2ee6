"""CustomResourceDefinitions through the real kubectl and the official Python client: a definition adds its
kind to the cluster's API (discovery, OpenAPI, explain, printer columns), its schema defaults, prunes and
validates the objects, and deleting it deletes them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client, watch
from kubernetes.client.rest import ApiException

from tests.conftest import Kubectl
from tests.e2e.test_client_e2e_core import api_client_for
from tests.e2e.test_kubectl import ok
from tests.livesim import LiveServer, wait_until

YAML = Path(__file__).parent / "crd_yaml"
CRD = "crontabs.stable.example.com"


@pytest.fixture(scope="module")
def crd_cluster(live: LiveServer) -> str:
    created = live.manage("createcluster", "crdlab", "--nodes", "1")
    assert created.returncode == 0, created.stderr
    return "crdlab"


@pytest.fixture
def kubectl(kubectl_binary: str, live: LiveServer, tmp_path: Path, crd_cluster: str) -> Kubectl:
    return Kubectl(kubectl_binary, live.cluster_url(crd_cluster), tmp_path)


@pytest.fixture(scope="module")
def api(live: LiveServer, crd_cluster: str) -> Iterator[client.ApiClient]:
    yield from api_client_for(live, crd_cluster)


def crontab(name: str, **spec: object) -> str:
    fields = "".join(f"  {k}: {v}\n" for k, v in spec.items())
    return f"apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: {name}\nspec:\n{fields}"


def test_a_definition_serves_its_kind_with_its_columns_defaults_and_schema(kubectl: Kubectl, tmp_path: Path):
    assert ok(kubectl("apply", "-f", str(YAML / "crontab-crd.yaml"))).strip() == (
        f"customresourcedefinition.apiextensions.k8s.io/{CRD} created"
    )
    table = ok(kubectl("get", "crd")).splitlines()
    assert table[0].split() == ["NAME", "CREATED", "AT"] and table[1].split()[0] == CRD
    conditions = ok(kubectl("get", "crd", CRD, "-o",
                            "jsonpath={range .status.conditions[*]}{.type}={.status} {end}{.status.storedVersions}"))
    assert conditions == 'NamesAccepted=True Established=True ["v1"]'
    resources = ok(kubectl("api-resources", "--api-group=stable.example.com", "--no-headers")).split()
    assert resources == ["crontabs", "ct", "stable.example.com/v1", "true", "CronTab"]
    # The aggregator registers the new group version, Local like the built-in ones.
    assert wait_until(lambda: kubectl("get", "apiservice", "v1.stable.example.com", "--no-headers").stdout.split()[1:3]
                      == ["Local", "True"])

    assert ok(kubectl("apply", "-f", str(YAML / "my-crontab.yaml"))).strip() == (
        "crontab.stable.example.com/my-new-cron-object created"
    )
    rows = [line.split(None, 1) for line in ok(kubectl("get", "crontabs")).splitlines()]
    assert rows[0][0] == "NAME" and rows[0][1].split() == ["SPEC", "REPLICAS", "AGE"]
    assert rows[1][0] == "my-new-cron-object" and rows[1][1].startswith("* * * * */5   1 ")
    # The schema's default, stored with the object.
    assert ok(kubectl("get", "ct", "my-new-cron-object", "-o", "jsonpath={.spec.replicas}")) == "1"
    # Applying the same manifest server-side changes nothing: the spec, defaults included, is the same.
    ok(kubectl("apply", "--server-side", "-f", str(YAML / "my-crontab.yaml")))
    assert ok(kubectl("get", "ct", "my-new-cron-object", "-o", "jsonpath={.metadata.generation}")) == "1"
    assert ok(kubectl("get", "crd", CRD, "-o", "jsonpath={.metadata.generation}")) == "1"

    # A custom kind has no patch strategies: kubectl patch's default type is refused, as the real server does.
    strategic = kubectl("patch", "ct", "my-new-cron-object", "-p", '{"spec": {"replicas": 2}}')
    assert strategic.returncode == 1
    assert strategic.stderr == (
        "error: application/strategic-merge-patch+json is not supported by stable.example.com/v1, Kind=CronTab: "
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n")

    explained = ok(kubectl("explain", "crontab.spec"))
    assert explained.startswith("GROUP:      stable.example.com\nKIND:       CronTab\nVERSION:    v1\n")
    assert "cronSpec\t<string>" in explained and "replicas\t<integer>" in explained


def test_objects_the_schema_refuses_get_its_messages(kubectl: Kubectl, tmp_path: Path):
    (tmp_path / "bad.yaml").write_text(crontab("bad", cronSpec='"every day"', replicas=11))
    refused = kubectl("apply", "-f", str(tmp_path / "bad.yaml"))
    assert refused.returncode == 1
    assert 'The CronTab "bad" is invalid: ' in refused.stderr
    assert "* spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10" in refused.stderr
    assert 'spec.cronSpec: Invalid value: "every day": spec.cronSpec in body should match' in refused.stderr

    (tmp_path / "shape.yaml").write_text("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n"
                                          "  name: shape\nspec: every minute\n")
    shape = kubectl("apply", "-f", str(tmp_path / "shape.yaml"))
    assert shape.returncode == 1
    assert 'spec: Invalid value: "string": spec in body must be of type object: "string"' in shape.stderr

    (tmp_path / "colour.yaml").write_text(crontab("colour", cronSpec='"* * * * *"', colour="blue"))
    strict = kubectl("apply", "-f", str(tmp_path / "colour.yaml"))
    assert strict.returncode == 1
    assert ('CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field '
            '"spec.colour"') in strict.stderr
    # Without strict validation the field is dropped, as the API server prunes what the schema does not declare.
    ok(kubectl("apply", "--validate=false", "-f", str(tmp_path / "colour.yaml")))
    assert ok(kubectl("get", "ct", "colour", "-o", "jsonpath={.spec}")) == '{"cronSpec":"* * * * *","replicas":1}'
    ok(kubectl("delete", "ct", "colour"))


def test_the_python_client_creates_patches_watches_and_deletes_custom_objects(api: client.ApiClient):
    objects = client.CustomObjectsApi(api)
    body = {"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "nightly"},
            "spec": {"cronSpec": "0 3 * * *", "image": "backup:1"}}
    created = objects.create_namespaced_custom_object("stable.example.com", "v1", "default", "crontabs", body)
    assert created["spec"] == {"cronSpec": "0 3 * * *", "image": "backup:1", "replicas": 1}
    patched = objects.patch_namespaced_custom_object("stable.example.com", "v1", "default", "crontabs", "nightly",
                                                     {"spec": {"replicas": 3}})
    assert patched["spec"]["replicas"] == 3 and patched["metadata"]["generation"] == 2
    listed = objects.list_namespaced_custom_object("stable.example.com", "v1", "default", "crontabs")
    assert {item["metadata"]["name"] for item in listed["items"]} >= {"nightly", "my-new-cron-object"}
    events = watch.Watch().stream(objects.list_namespaced_custom_object, "stable.example.com", "v1", "default",
                                  "crontabs", resource_version=listed["metadata"]["resourceVersion"], timeout_seconds=5)
    objects.delete_namespaced_custom_object("stable.example.com", "v1", "default", "crontabs", "nightly")
    first = next(events)
    assert (first["type"], first["object"]["metadata"]["name"]) == ("DELETED", "nightly")
    with pytest.raises(ApiException) as missing:
        objects.get_namespaced_custom_object("stable.example.com", "v1", "default", "crontabs", "nightly")
    assert missing.value.status == 404
    assert '"message":"crontabs.stable.example.com \\"nightly\\" not found"' in missing.value.body


def test_the_status_and_scale_subresources_follow_the_definitions_paths(kubectl: Kubectl, tmp_path: Path):
    ok(kubectl("apply", "-f", str(YAML / "webapp-crd.yaml")))
    (tmp_path / "shop.yaml").write_text("apiVersion: apps.example.com/v1\nkind: WebApp\nmetadata:\n  name: shop\n"
                                         "spec:\n  size: 1\nstatus:\n  readySize: 9\n")
    ok(kubectl("apply", "-f", str(tmp_path / "shop.yaml")))
    # With a status subresource, what a create or an update says of the status is not kept.
    assert ok(kubectl("get", "webapp", "shop", "-o", "jsonpath={.status}")) == ""
    assert ok(kubectl("scale", "webapp", "shop", "--replicas=3")).strip() == "webapp.apps.example.com/shop scaled"
    assert ok(kubectl("get", "webapp", "shop", "-o", "jsonpath={.spec.size}")) == "3"
    ok(kubectl("patch", "webapp", "shop", "--subresource=status", "--type=merge",
               "-p", '{"status": {"readySize": 2, "selector": "app=shop"}}'))
    scale = json.loads(ok(kubectl("get", "--raw", "/c/crdlab/apis/apps.example.com/v1/namespaces/default/webapps/shop/scale")))
    assert (scale["spec"], scale["status"]) == ({"replicas": 3}, {"replicas": 2, "selector": "app=shop"})
    ok(kubectl("delete", "crd", "webapps.apps.example.com"))


def owned_deployment(name: str, owner_uid: str) -> str:
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  ownerReferences:\n"
            f"  - apiVersion: apps.example.com/v1\n    kind: WebApp\n    name: shop\n    uid: {owner_uid}\n"
            f"spec:\n  replicas: 1\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n"
            f"      labels: {{app: {name}}}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n")


def test_the_garbage_collector_follows_owner_references_to_custom_objects(kubectl: Kubectl, tmp_path: Path):
    # An operator's pattern: its custom object owns the Deployment it made.
    ok(kubectl("apply", "-f", str(YAML / "webapp-crd.yaml")))
    (tmp_path / "shop.yaml").write_text("apiVersion: apps.example.com/v1\nkind: WebApp\nmetadata:\n  name: shop\n"
                                         "spec:\n  size: 1\n")
    ok(kubectl("apply", "-f", str(tmp_path / "shop.yaml")))
    uid = ok(kubectl("get", "webapp", "shop", "-o", "jsonpath={.metadata.uid}"))
    (tmp_path / "owned.yaml").write_text(owned_deployment("shop-web", uid))
    (tmp_path / "orphan.yaml").write_text(owned_deployment("stray-web", "00000000-0000-0000-0000-000000000000"))
    ok(kubectl("apply", "-f", str(tmp_path / "owned.yaml"), "-f", str(tmp_path / "orphan.yaml")))
    # An owner that is not there (another uid) leaves its dependent to be collected at once.
    assert wait_until(lambda: kubectl("get", "deployment", "stray-web").returncode == 1)
    assert ok(kubectl("get", "deployment", "shop-web", "-o", "name")).strip() == "deployment.apps/shop-web"
    ok(kubectl("delete", "webapp", "shop"))
    assert wait_until(lambda: kubectl("get", "deployment", "shop-web").returncode == 1)
    ok(kubectl("delete", "crd", "webapps.apps.example.com"))


def rules_of(kubectl: Kubectl, role: str) -> list[dict[str, object]]:
    return json.loads(ok(kubectl("get", "clusterrole", role, "-o", "jsonpath={.rules}")))


def test_a_labelled_cluster_role_grants_the_kind_to_every_view_edit_and_admin_user(kubectl: Kubectl, tmp_path: Path):
    (tmp_path / "reader.yaml").write_text(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: crontab-reader\n"
        "  labels:\n    rbac.authorization.k8s.io/aggregate-to-view: \"true\"\nrules:\n"
        "- apiGroups: [stable.example.com]\n  resources: [crontabs]\n  verbs: [get, list, watch]\n")
    ok(kubectl("apply", "-f", str(tmp_path / "reader.yaml")))
    rule = {"apiGroups": ["stable.example.com"], "resources": ["crontabs"], "verbs": ["get", "list", "watch"]}
    # view takes it in; edit aggregates view, and admin aggregates edit.
    for role in ("view", "edit", "admin"):
        assert wait_until(lambda role=role: rule in rules_of(kubectl, role)), role
    # The parts are taken in name order: crontab-reader comes before system:aggregate-to-view.
    assert rules_of(kubectl, "view")[0] == rule
    ok(kubectl("delete", "clusterrole", "crontab-reader"))
    for role in ("view", "edit", "admin"):
        assert wait_until(lambda role=role: rule not in rules_of(kubectl, role)), role


def test_deleting_a_namespace_deletes_the_custom_objects_in_it(kubectl: Kubectl, tmp_path: Path):
    ok(kubectl("create", "namespace", "crons"))
    (tmp_path / "weekly.yaml").write_text(crontab("weekly", cronSpec='"0 0 * * 0"'))
    ok(kubectl("apply", "-n", "crons", "-f", str(tmp_path / "weekly.yaml")))
    ok(kubectl("delete", "namespace", "crons"))
    assert wait_until(lambda: kubectl("get", "namespace", "crons").returncode == 1)
    assert ok(kubectl("get", "crontabs", "-A", "-o", "name")).split() == ["crontab.stable.example.com/my-new-cron-object"]


def test_deleting_the_definition_deletes_its_objects_and_its_kind(kubectl: Kubectl):
    assert ok(kubectl("delete", "crd", CRD)).strip() == f'customresourcedefinition.apiextensions.k8s.io "{CRD}" deleted'
    gone = kubectl("get", "crontabs")
    # kubectl still knows the kind from its discovery cache; the server no longer serves it.
    assert gone.returncode == 1
    assert gone.stderr == ('Error from server (NotFound): Unable to list "stable.example.com/v1, Resource=crontabs": '
                           "the server could not find the requested resource\n")
    ok(kubectl("apply", "-f", str(YAML / "crontab-crd.yaml")))
    assert ok(kubectl("get", "crontabs", "-A")).strip() == ""
    ok(kubectl("delete", "crd", CRD))
    assert wait_until(lambda: kubectl("get", "apiservice", "v1.stable.example.com").returncode == 1)
