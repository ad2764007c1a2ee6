"""Top-level URLs: the admin, and each cluster's API server under /c/<cluster>/."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("c/<slug:cluster>/", include("clusterviz.api.urls")),
]
