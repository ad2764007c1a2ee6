"""Documents become plain ``text`` on PostgreSQL (``DocumentField``): kept as written, as ``json`` kept them,
without PostgreSQL parsing each one on its way in. SQLite keeps text already."""

from typing import Any

from django.db import migrations

COLUMNS = (("store_storedobject", "data"), ("store_watchevent", "object"), ("store_watchevent", "previous"))


def _retype(schema_editor: Any, to: str) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, column in COLUMNS:
        schema_editor.execute(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" TYPE {to} USING "{column}"::{to}')


def to_text(apps: Any, schema_editor: Any) -> None:
    _retype(schema_editor, "text")


def to_json(apps: Any, schema_editor: Any) -> None:
    _retype(schema_editor, "json")


class Migration(migrations.Migration):
    dependencies = [
        ("store", "0002_document_text"),
    ]

    operations = [migrations.RunPython(to_text, to_json)]
