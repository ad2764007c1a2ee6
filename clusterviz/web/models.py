"""What a cluster's presenter view is showing: the loaded lesson, its step, and whose story it follows.

Kept apart from the cluster's objects (it is the page's state, not Kubernetes state), so a reload
or a second screen resumes where the teacher was.
"""

from django.db import models


class Presentation(models.Model):
    """The lesson on a cluster's presenter view."""

    cluster = models.SlugField(max_length=63, unique=True)
    lesson = models.SlugField(max_length=63, blank=True)
    step = models.PositiveSmallIntegerField(default=0)
    # The trace's last message before the lesson began: the lesson's story starts after it.
    start_seq = models.BigIntegerField(default=0)
    # "Kind/name" of the lesson's object whose story is told, and the Pod picked by a click ("" = the first).
    root = models.CharField(max_length=320, blank=True)
    pod = models.CharField(max_length=253, blank=True)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.cluster}: {self.lesson or '-'} step {self.step}"
