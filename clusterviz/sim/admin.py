from django.contrib import admin

from .models import FlowMessage, Simulation


@admin.register(Simulation)
class SimulationAdmin(admin.ModelAdmin):
    list_display = ["cluster", "mode", "speed", "time", "last_seq"]


@admin.register(FlowMessage)
class FlowMessageAdmin(admin.ModelAdmin):
    list_display = ["cluster", "seq", "time", "sender", "to", "verb", "kind", "name", "step"]
    list_filter = ["cluster", "step"]
