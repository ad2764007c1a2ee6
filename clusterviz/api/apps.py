from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def ensure_demo_cluster(sender: AppConfig, **kwargs: Any) -> None:
    """After migrate, the demo cluster exists (three Ready nodes), as the README promises."""
    from django.conf import settings

    from .bootstrap import create_cluster_sync

    if kwargs.get("using", "default") != "default":
        return
    name = settings.CLUSTERVIZ["DEMO_CLUSTER"]
    if name:
        create_cluster_sync(name)


class ApiConfig(AppConfig):
    name = "clusterviz.api"
    label = "api"
    verbose_name = "API server"

    def ready(self) -> None:
        from django.apps import apps

        from . import metrics, reviews

        metrics.register()
        reviews.register()
        # The API app has no models, so it gets no post_migrate of its own; the store's will do.
        post_migrate.connect(ensure_demo_cluster, sender=apps.get_app_config("store"))
