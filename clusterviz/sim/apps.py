from django.apps import AppConfig


class SimConfig(AppConfig):
    name = "clusterviz.sim"
    label = "sim"
    verbose_name = "Simulation (bus and clock)"

    def ready(self) -> None:
        from clusterviz.api import gate

        from . import components, registry, resources  # noqa: F401 - components register themselves

        resources.register()
        gate.install(registry.gate_for)
        gate.install_forwarder(registry.forward)
