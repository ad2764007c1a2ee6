"""The volume plugins inside a whole scheduling cycle: the record's verdicts and message."""

from __future__ import annotations

from tests.scheduler.helpers import make_node, make_pod, reasons, run


def test_a_missing_claim_is_every_volume_plugins_verdict_and_the_message_names_it():
    pod = make_pod("app", volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}])
    record = run(pod, [make_node("node01"), make_node("node02")])
    assert record.selected is None
    # VolumeRestrictions' PreFilter rejects first; VolumeBinding, shown too, gives its own PreFilter's verdict.
    assert record.message.startswith('0/2 nodes are available: persistentvolumeclaim "data" not found.')
    verdicts = reasons(record, "node01")
    assert verdicts["VolumeBinding"] == ("UnschedulableAndUnresolvable", 'persistentvolumeclaim "data" not found')
    assert verdicts["VolumeZone"] == ("UnschedulableAndUnresolvable", 'persistentvolumeclaim "data" not found')
