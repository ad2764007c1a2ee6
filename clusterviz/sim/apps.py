from django.apps import AppConfig


class SimConfig(AppConfig):
    name = "clusterviz.sim"
    label = "sim"
    verbose_name = "Simulation (bus and clock)"

    def ready(self) -> None:
        from django.conf import settings

        from clusterviz.api import gate

        from . import registry, resources

        resources.register()
        if settings.CLUSTERVIZ["ENGINES"]:
            gate.install(registry.gate_for)
