"""rbac.authorization.k8s.io/v1 through kubectl and the Python client: the bootstrap roles and bindings
every cluster starts with, Roles and bindings created, printed, described and validated as upstream."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from tests.conftest import Kubectl
from tests.e2e.test_client_e2e_core import api_client_for, own_cluster
from tests.e2e.test_kubectl import ok
from tests.livesim import LiveServer

CLUSTER = "pyrbac"


@pytest.fixture(scope="module")
def cluster(live: LiveServer) -> str:
    return own_cluster(live, CLUSTER)


@pytest.fixture
def kubectl(kubectl_binary: str, live: LiveServer, tmp_path: Path, cluster: str) -> Kubectl:
    return Kubectl(kubectl_binary, live.cluster_url(cluster), tmp_path)


@pytest.fixture(scope="module")
def api(live: LiveServer, cluster: str) -> Iterator[client.ApiClient]:
    yield from api_client_for(live, cluster)


def columns(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def test_the_bootstrap_cluster_roles_are_listed_with_their_creation_time(kubectl: Kubectl):
    out = ok(kubectl("get", "clusterroles"))
    lines = out.splitlines()
    assert columns(lines[0]) == ["NAME", "CREATED AT"]
    rows = {columns(line)[0]: columns(line)[1] for line in lines[1:]}
    for name in ("admin", "cluster-admin", "edit", "view", "system:basic-user", "system:discovery",
                 "system:public-info-viewer", "system:aggregate-to-view"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", rows[name]), name


def test_the_bootstrap_bindings_state_who_may_do_what(kubectl: Kubectl):
    out = ok(kubectl("get", "clusterrolebindings", "-o", "wide"))
    lines = out.splitlines()
    assert columns(lines[0]) == ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]
    rows = {columns(line)[0]: columns(line) for line in lines[1:]}
    assert rows["cluster-admin"][1] == "ClusterRole/cluster-admin" and rows["cluster-admin"][3] == "system:masters"
    assert rows["system:basic-user"][3] == "system:authenticated"
    assert rows["system:public-info-viewer"][3] == "system:authenticated, system:unauthenticated"
    # The classroom's rule that teachers may write every cluster.
    assert rows["clusterviz:teachers"][1] == "ClusterRole/cluster-admin"
    assert rows["clusterviz:teachers"][3] == "clusterviz:teachers"
    narrow = ok(kubectl("get", "clusterrolebinding", "cluster-admin")).splitlines()
    assert columns(narrow[0]) == ["NAME", "ROLE", "AGE"]


def test_view_is_aggregated_and_reads_only(api: client.ApiClient):
    rbac = client.RbacAuthorizationV1Api(api)
    view = rbac.read_cluster_role("view")
    assert view.aggregation_rule.cluster_role_selectors[0].match_labels == {
        "rbac.authorization.k8s.io/aggregate-to-view": "true"}
    assert {verb for rule in view.rules for verb in rule.verbs} == {"get", "list", "watch"}
    assert view.metadata.labels["kubernetes.io/bootstrapping"] == "rbac-defaults"
    assert view.metadata.annotations == {"rbac.authorization.kubernetes.io/autoupdate": "true"}


def test_kubectl_creates_gets_and_describes_a_role_and_its_binding(kubectl: Kubectl):
    ok(kubectl("create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods"))
    ok(kubectl("create", "rolebinding", "read-pods", "--role=pod-reader", "--user=jane", "--group=devs",
               "--serviceaccount=default:default"))
    roles = ok(kubectl("get", "roles")).splitlines()
    assert columns(roles[0]) == ["NAME", "CREATED AT"] and columns(roles[1])[0] == "pod-reader"
    wide = ok(kubectl("get", "rolebinding", "read-pods", "-o", "wide")).splitlines()
    assert columns(wide[0]) == ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]
    row = columns(wide[1])
    assert (row[0], row[1], row[3], row[4], row[5]) == ("read-pods", "Role/pod-reader", "jane", "devs", "default/default")
    described = ok(kubectl("describe", "role", "pod-reader"))
    assert "PolicyRule:" in described
    assert re.search(r"pods\s+\[\]\s+\[\]\s+\[get list watch\]", described)
    binding = ok(kubectl("describe", "rolebinding", "read-pods"))
    assert re.search(r"Role:\n\s+Kind:\s+Role\n\s+Name:\s+pod-reader", binding)
    assert re.search(r"User\s+jane", binding) and re.search(r"ServiceAccount\s+default\s+default", binding)
    ok(kubectl("delete", "rolebinding", "read-pods"))
    ok(kubectl("delete", "role", "pod-reader"))


def test_a_binding_defaults_its_groups(api: client.ApiClient):
    rbac = client.RbacAuthorizationV1Api(api)
    created = rbac.create_namespaced_role_binding("default", {
        "metadata": {"name": "defaults"},
        "roleRef": {"kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "User", "name": "jane"}, {"kind": "ServiceAccount", "name": "default"}],
    })
    assert created.role_ref.api_group == "rbac.authorization.k8s.io"
    # A ServiceAccount's group is "", which the JSON leaves out (omitempty).
    assert [s.api_group for s in created.subjects] == ["rbac.authorization.k8s.io", None]
    rbac.delete_namespaced_role_binding("defaults", "default")


@pytest.mark.parametrize(("manifest", "causes"), [
    ("kind: Role\nmetadata: {name: bad}\nrules: [{apiGroups: [''], resources: [pods]}]",
     ["rules[0].verbs: Required value: verbs must contain at least one value"]),
    ("kind: Role\nmetadata: {name: bad}\nrules: [{nonResourceURLs: [/healthz], verbs: [get]}]",
     ['rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs']),
    ("kind: ClusterRole\nmetadata: {name: bad}\nrules: [{verbs: [get]}]",
     ["rules[0].apiGroups: Required value: resource rules must supply at least one api group",
      "rules[0].resources: Required value: resource rules must supply at least one resource"]),
    ("kind: ClusterRole\nmetadata: {name: bad}\naggregationRule: {clusterRoleSelectors: []}",
     ["aggregationRule.clusterRoleSelectors: Required value: "
      "at least one clusterRoleSelector required if aggregationRule is non-nil"]),
    ("kind: RoleBinding\nmetadata: {name: bad}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Pod, name: x}",
     ['roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"']),
    ("kind: ClusterRoleBinding\nmetadata: {name: bad}\nroleRef: {kind: Role, name: x}\n"
     "subjects: [{kind: ServiceAccount, name: default}, {kind: Robot, name: r2}]",
     ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      "subjects[0].namespace: Required value",
      'subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"']),
])
def test_invalid_roles_and_bindings_are_refused_with_upstreams_messages(kubectl: Kubectl, tmp_path: Path,
                                                                      manifest: str, causes: list[str]):
    path = tmp_path / "bad.yaml"
    path.write_text(f"apiVersion: rbac.authorization.k8s.io/v1\n{manifest}\n")
    kind = manifest.split("\n")[0].removeprefix("kind: ")
    result = kubectl("create", "-f", str(path))
    assert result.returncode == 1
    # kubectl lists several causes one a line, a single one after the colon.
    listed = causes[0] if len(causes) == 1 else "\n" + "\n".join(f"* {c}" for c in causes)
    assert result.stderr.strip() == f'The {kind} "bad" is invalid: {listed}'


def test_a_bindings_role_cannot_change(api: client.ApiClient):
    rbac = client.RbacAuthorizationV1Api(api)
    rbac.create_namespaced_role_binding("default", {
        "metadata": {"name": "fixed"}, "roleRef": {"kind": "ClusterRole", "name": "view"}, "subjects": []})
    with pytest.raises(ApiException) as refused:
        rbac.patch_namespaced_role_binding("fixed", "default", {"roleRef": {"name": "edit"}})
    assert refused.value.status == 422
    assert "roleRef: Invalid value: " in refused.value.body and "cannot change roleRef" in refused.value.body
    rbac.delete_namespaced_role_binding("fixed", "default")


def test_kubectl_explains_the_rbac_kinds(kubectl: Kubectl):
    explained = ok(kubectl("explain", "clusterrolebinding.roleRef"))
    assert "GROUP:      rbac.authorization.k8s.io" in explained and "KIND:       ClusterRoleBinding" in explained
    assert re.search(r"^  kind\t<string> -required-$", explained, re.M)
    rules = ok(kubectl("explain", "role.rules"))
    assert re.search(r"^  verbs\t<\[\]string> -required-$", rules, re.M)
    resources = ok(kubectl("api-resources", "--api-group=rbac.authorization.k8s.io", "--no-headers"))
    assert [columns(line)[0] for line in resources.splitlines()] == [
        "clusterrolebindings", "clusterroles", "rolebindings", "roles"]
