"""What the simulation keeps across restarts: each cluster's settings and clock, and the trace."""

from django.db import models


class Simulation(models.Model):
    """The ``simulations/default`` object of a cluster: mode, speed, clock and timings."""

    cluster = models.SlugField(max_length=63, unique=True)
    mode = models.CharField(max_length=16, default="live")
    speed = models.FloatField(default=1.0)
    time = models.FloatField(default=0.0)
    # The wall-clock moment simulated time 0 stands for (timestamps are epoch + time).
    epoch = models.DateTimeField(null=True, blank=True)
    last_seq = models.BigIntegerField(default=0)
    settings = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"{self.cluster} ({self.mode})"


class FlowMessage(models.Model):
    """One delivered bus message."""

    cluster = models.SlugField(max_length=63)
    seq = models.BigIntegerField()
    time = models.FloatField()
    sender = models.CharField(max_length=100)
    to = models.CharField(max_length=100)
    verb = models.CharField(max_length=40)
    kind = models.CharField(max_length=63, blank=True)
    namespace = models.CharField(max_length=63, blank=True)
    name = models.CharField(max_length=253, blank=True)
    step = models.PositiveSmallIntegerField(null=True, blank=True)
    summary = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["cluster", "seq"], name="unique_flow_seq")]
        ordering = ["cluster", "seq"]

    def __str__(self) -> str:
        return f"{self.cluster}#{self.seq} {self.sender}->{self.to} {self.verb}"


class EngineLease(models.Model):
    """Which process runs a cluster's engine, renewed like a Kubernetes leader-election Lease."""

    cluster = models.SlugField(max_length=63, unique=True)
    holder = models.CharField(max_length=200, blank=True)
    renewed = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.cluster} held by {self.holder or 'nobody'}"


class EngineHost(models.Model):
    """A process that runs engines, renewed while it looks for clusters: the clusters are shared out among the live ones."""

    holder = models.CharField(max_length=200, unique=True)
    renewed = models.DateTimeField()

    def __str__(self) -> str:
        return self.holder
