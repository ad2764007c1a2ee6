"""Printing labels and label selectors the way upstream's ``labels`` package does."""

from __future__ import annotations

import re
from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty, list_or_empty

from .common import NONE, _str_map

# --------------------------------------------------------------------------
# Labels and label selectors
# --------------------------------------------------------------------------

_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")

# LabelSelector operators and how a Requirement prints them.
_SELECTOR_OPS = {"In": " in ", "NotIn": " notin ", "Exists": "", "DoesNotExist": ""}


def format_labels(labels: Any) -> str:
    """``labels.FormatLabels``: sorted ``k=v`` pairs joined by commas, ``<none>`` when empty."""
    pairs = _str_map(labels)
    text = ",".join(f"{k}={pairs[k]}" for k in sorted(pairs))
    return text or NONE


def _valid_label_key(key: str) -> bool:
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and _QUALIFIED_NAME.fullmatch(name) is not None


def _valid_label_value(value: str) -> bool:
    return len(value) <= 63 and _LABEL_VALUE.fullmatch(value) is not None


def label_selector_string(selector: Any) -> str | None:
    """``metav1.LabelSelectorAsSelector(selector).String()``; None when the selector is invalid.

    A missing or empty selector gives ``""``. matchLabels become ``k=v``,
    matchExpressions ``k in (a,b)``, ``k notin (a)``, ``k`` and ``!k``;
    requirements are sorted by key and values inside parentheses are sorted.
    """
    if not isinstance(selector, dict):
        return ""
    match_labels = dict_or_empty(selector.get("matchLabels"))
    expressions = list_or_empty(selector.get("matchExpressions"))
    if not match_labels and not expressions:
        return ""
    requirements: list[tuple[str, str]] = []
    for key, value in match_labels.items():
        if not isinstance(key, str) or not isinstance(value, str):
            return None
        if not _valid_label_key(key) or not _valid_label_value(value):
            return None
        requirements.append((key, f"{key}={value}"))
    for expr in expressions:
        expr = dict_or_empty(expr)
        raw_key, op = expr.get("key"), expr.get("operator")
        values = expr.get("values")
        values = [] if values is None else values
        if not isinstance(raw_key, str) or op not in _SELECTOR_OPS or not isinstance(values, list):
            return None
        key = raw_key
        if not all(isinstance(v, str) for v in values) or not _valid_label_key(key):
            return None
        if not all(_valid_label_value(v) for v in values):
            return None
        if op in ("In", "NotIn"):
            if not values:
                return None
            text = f"{key}{_SELECTOR_OPS[op]}({','.join(sorted(values))})"
        else:
            if values:
                return None
            text = key if op == "Exists" else f"!{key}"
        requirements.append((key, text))
    # Selector.Add orders requirements by key.
    requirements.sort(key=lambda r: r[0])
    return ",".join(text for _, text in requirements)


def format_label_selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector``: like the selector string, ``<none>`` when empty, ``<error>`` if invalid."""
    text = label_selector_string(selector)
    if text is None:
        return "<error>"
    return text or NONE
