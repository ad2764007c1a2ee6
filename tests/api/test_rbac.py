"""RBAC kinds in process: printed cells, defaults, and validation that accepts what upstream accepts."""

from __future__ import annotations

from datetime import UTC, datetime

from clusterviz.api.authorizer import Attributes, authorize, rule_allows
from clusterviz.api.client import Client
from clusterviz.api.defaulting import apply_defaults
from clusterviz.api.rbac_bootstrap import builtin_objects
from clusterviz.api.rbac_escalation import compact, compact_string, missing_rights
from clusterviz.api.tables.build import build_table
from clusterviz.api.validation import validate

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
CREATED = "2026-01-01T00:00:00Z"


def test_a_role_prints_its_creation_time_not_an_age():
    table = build_table("roles", [{"metadata": {"name": "pod-reader", "creationTimestamp": CREATED}}], NOW)
    assert table["rows"][0]["cells"] == ["pod-reader", "2026-01-01T00:00:00Z"]


def test_a_binding_prints_its_role_and_its_subjects_by_kind():
    binding = {
        "metadata": {"name": "read", "namespace": "default", "creationTimestamp": CREATED},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [
            {"kind": "User", "name": "jane"}, {"kind": "User", "name": "joe"}, {"kind": "Group", "name": "devs"},
            {"kind": "ServiceAccount", "name": "ci", "namespace": "tools"},
        ],
    }
    cells = build_table("rolebindings", [binding], NOW)["rows"][0]["cells"]
    assert cells == ["read", "ClusterRole/view", "27h", "jane, joe", "devs", "tools/ci"]
    empty = build_table("clusterrolebindings", [{"metadata": {"name": "none", "creationTimestamp": CREATED}}], NOW)
    assert empty["rows"][0]["cells"] == ["none", "/", "27h", "", "", ""]


def test_bindings_default_the_groups_of_their_role_and_subjects():
    defaulted = apply_defaults("ClusterRoleBinding", {
        "roleRef": {"kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "Group", "name": "g"}, {"kind": "ServiceAccount", "name": "s", "namespace": "n"}],
    })
    assert defaulted["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io"
    assert [s.get("apiGroup") for s in defaulted["subjects"]] == ["rbac.authorization.k8s.io", None]


def test_role_names_only_have_to_fit_in_a_path():
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "system:Custom_Role"}, "rules": []}
    assert validate("ClusterRole", role) == []
    bad = {**role, "metadata": {"name": "a/b"}}
    assert [str(e) for e in validate("ClusterRole", bad)] == ['metadata.name: Invalid value: "a/b": may not contain \'/\'']


def test_the_bootstrap_objects_are_valid():
    for obj in builtin_objects():
        assert validate(obj["kind"], apply_defaults(obj["kind"], obj)) == [], obj["metadata"]["name"]


def test_rules_match_as_upstreams_authorizer():
    pods = {"apiGroups": [""], "resources": ["pods", "pods/log"], "verbs": ["get", "list"]}
    assert rule_allows(pods, Attributes("get", "pods", "", "default", "web"))
    assert rule_allows(pods, Attributes("get", "pods", "", "default", "web", "log"))
    assert not rule_allows(pods, Attributes("get", "pods", "", "default", "web", "exec"))
    assert not rule_allows(pods, Attributes("delete", "pods", "", "default", "web"))
    assert not rule_allows(pods, Attributes("get", "deployments", "apps", "default"))
    any_status = {"apiGroups": ["*"], "resources": ["*/status"], "verbs": ["*"]}
    assert rule_allows(any_status, Attributes("patch", "deployments", "apps", "", "web", "status"))
    assert not rule_allows(any_status, Attributes("patch", "deployments", "apps", "", "web"))
    named = {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["settings"], "verbs": ["get"]}
    assert rule_allows(named, Attributes("get", "configmaps", "", "default", "settings"))
    assert not rule_allows(named, Attributes("get", "configmaps", "", "default", "other"))
    urls = {"nonResourceURLs": ["/healthz", "/apis/*"], "verbs": ["get"]}
    assert rule_allows(urls, Attributes("get", path="/apis/apps/v1"))
    assert rule_allows(urls, Attributes("get", path="/healthz"))
    assert not rule_allows(urls, Attributes("get", path="/metrics"))
    assert not rule_allows(urls, Attributes("get", "pods"))


async def test_a_binding_grants_its_subjects_and_says_so_as_upstream(sim):
    client = Client("demo", "kubectl", simulated=False)
    await client.create({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "ann-edits", "namespace": "default"},
        "roleRef": {"kind": "ClusterRole", "name": "edit"},
        "subjects": [{"kind": "User", "name": "student:Ann"}, {"kind": "ServiceAccount", "name": "ci"}],
    }, "default")
    delete = Attributes("delete", "configmaps", "", "default", "notes")
    grant = await authorize("demo", "student:Ann", ("system:authenticated",), delete)
    assert grant is not None and grant.reason() == (
        'RBAC: allowed by RoleBinding "ann-edits/default" of ClusterRole "edit" to User "student:Ann"')
    account = await authorize("demo", "system:serviceaccount:default:ci", (), delete)
    assert account is not None and account.subject == 'ServiceAccount "ci/default"'
    assert await authorize("demo", "student:Ann", (), Attributes("delete", "configmaps", "", "kube-system")) is None
    assert await authorize("demo", "student:Bob", (), delete) is None
    # Everybody signed in may ask what they may do, as system:basic-user says.
    review = Attributes("create", "selfsubjectaccessreviews", "authorization.k8s.io")
    assert (await authorize("demo", "student:Bob", ("system:authenticated",), review)).binding == "system:basic-user"


def test_missing_rights_are_broken_down_then_compacted_by_resource():
    held = [{"apiGroups": [""], "resources": ["pods", "*/status"], "verbs": ["get", "list"]},
            {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["web"], "verbs": ["*"]}]
    wanted = [{"apiGroups": ["", "apps"], "resources": ["pods", "deployments/status"], "verbs": ["get", "delete"]},
              {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["web", "api"], "verbs": ["patch"]},
              {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]
    missing = missing_rights(held, wanted)
    assert sorted(compact_string(r) for r in compact(missing)) == [
        '{APIGroups:[""], Resources:["deployments/status"], Verbs:["delete"]}',
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
        '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["api"], Verbs:["patch"]}',
        '{APIGroups:["apps"], Resources:["deployments/status"], Verbs:["get" "delete"]}',
        '{APIGroups:["apps"], Resources:["pods"], Verbs:["get" "delete"]}',
        '{NonResourceURLs:["/healthz"], Verbs:["get"]}',
    ]
    assert missing_rights([{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}], wanted[:2]) == []
