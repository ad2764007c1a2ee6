"""DaemonSets and ControllerRevisions at the API server: defaulting, validation, the registry's status and
templateGeneration, and the Table printers."""

import copy
from datetime import UTC, datetime
from typing import Any

import pytest

from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.api.defaulting import apply_defaults
from clusterviz.api.tables import build_table
from clusterviz.api.validation import validate
from tests.controllers.test_daemonset import DAEMON_SET as DS


def ds(**spec: Any) -> dict[str, Any]:
    body = copy.deepcopy(DS)
    body["spec"].update(spec)
    return body


def messages(obj: dict[str, Any], old: dict[str, Any] | None = None, kind: str = "DaemonSet") -> list[str]:
    return [str(e) for e in validate(kind, obj, old)]


def test_defaults_are_a_rolling_update_of_one_node_at_a_time_and_ten_revisions():
    spec = apply_defaults("DaemonSet", DS)["spec"]
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert spec["revisionHistoryLimit"] == 10
    assert spec["template"]["spec"]["restartPolicy"] == "Always"
    assert apply_defaults("DaemonSet", ds(updateStrategy={"type": "OnDelete"}))["spec"]["updateStrategy"] == {
        "type": "OnDelete"
    }


def test_a_valid_daemon_set_has_no_errors():
    assert messages(DS) == []
    assert (
        messages(
            ds(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"}})
        )
        == []
    )


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"selector": {}}, "spec.selector: Invalid value: {}: empty selector is invalid for daemonset"),
        (
            {"selector": {"matchLabels": {"app": "other"}}},
            'spec.template.metadata.labels: Invalid value: {"app":"agent"}: `selector` does not match template `labels`',
        ),
        (
            {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 1}}},
            "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero",
        ),
        (
            {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}}},
            "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0",
        ),
        (
            {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "150%"}}},
            'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
        ),
        (
            {"updateStrategy": {"type": "Sometimes"}},
            'spec.updateStrategy: Unsupported value: {"type":"Sometimes"}: supported values: "RollingUpdate", "OnDelete"',
        ),
        ({"minReadySeconds": -1}, "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"),
        (
            {"revisionHistoryLimit": -2},
            "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
        ),
    ],
)
def test_bad_specs_get_the_api_server_s_messages(spec, expected):
    assert expected in messages(ds(**spec))


def test_the_template_must_restart_always_and_have_no_deadline():
    body = ds()
    body["spec"]["template"]["spec"].update(restartPolicy="OnFailure", activeDeadlineSeconds=5)
    found = messages(body)
    assert 'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"' in found
    assert (
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported"
        in found
    )


def test_the_selector_is_immutable():
    changed = ds(selector={"matchLabels": {"app": "agent", "tier": "x"}})
    changed["spec"]["template"]["metadata"]["labels"]["tier"] = "x"
    assert any(
        m.startswith("spec.selector: Invalid value") and m.endswith("field is immutable") for m in messages(changed, DS)
    )


def test_a_controller_revision_needs_data_and_keeps_it():
    revision = {"metadata": {"name": "agent-1", "namespace": "default"}, "revision": -1}
    assert messages(revision, kind="ControllerRevision") == [
        "data: Required value: data is mandatory",
        "revision: Invalid value: -1: must be greater than or equal to 0",
    ]
    old = {**revision, "revision": 1, "data": {"spec": {}}}
    new = {
        **old,
        "data": {"spec": {"template": {"metadata": {"labels": {"app": "x"}}}}},
        "metadata": {**revision["metadata"], "resourceVersion": "1"},
    }
    assert any(
        m.startswith("data: Invalid value") and m.endswith("field is immutable")
        for m in messages(new, old, "ControllerRevision")
    )


async def test_the_registry_starts_the_status_and_counts_template_generations(transactional_db):
    client = Client("demo", "kubectl")
    created = await client.create(DS)
    assert created["status"] == {
        "currentNumberScheduled": 0,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 0,
        "numberReady": 0,
    }
    assert created["metadata"]["generation"] == 1
    assert created["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    created["spec"]["minReadySeconds"] = 5
    updated = await client.update(created)
    assert updated["metadata"]["generation"] == 2
    assert updated["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "1"
    updated["spec"]["template"]["spec"]["containers"][0]["image"] = "soscscs/myapp:v2"
    updated["metadata"]["annotations"]["deprecated.daemonset.template.generation"] = "7"
    rolled = await client.update(updated)
    assert rolled["metadata"]["generation"] == 3
    assert rolled["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2"
    with pytest.raises(errors.StatusError) as refused:
        await client.create(ds(selector={}) | {"metadata": {"name": "bad", "namespace": "default"}})
    assert refused.value.code == 422 and "empty selector is invalid for daemonset" in refused.value.message


NOW = datetime(2025, 1, 1, 1, 0, 0, tzinfo=UTC)


def test_the_tables_print_the_figures_and_the_controller():
    body = ds()
    body["metadata"]["creationTimestamp"] = "2025-01-01T00:00:00Z"
    body["spec"]["template"]["spec"]["nodeSelector"] = {"role": "agent", "disk": "ssd"}
    body["status"] = {
        "desiredNumberScheduled": 4,
        "currentNumberScheduled": 3,
        "numberReady": 2,
        "updatedNumberScheduled": 1,
        "numberAvailable": 2,
    }
    [row] = build_table("ds", [body], NOW)["rows"]
    assert row["cells"] == [
        "agent",
        4,
        3,
        2,
        1,
        2,
        "disk=ssd,role=agent",
        "60m",
        "agent",
        "soscscs/myapp:v1",
        "app=agent",
    ]
    revision = {
        "metadata": {
            "name": "agent-5d4b9c",
            "creationTimestamp": "2025-01-01T00:30:00Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "controller": True}],
        },
        "revision": 3,
    }
    assert build_table("controllerrevisions", [revision], NOW)["rows"][0]["cells"] == [
        "agent-5d4b9c",
        "daemonset.apps/agent",
        3,
        "30m",
    ]
    revision["metadata"]["ownerReferences"] = []
    assert build_table("controllerrevisions", [revision], NOW)["rows"][0]["cells"][1] == "<none>"
