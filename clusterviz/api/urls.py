from django.urls import re_path

from . import views

urlpatterns = [
    # [\s\S] and \Z: a path with a newline in it is still the API's to refuse (with a Status, not a page).
    re_path(r"^(?P<path>(?:api|apis|version|openapi|healthz|livez|readyz)(?:/[\s\S]*)?)\Z", views.api),
]
