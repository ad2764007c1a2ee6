from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "clusterviz.web"
    label = "web"
    verbose_name = "Dashboard"
