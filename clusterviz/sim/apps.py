from django.apps import AppConfig


class SimConfig(AppConfig):
    name = "clusterviz.sim"
    label = "sim"
    verbose_name = "Simulation (bus and clock)"

    def ready(self) -> None:
        from clusterviz.api import gate

        from . import api_group, components, registry  # noqa: F401 - components register themselves

        api_group.register()
        gate.install(registry.gate_for)
        gate.install_forwarder(registry.forward)
