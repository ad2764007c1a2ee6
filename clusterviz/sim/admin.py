from django.contrib import admin

from .models import EngineHost, EngineLease, FlowMessage, Simulation


@admin.register(Simulation)
class SimulationAdmin(admin.ModelAdmin):
    list_display = ["cluster", "mode", "speed", "time", "last_seq"]


@admin.register(FlowMessage)
class FlowMessageAdmin(admin.ModelAdmin):
    list_display = ["cluster", "seq", "time", "sender", "to", "verb", "kind", "name", "step"]
    list_filter = ["cluster", "step"]


@admin.register(EngineLease)
class EngineLeaseAdmin(admin.ModelAdmin):
    list_display = ["cluster", "holder", "renewed"]


@admin.register(EngineHost)
class EngineHostAdmin(admin.ModelAdmin):
    list_display = ["holder", "renewed"]
