"""The clusterviz.io group (v1): the simulator's own kinds."""

from __future__ import annotations

from .model import INT64, NUMBER, OPEN, STRING, define, enum, kind

_CV = "io.clusterviz.v1."

kind("clusterviz.io", "v1", "Simulation", _CV + "Simulation",
     "The cluster's simulation: its mode, speed and timings (only one, named default).",
     _CV + "SimulationSpec", _CV + "SimulationStatus")
define(_CV + "SimulationSpec", "How the simulation runs.", {
    "mode": (enum("fast-forward", "live", "paused", "step"), "live, paused, step or fast-forward."),
    "speed": (NUMBER, "Simulated seconds per wall second in live mode."),
    "nodeMonitorGracePeriodSeconds": (NUMBER, "Seconds without a heartbeat before a node is NotReady."),
    "nodeMonitorPeriodSeconds": (NUMBER, "Seconds between the node controller's checks."),
    "podEvictionTimeoutSeconds": (NUMBER, "Seconds Pods stay on an unreachable node."),
    "heartbeatIntervalSeconds": (NUMBER, "Seconds between a kubelet's heartbeats."),
    "imagePullBytesPerSecond": (NUMBER, "The speed of image pulls."),
    "containerStartSeconds": (NUMBER, "Seconds a container takes to start."),
    "seed": (NUMBER, "The seed of the simulation's random choices."),
})
define(_CV + "SimulationStatus", "Where the simulation is.", {
    "time": (NUMBER, "Simulated seconds since the start."),
    "wall": (STRING, "The simulated time as a timestamp."),
    "lastSeq": (INT64, "The number of the last message delivered."),
    "pending": (INT64, "Messages waiting to be delivered."),
    "next": (OPEN, "The next message or timer due."),
    "waiting": (OPEN, "Writes held on the bus."),
}, open=True)

kind("clusterviz.io", "v1", "FlowMessage", _CV + "FlowMessage",
     "One hop between components, as the bus delivered it (read-only).").open = True
kind("clusterviz.io", "v1", "SchedulingDecision", _CV + "SchedulingDecision",
     "The scheduler's record of one placement: each node's filter results and scores.").open = True
