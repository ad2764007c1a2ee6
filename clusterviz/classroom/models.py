"""A teacher's class, the students' sandbox clusters, and the tokens kubectl presents.

A :class:`Classroom` has a demo cluster of the teacher's (read-only for the
students, readable by anyone when ``public``) and a preset every sandbox starts
from. A student who opens the class link gets a :class:`Sandbox`: a cluster of
their own, identified by a signed cookie, no account needed. An
:class:`AccessToken` lets kubectl act as a sandbox's student or as a teacher.
"""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models

from clusterviz.store.models import Cluster


class Classroom(models.Model):
    """One class: its teacher, demo cluster and starting preset."""

    slug = models.SlugField(max_length=40, unique=True)
    title = models.CharField(max_length=200)
    teacher = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="classrooms")
    # Deleting the demo cluster leaves the class (and its sandboxes) in place.
    demo = models.OneToOneField(Cluster, null=True, on_delete=models.SET_NULL, related_name="demo_of")
    preset = models.CharField(max_length=63, help_text="The lesson every sandbox starts from.")
    public = models.BooleanField(default=False, help_text="Anyone, signed in or not, may watch the demo cluster.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        permissions = [("teach", "Can run classes")]

    def __str__(self) -> str:
        return self.title


class Sandbox(models.Model):
    """A student's own cluster in a class."""

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="sandboxes")
    cluster = models.OneToOneField(Cluster, on_delete=models.CASCADE, related_name="sandbox")
    student = models.CharField(max_length=80)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created"]

    def __str__(self) -> str:
        return f"{self.student} ({self.cluster.name})"


def token_digest(token: str) -> str:
    """What is stored of a token: its SHA-256, so a database dump does not hand out access."""
    return hashlib.sha256(token.encode()).hexdigest()


class AccessToken(models.Model):
    """A bearer token for kubectl: a student's (bound to a sandbox) or a teacher's (bound to a user)."""

    digest = models.CharField(max_length=64, unique=True)
    sandbox = models.ForeignKey(Sandbox, null=True, blank=True, on_delete=models.CASCADE, related_name="tokens")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="cluster_tokens"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(sandbox__isnull=False) | models.Q(user__isnull=False), name="token_has_an_owner"
            )
        ]

    def __str__(self) -> str:
        owner = self.sandbox or self.user
        return f"token of {owner} ({self.digest[:8]}…)"

    @classmethod
    def issue(cls, *, sandbox: Sandbox | None = None, user: object | None = None) -> str:
        """Create a token and return its text (shown once; only the digest is kept)."""
        token = secrets.token_urlsafe(32)
        cls.objects.create(digest=token_digest(token), sandbox=sandbox, user=user)
        return token
