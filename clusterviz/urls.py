"""Top-level URLs: the admin, and each cluster's API server under /c/<cluster>/."""

from django.contrib import admin
from django.urls import include, path

from clusterviz.web import views as web

urlpatterns = [
    path("", web.home, name="home"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("c/<slug:cluster>/", web.cluster_page, name="cluster"),
    path("c/<slug:cluster>/controls/mode", web.set_mode, name="set-mode"),
    path("c/<slug:cluster>/controls/step", web.step, name="step"),
    path("c/<slug:cluster>/nodes/<str:name>/action", web.node_action, name="node-action"),
    path("c/<slug:cluster>/yaml", web.yaml_action, name="yaml"),
    path("c/<slug:cluster>/presets", web.load_preset, name="presets"),
    path("c/<slug:cluster>/export.yaml", web.export, name="export"),
    path("c/<slug:cluster>/scoring/<slug:namespace>/<str:name>", web.scoring, name="scoring"),
    path("c/<slug:cluster>/", include("clusterviz.api.urls")),
]
