"""Top-level URLs: the admin, and each cluster's API server under /c/<cluster>/."""

from django.contrib import admin
from django.urls import include, path, re_path

from clusterviz.api import views as api_views
from clusterviz.web import actions, clusters, console, kubectl, objects, present, scoring
from clusterviz.web import views as web

urlpatterns = [
    path("", web.home, name="home"),
    path("clusters/new", clusters.create, name="cluster-create"),
    path("clusters/<slug:cluster>/reset", clusters.reset, name="cluster-reset"),
    path("clusters/<slug:cluster>/delete", clusters.delete, name="cluster-delete"),
    path("admin/", admin.site.urls),
    path("", include("clusterviz.classroom.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("c/<slug:cluster>/", web.cluster_page, name="cluster"),
    path("c/<slug:cluster>/controls/mode", web.set_mode, name="set-mode"),
    path("c/<slug:cluster>/controls/step", web.step, name="step"),
    path("c/<slug:cluster>/nodes/<str:name>/action", actions.node_action, name="node-action"),
    path("c/<slug:cluster>/nodes/add", actions.add_node, name="add-node"),
    path("c/<slug:cluster>/workloads/<slug:plural>/<slug:namespace>/<str:name>", actions.workload_action,
         name="workload-action"),
    path("c/<slug:cluster>/pods/<slug:namespace>/<str:name>/delete", actions.delete_pod, name="delete-pod"),
    path("c/<slug:cluster>/objects", objects.objects, name="objects"),
    path("c/<slug:cluster>/describe/<str:plural>/<str:name>", objects.describe, name="describe"),
    path("c/<slug:cluster>/yaml", web.yaml_action, name="yaml"),
    path("c/<slug:cluster>/presets", web.load_preset, name="presets"),
    path("c/<slug:cluster>/export.yaml", web.export, name="export"),
    path("c/<slug:cluster>/import", web.import_yaml, name="import"),
    path("c/<slug:cluster>/console/", console.pane, name="console"),
    path("c/<slug:cluster>/console/pods", console.pods, name="console-pods"),
    path("c/<slug:cluster>/console/describe/pod/<slug:namespace>/<str:name>", console.describe,
         name="console-describe"),
    path("c/<slug:cluster>/console/result/<str:token>", kubectl.result, name="console-result"),
    path("c/<slug:cluster>/scoring/<slug:namespace>/<str:name>", scoring.scoring, name="scoring"),
    path("c/<slug:cluster>/present/", present.present_page, name="present"),
    path("c/<slug:cluster>/present/story.json", present.story_json, name="present-story"),
    path("c/<slug:cluster>/present/next", present.next_beat, name="present-next"),
    path("c/<slug:cluster>/present/follow", present.follow, name="present-follow"),
    path("c/<slug:cluster>/present/lesson", present.choose_lesson, name="present-lesson"),
    path("c/<slug:cluster>/present/step", present.set_step, name="present-step"),
    path("c/<slug:cluster>/present/action", present.run_action, name="present-action"),
    path("c/<slug:cluster>/", include("clusterviz.api.urls")),
    re_path(r"^(?P<path>version|healthz|livez|readyz)\Z", api_views.unprefixed),
]
