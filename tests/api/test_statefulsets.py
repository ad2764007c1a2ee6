"""StatefulSets in the API server: upstream's defaults, validation messages and table."""

import copy
from datetime import UTC, datetime
from typing import Any

import pytest

from clusterviz.api.defaulting import apply_defaults
from clusterviz.api.tables import build_table
from clusterviz.api.validation import validate
from tests.controllers.test_statefulset import STATEFUL_SET as STS

CLAIM = {
    "metadata": {"name": "data"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}


def sts(**spec: Any) -> dict[str, Any]:
    body = copy.deepcopy(STS)
    body["spec"].update(spec)
    return body


def messages(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    return [str(e) for e in validate("StatefulSet", obj, old)]


def test_defaults_are_ordered_ready_a_rolling_update_from_partition_0_and_retained_claims():
    spec = apply_defaults("StatefulSet", sts(replicas=None, volumeClaimTemplates=[CLAIM]))["spec"]
    assert spec["podManagementPolicy"] == "OrderedReady"
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert spec["replicas"] == 1 and spec["revisionHistoryLimit"] == 10
    assert spec["template"]["spec"]["restartPolicy"] == "Always"
    [claim] = spec["volumeClaimTemplates"]
    assert claim["spec"]["volumeMode"] == "Filesystem" and claim["status"] == {"phase": "Pending"}
    # An explicit RollingUpdate without rollingUpdate gets none, as upstream.
    explicit = apply_defaults("StatefulSet", sts(updateStrategy={"type": "RollingUpdate"}))["spec"]
    assert explicit["updateStrategy"] == {"type": "RollingUpdate"}
    assert apply_defaults("StatefulSet", sts(updateStrategy={"type": "OnDelete"}))["spec"]["updateStrategy"] == {
        "type": "OnDelete"
    }


def test_a_valid_stateful_set_has_no_errors():
    assert messages(STS) == []
    assert messages(sts(podManagementPolicy="Parallel", volumeClaimTemplates=[CLAIM])) == []


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"selector": {}}, "spec.selector: Invalid value: {}: empty selector is invalid for statefulset"),
        ({"selector": None}, "spec.selector: Required value"),
        (
            {"selector": {"matchLabels": {"app": "other"}}},
            'spec.template.metadata.labels: Invalid value: {"app":"nginx"}: `selector` does not match template `labels`',
        ),
        (
            {"podManagementPolicy": "Sometimes"},
            "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'",
        ),
        (
            {"updateStrategy": {"type": "OnDelete", "rollingUpdate": {"partition": 1}}},
            'spec.updateStrategy.rollingUpdate: Invalid value: {"partition":1}: '
            "only allowed for updateStrategy 'RollingUpdate'",
        ),
        (
            {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": -1}}},
            "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            {"persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Keep", "whenScaled": "Retain"}},
            'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": '
            'supported values: "Retain", "Delete"',
        ),
        ({"replicas": -1}, "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
        ({"ordinals": {"start": -1}}, "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"),
        ({"minReadySeconds": -1}, "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"),
        (
            {"volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {}}]},
            "spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode is required",
        ),
        (
            {"volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]},
            "spec.volumeClaimTemplates[0].spec.resources[storage]: Required value",
        ),
    ],
)
def test_bad_specs_get_the_api_server_s_messages(spec, expected):
    assert expected in messages(sts(**spec))


def test_the_template_must_restart_always_and_have_no_deadline():
    body = sts()
    body["spec"]["template"]["spec"].update(restartPolicy="Never", activeDeadlineSeconds=5)
    found = messages(body)
    assert 'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"' in found
    assert (
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported"
        in found
    )


def test_only_some_spec_fields_may_change():
    old = apply_defaults("StatefulSet", STS)
    scaled = copy.deepcopy(old)
    scaled["spec"]["replicas"] = 5
    scaled["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    scaled["spec"]["updateStrategy"]["rollingUpdate"]["partition"] = 2
    assert messages(scaled, old) == []
    renamed = copy.deepcopy(old)
    renamed["spec"]["serviceName"] = "other"
    assert messages(renamed, old) == [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
        "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
    ]


def test_the_table_prints_ready_of_desired_and_wide_columns():
    body = sts()
    body["metadata"]["creationTimestamp"] = "2025-01-01T00:00:00Z"
    body["status"] = {"replicas": 3, "readyReplicas": 2}
    [row] = build_table("sts", [body], datetime(2025, 1, 1, 1, 0, 0, tzinfo=UTC))["rows"]
    assert row["cells"] == ["web", "2/3", "60m", "nginx", "nginx:1.27"]
