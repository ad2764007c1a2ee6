"""Model fields of the store."""

from typing import Any

from django.db import models


class DocumentField(models.JSONField):
    """A JSON document kept as the text it was written as, the way etcd keeps a value's bytes.

    PostgreSQL's ``jsonb`` reorders an object's keys, so a read would not give back what was written;
    a client that compares bytes (kubectl's ``rollout undo`` against a ControllerRevision's ``data``)
    would then see a change where there is none. Plain ``text`` keeps it as written, as ``json`` would,
    without parsing every document on its way in: the store writes only what it encoded itself, and
    nothing queries inside a document (its columns are the index). SQLite keeps text either way.
    """

    def db_type(self, connection: Any) -> str | None:
        return "text" if connection.vendor == "postgresql" else super().db_type(connection)
