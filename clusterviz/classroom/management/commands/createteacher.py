"""``manage.py createteacher NAME --password P``: a user who may run classes (and write every cluster)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create (or update) a teacher account with the classroom.teach permission."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("username")
        parser.add_argument("--password", required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        user, created = get_user_model().objects.get_or_create(username=options["username"])
        user.set_password(options["password"])
        user.save()
        user.user_permissions.add(Permission.objects.get(codename="teach", content_type__app_label="classroom"))
        self.stdout.write(f"teacher {user.username} {'created' if created else 'updated'}")
