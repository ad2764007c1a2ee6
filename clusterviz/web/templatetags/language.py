"""Template filters for what the cluster says in English, shown on a page in another language."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from clusterviz.web import language

register = template.Library()


@register.filter
def upstream(message: str) -> SafeString:
    """A scheduler reason or message, translated, with upstream's English beside it."""
    return language.beside_upstream(str(message or ""))
