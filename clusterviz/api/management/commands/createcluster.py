"""python manage.py createcluster NAME --nodes N [--cpu 4] [--memory 8Gi] [--pods 110]"""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from clusterviz.api.bootstrap import create_cluster_sync
from clusterviz.apimachinery.names import is_dns1123_label
from clusterviz.apimachinery.quantity import QuantityError, parse_quantity


class Command(BaseCommand):
    help = "Create a cluster with its system namespaces and N Ready nodes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--nodes", type=int, default=3, help="number of nodes (node01, node02, ...)")
        parser.add_argument("--cpu", default="4", help="CPU of each node, e.g. 4 or 3500m")
        parser.add_argument("--memory", default="8Gi", help="memory of each node, e.g. 8Gi")
        parser.add_argument("--pods", type=int, default=110, help="pods each node can hold")

    def handle(self, *args: object, **options: object) -> None:
        name = str(options["name"])
        problems = is_dns1123_label(name)
        if problems:
            raise CommandError(f"invalid cluster name {name!r}: {'; '.join(problems)}")
        nodes = int(options["nodes"])  # type: ignore[call-overload]
        if not 0 <= nodes <= 5000:
            raise CommandError("--nodes must be between 0 and 5000")
        for flag in ("cpu", "memory"):
            try:
                parse_quantity(str(options[flag]))
            except QuantityError as exc:
                raise CommandError(f"--{flag}: {exc}") from None
        created = create_cluster_sync(
            name, nodes, str(options["cpu"]), str(options["memory"]), int(options["pods"])  # type: ignore[call-overload]
        )
        if not created:
            raise CommandError(f'cluster "{name}" already exists')
        self.stdout.write(f'cluster "{name}" created with {nodes} node(s)')
