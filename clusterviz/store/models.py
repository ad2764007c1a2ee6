"""The etcd-shaped store: clusters, their objects and their watch logs.

Every write bumps the owning cluster's revision, stores the object with that
revision as its resourceVersion and appends a watch event, all in one
transaction (see ``clusterviz.store.kv``).
"""

from django.db import models

from clusterviz.store.fields import DocumentField


class Cluster(models.Model):
    """A sandbox cluster: its own objects, revision counter and watch log."""

    name = models.SlugField(max_length=63, unique=True)
    # The last revision written, like etcd's header revision.
    revision = models.BigIntegerField(default=0)
    # Watch events up to and including this revision have been compacted away.
    compacted = models.BigIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class StoredObject(models.Model):
    """One Kubernetes object, kept as its JSON plus the columns that queries use."""

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="stored_objects")
    # Group-qualified plural resource, e.g. "pods" or "deployments.apps".
    resource = models.CharField(max_length=100)
    namespace = models.CharField(max_length=63, blank=True)
    name = models.CharField(max_length=253)
    uid = models.CharField(max_length=36)
    resource_version = models.BigIntegerField()
    node_name = models.CharField(max_length=253, blank=True)
    phase = models.CharField(max_length=32, blank=True)
    labels = models.JSONField(default=dict, blank=True)
    data = DocumentField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["cluster", "resource", "namespace", "name"], name="unique_object_key"),
        ]
        indexes = [
            models.Index(fields=["cluster", "resource", "namespace"], name="object_by_namespace"),
            models.Index(fields=["cluster", "resource", "node_name"], name="object_by_node"),
            models.Index(fields=["cluster", "resource", "phase"], name="object_by_phase"),
        ]

    def __str__(self) -> str:
        key = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.resource} {key}"


class WatchEvent(models.Model):
    """One entry of a cluster's watch log, as etcd keeps the history of a key range."""

    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"
    TYPES = [(ADDED, ADDED), (MODIFIED, MODIFIED), (DELETED, DELETED)]

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="watch_events")
    revision = models.BigIntegerField()
    type = models.CharField(max_length=8, choices=TYPES)
    resource = models.CharField(max_length=100)
    namespace = models.CharField(max_length=63, blank=True)
    name = models.CharField(max_length=253)
    object = DocumentField()
    # The object before a MODIFIED write, so filtered watches can turn a change
    # that leaves (or enters) their selection into DELETED (or ADDED), as the
    # real watch cache does.
    previous = DocumentField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["cluster", "revision"], name="unique_event_revision"),
        ]
        ordering = ["revision"]

    def __str__(self) -> str:
        return f"{self.revision} {self.type} {self.resource} {self.namespace}/{self.name}"
