from django.apps import AppConfig


class StoreConfig(AppConfig):
    name = "clusterviz.store"
    label = "store"
    verbose_name = "etcd (object store)"
