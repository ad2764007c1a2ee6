"""Every simulated component, registered once so each cluster's engine runs it (one line per component)."""

from clusterviz.controllers.manager import ControllerManager
from clusterviz.kubelet.nodes import NodeManager
from clusterviz.scheduler.component import Scheduler

from .registry import register_component

register_component("kubelets", NodeManager)
register_component("controller-manager", ControllerManager)
register_component("scheduler", Scheduler)
