from typing import Any

from django.apps import AppConfig
from django.db.backends.signals import connection_created


def read_documents_as_text(sender: Any, connection: Any, **kwargs: Any) -> None:
    """Have psycopg hand ``json`` columns over as text, as Django has it do for ``jsonb``: the store decodes
    them with orjson, and Django's JSONField expects a string."""
    if connection.vendor == "postgresql":
        from psycopg.types.string import TextLoader

        connection.connection.adapters.register_loader("json", TextLoader)


class StoreConfig(AppConfig):
    name = "clusterviz.store"
    label = "store"
    verbose_name = "etcd (object store)"

    def ready(self) -> None:
        connection_created.connect(read_documents_as_text, dispatch_uid="store-json-as-text")
