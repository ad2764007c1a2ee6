from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "clusterviz.api"
    label = "api"
    verbose_name = "API server"
