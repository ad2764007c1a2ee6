from django.urls import re_path

from . import views

urlpatterns = [
    re_path(r"^(?P<path>(?:api|apis|version|openapi|healthz|livez|readyz)(?:/.*)?)$", views.api),
]
