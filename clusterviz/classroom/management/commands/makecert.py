"""``manage.py makecert --dir tls``: a key and self-signed certificate for Daphne's HTTPS endpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from clusterviz.classroom.tls import make_certificate


class Command(BaseCommand):
    help = "Write server.key and server.crt (self-signed) for serving the API to kubectl over HTTPS."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--dir", default="tls", help="where to write the files (default: tls)")
        parser.add_argument("--host", action="append", help="IP or DNS name (repeatable; default 127.0.0.1)")

    def handle(self, *args: Any, **options: Any) -> None:
        folder = Path(options["dir"])
        folder.mkdir(parents=True, exist_ok=True)
        key, cert = make_certificate(options["host"] or ["127.0.0.1", "localhost"])
        key_path = folder / "server.key"
        key_path.write_bytes(key)
        key_path.chmod(0o600)
        (folder / "server.crt").write_bytes(cert)
        self.stdout.write(f"wrote {key_path} and {folder / 'server.crt'}")
