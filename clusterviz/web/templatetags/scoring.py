"""Template filters of the scoring panel."""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()
CAMEL_HUMP = re.compile(r"(?<=[a-z])(?=[A-Z])")


@register.filter
def humps(name: str) -> SafeString:
    """A CamelCase plugin name that may wrap between its words (NodeResources<wbr>Fit) instead of mid-word."""
    return mark_safe(CAMEL_HUMP.sub("<wbr>", str(escape(name))))  # escaped first: only <wbr> is markup


# After a separator inside a word: label selectors (app=myapp,pod-template-hash=...), topology keys and
# image names are one long word that would otherwise widen a score column past a projector's width.
SEPARATOR = re.compile(r"(?<=[A-Za-z][,/=])(?=\w)")


@register.filter
def separable(line: str) -> SafeString:
    """A line of arithmetic that may wrap after a comma, slash or equals sign between words (not in 1/3)."""
    return mark_safe(SEPARATOR.sub("<wbr>", str(escape(line))))  # escaped first: only <wbr> is markup
