from django.contrib import admin

from .models import Presentation


@admin.register(Presentation)
class PresentationAdmin(admin.ModelAdmin):
    list_display = ["cluster", "lesson", "step", "start_seq", "root", "pod", "updated"]
