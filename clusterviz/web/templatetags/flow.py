"""Template filters and tags of the flow diagram and its timeline."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import translation

from clusterviz.web import captions
from clusterviz.web.language import chinese

register = template.Library()


@register.filter
def caption(message: dict[str, Any]) -> dict[str, str]:
    """The message's plain-language caption (``what`` and ``why``) in the active language."""
    return captions.caption(message)


@register.simple_tag
def other_language_code() -> str:
    """The page's other language: English on a Chinese page, Chinese on an English one."""
    return "en" if chinese() else "zh-hans"


@register.simple_tag
def in_other_language(text: str) -> str:
    """``text`` translated into the page's other language (Chinese on an English page, English on a Chinese one).

    Empty when both languages say the same (API Server), so the diagram does not repeat it.
    """
    with translation.override(other_language_code()):
        said = translation.gettext(text)
    return "" if said.casefold() == translation.gettext(text).casefold() else said
