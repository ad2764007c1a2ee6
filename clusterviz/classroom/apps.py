from django.apps import AppConfig


class ClassroomConfig(AppConfig):
    """Classes, students' sandboxes, and who may read and write which cluster."""

    name = "clusterviz.classroom"
    verbose_name = "Classroom"
