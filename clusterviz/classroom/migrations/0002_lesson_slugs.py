"""Classes keep their preset when the classroom scenarios became lessons with new slugs."""

from typing import Any

from django.db import migrations, models

# Old scenario key -> lesson slug, for the four whose name changed.
RENAMED = {
    "pod-anti-affinity": "pod-affinity",
    "balanced-allocation": "resources",
    "host-port": "ports-and-disks",
    "scale-and-roll": "scale-and-rollout",
}


def to_lesson_slugs(apps: Any, schema_editor: Any) -> None:
    classroom = apps.get_model("classroom", "Classroom")
    for old, new in RENAMED.items():
        classroom.objects.filter(preset=old).update(preset=new)


def to_scenario_keys(apps: Any, schema_editor: Any) -> None:
    classroom = apps.get_model("classroom", "Classroom")
    for old, new in RENAMED.items():
        classroom.objects.filter(preset=new).update(preset=old)


class Migration(migrations.Migration):
    dependencies = [("classroom", "0001_initial")]

    operations = [
        migrations.AlterField(
            model_name="classroom",
            name="preset",
            field=models.CharField(help_text="The lesson every sandbox starts from.", max_length=63),
        ),
        migrations.RunPython(to_lesson_slugs, to_scenario_keys),
    ]
