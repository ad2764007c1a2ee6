"""Template filters and tags of the flow diagram and its timeline."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import translation

from clusterviz.web import captions

register = template.Library()


@register.filter
def caption(message: dict[str, Any]) -> dict[str, str]:
    """The message's plain-language caption (``what`` and ``why``) in the active language."""
    return captions.caption(message)


@register.filter
def due(what: str) -> str:
    """What ``simulations/default`` says is due next, in the active language."""
    return captions.due(what)


@register.simple_tag
def in_other_language(text: str) -> str:
    """``text`` translated into the page's other language (Chinese on an English page, English on a Chinese one)."""
    other = "en" if (translation.get_language() or "").startswith("zh") else "zh-hans"
    with translation.override(other):
        return translation.gettext(text)
