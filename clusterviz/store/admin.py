from django.contrib import admin

from .models import Cluster, StoredObject, WatchEvent


@admin.register(Cluster)
class ClusterAdmin(admin.ModelAdmin):
    list_display = ["name", "revision", "compacted", "created"]
    search_fields = ["name"]


@admin.register(StoredObject)
class StoredObjectAdmin(admin.ModelAdmin):
    list_display = ["cluster", "resource", "namespace", "name", "resource_version", "node_name", "phase"]
    list_filter = ["cluster", "resource"]
    search_fields = ["name", "namespace"]


@admin.register(WatchEvent)
class WatchEventAdmin(admin.ModelAdmin):
    list_display = ["cluster", "revision", "type", "resource", "namespace", "name"]
    list_filter = ["cluster", "type", "resource"]
