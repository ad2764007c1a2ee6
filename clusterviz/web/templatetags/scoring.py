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
