from django.contrib import admin

from .models import AccessToken, Classroom, Sandbox


@admin.register(Classroom)
class ClassroomAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "teacher", "demo", "preset", "public", "created")
    search_fields = ("title", "slug")


@admin.register(Sandbox)
class SandboxAdmin(admin.ModelAdmin):
    list_display = ("student", "cluster", "classroom", "created")
    list_filter = ("classroom",)


@admin.register(AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):
    # Only the digest is stored; the token itself was shown once when issued.
    list_display = ("digest", "sandbox", "user", "created")
    readonly_fields = ("digest",)
