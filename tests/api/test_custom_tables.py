"""Custom resources' tables: Name, then the CRD version's printer columns, each cell as its type shows it."""

from __future__ import annotations

from datetime import UTC, datetime

from clusterviz.api.customresources import AGE_COLUMN
from clusterviz.api.tables import build_table

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
COLUMNS = (
    {"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec", "description": "The cron spec"},
    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
    {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status', "priority": 1},
    {"name": "Paused", "type": "boolean", "jsonPath": ".spec.paused"},
    {"name": "Last Run", "type": "date", "jsonPath": ".status.lastRun"},
)
OBJECT = {"metadata": {"name": "nightly", "creationTimestamp": "2026-01-01T11:55:00Z"},
          "spec": {"cronSpec": "0 3 * * *", "replicas": 2, "paused": False},
          "status": {"conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}],
                     "lastRun": "2026-01-01T09:00:00Z"}}


def test_the_columns_are_name_then_the_printer_columns_with_their_priority():
    table = build_table("crontabs", [], NOW, custom_columns=COLUMNS)
    assert [(c["name"], c["type"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", "string", 0), ("Spec", "string", 0), ("Replicas", "integer", 0), ("Ready", "string", 1),
        ("Paused", "boolean", 0), ("Last Run", "date", 0)]
    assert table["columnDefinitions"][1]["description"] == "The cron spec"


def test_each_cell_takes_its_paths_first_match_as_its_type_shows_it():
    row = build_table("crontabs", [OBJECT], NOW, custom_columns=COLUMNS)["rows"][0]
    assert row["cells"] == ["nightly", "0 3 * * *", 2, "True", False, "3h"]


def test_a_path_that_finds_nothing_or_a_value_of_another_type_is_an_empty_cell():
    odd = {"metadata": {"name": "odd"}, "spec": {"cronSpec": 5, "replicas": "two", "paused": "no"},
           "status": {"lastRun": "yesterday"}}
    row = build_table("crontabs", [odd], NOW, custom_columns=COLUMNS)["rows"][0]
    assert row["cells"] == ["odd", "5", None, None, None, "<invalid>"]


def test_a_version_without_printer_columns_shows_the_age():
    row = build_table("crontabs", [OBJECT], NOW, custom_columns=(AGE_COLUMN,))
    assert [c["name"] for c in row["columnDefinitions"]] == ["Name", "Age"]
    assert row["rows"][0]["cells"] == ["nightly", "5m"]
