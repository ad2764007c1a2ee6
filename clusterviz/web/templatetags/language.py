"""Template filters for what the cluster says in English, shown on a page in another language."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from clusterviz.web import captions, language

register = template.Library()


@register.filter
def upstream(message: str) -> SafeString:
    """A scheduler reason or message, translated, with upstream's English beside it."""
    return language.beside_upstream(str(message or ""))


@register.filter
def timer(what: str) -> str:
    """What a timer of the simulator does (``status.next.what``), in the page's language."""
    return captions.timer(str(what or ""))


@register.filter
def verb(name: str) -> str:
    """An API verb of the bus (``status.waiting[].verb``), in the page's language."""
    return captions.verb(str(name or ""))
