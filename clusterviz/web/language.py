"""The page's language where the cluster speaks English.

The API keeps upstream's wording exactly: scheduler reasons, ``0/N nodes are
available: ...`` messages, kubectl's ``deployment.apps/myapp created``. A page
in Chinese translates them only when it shows them: a scheduler message in
Chinese with upstream's English beside it in small type, a kubectl line as it
is with its meaning beside it. The Chinese wording follows docs/glossary.md.
"""

from __future__ import annotations

import re

from django.utils import translation
from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from clusterviz.scheduler import framework
from clusterviz.scheduler.plugins import (
    default_preemption,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    node_volume_limits,
    pod_topology_spread,
    taint_toleration,
    volume_binding,
    volume_restrictions,
    volume_zone,
)


def chinese() -> bool:
    """True when the active language is Chinese."""
    return (translation.get_language() or "").startswith("zh")


# Upstream's reasons, each translated as what it says about a node: it reads after "N 个节点" in a
# counted message and on its own in a node's filter cell.
REASONS: dict[str, Promise] = {
    node_resources_fit.REASON_TOO_MANY_PODS: pgettext_lazy("scheduler reason", "Too many pods"),
    node_affinity.REASON_POD: pgettext_lazy("scheduler reason", "node(s) didn't match Pod's node affinity/selector"),
    node_affinity.REASON_ENFORCED: pgettext_lazy(
        "scheduler reason", "node(s) didn't match scheduler-enforced node affinity"
    ),
    node_affinity.REASON_CONFLICT: pgettext_lazy("scheduler reason", "pod affinity terms conflict"),
    node_name.REASON: pgettext_lazy("scheduler reason", "node(s) didn't match the requested node name"),
    node_ports.REASON: pgettext_lazy("scheduler reason", "node(s) didn't have free ports for the requested pod ports"),
    node_unschedulable.REASON_UNSCHEDULABLE: pgettext_lazy("scheduler reason", "node(s) were unschedulable"),
    node_unschedulable.REASON_UNKNOWN_CONDITION: pgettext_lazy("scheduler reason", "node(s) had unknown conditions"),
    taint_toleration.REASON_UNTOLERATED_TAINT: pgettext_lazy("scheduler reason", "node(s) had untolerated taint(s)"),
    volume_restrictions.REASON_DISK_CONFLICT: pgettext_lazy("scheduler reason", "node(s) had no available disk"),
    volume_restrictions.REASON_READ_WRITE_ONCE_POD_CONFLICT: pgettext_lazy(
        "scheduler reason",
        "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode",
    ),
    volume_binding.REASON_BIND_CONFLICT: pgettext_lazy(
        "scheduler reason", "node(s) didn't find available persistent volumes to bind"
    ),
    volume_binding.REASON_NODE_CONFLICT: pgettext_lazy(
        "scheduler reason", "node(s) didn't match PersistentVolume's node affinity"
    ),
    volume_binding.REASON_NOT_ENOUGH_SPACE: pgettext_lazy(
        "scheduler reason", "node(s) did not have enough free storage"
    ),
    volume_binding.REASON_PV_NOT_EXIST: pgettext_lazy(
        "scheduler reason", "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
    ),
    volume_binding.REASON_UNBOUND_IMMEDIATE: pgettext_lazy(
        "scheduler reason", "pod has unbound immediate PersistentVolumeClaims"
    ),
    volume_zone.REASON_CONFLICT: pgettext_lazy("scheduler reason", "node(s) had no available volume zone"),
    node_volume_limits.REASON_MAX_VOLUME_COUNT: pgettext_lazy("scheduler reason", "node(s) exceed max volume count"),
    inter_pod_affinity.REASON_AFFINITY_RULES_NOT_MATCH: pgettext_lazy(
        "scheduler reason", "node(s) didn't match pod affinity rules"
    ),
    inter_pod_affinity.REASON_ANTI_AFFINITY_RULES_NOT_MATCH: pgettext_lazy(
        "scheduler reason", "node(s) didn't match pod anti-affinity rules"
    ),
    inter_pod_affinity.REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: pgettext_lazy(
        "scheduler reason", "node(s) didn't satisfy existing pods anti-affinity rules"
    ),
    pod_topology_spread.REASON_CONSTRAINTS_NOT_MATCH: pgettext_lazy(
        "scheduler reason", "node(s) didn't match pod topology spread constraints"
    ),
    pod_topology_spread.REASON_NODE_LABEL_NOT_MATCH: pgettext_lazy(
        "scheduler reason", "node(s) didn't match pod topology spread constraints (missing required label)"
    ),
    default_preemption.REASON_NOT_HELPFUL: pgettext_lazy(
        "scheduler reason", "Preemption is not helpful for scheduling"
    ),
    default_preemption.REASON_NO_VICTIMS: pgettext_lazy(
        "scheduler reason", "No preemption victims found for incoming pod"
    ),
    default_preemption.REASON_POLICY_NEVER: pgettext_lazy(
        "scheduler reason", "not eligible due to preemptionPolicy=Never."
    ),
    default_preemption.REASON_TERMINATING_ON_NOMINATED: pgettext_lazy(
        "scheduler reason", "not eligible due to a terminating pod on the nominated node."
    ),
    framework.NO_NODES_AVAILABLE: pgettext_lazy("scheduler reason", "no nodes available to schedule pods"),
    "no new claims to deallocate": pgettext_lazy("scheduler reason", "no new claims to deallocate"),
    # A PodScheduled condition without a message says only this.
    "Unschedulable": pgettext_lazy("scheduler reason", "Unschedulable"),
}
# Resources named in "Insufficient <resource>"; any other keeps its API name.
RESOURCES: dict[str, Promise] = {
    "cpu": pgettext_lazy("resource", "cpu"),
    "memory": pgettext_lazy("resource", "memory"),
    "ephemeral-storage": pgettext_lazy("resource", "ephemeral-storage"),
}
# Reasons that carry names: (upstream's pattern, its translation with the same named groups).
PATTERNS: tuple[tuple[re.Pattern[str], Promise], ...] = (
    (re.compile(r"Insufficient (?P<resource>\S+)"), pgettext_lazy("scheduler reason", "Insufficient %(resource)s")),
    (
        re.compile(r"node\(s\) didn't satisfy plugin (?P<plugins>\S+)"),
        pgettext_lazy("scheduler reason", "node(s) didn't satisfy plugin %(plugins)s"),
    ),
    (
        re.compile(r"node\(s\) didn't satisfy plugin\(s\) \[(?P<plugins>[^\]]*)\] simultaneously"),
        pgettext_lazy("scheduler reason", "node(s) didn't satisfy plugin(s) [%(plugins)s] simultaneously"),
    ),
    (
        re.compile(r"node\(s\) didn't satisfy plugin\(s\) \[(?P<plugins>[^\]]*)\]"),
        pgettext_lazy("scheduler reason", "node(s) didn't satisfy plugin(s) [%(plugins)s]"),
    ),
    (
        re.compile(r"node\(s\) had untolerated taint \{(?P<taint>.*)\}"),
        pgettext_lazy("scheduler reason", "node(s) had untolerated taint {%(taint)s}"),
    ),
    (
        re.compile(r"waiting for scheduling gates: \[(?P<gates>[^\]]*)\]"),
        pgettext_lazy("scheduler reason", "waiting for scheduling gates: [%(gates)s]"),
    ),
    (
        re.compile(r'persistentvolumeclaim "(?P<claim>[^"]*)" not found'),
        pgettext_lazy("scheduler reason", 'persistentvolumeclaim "%(claim)s" not found'),
    ),
    (
        re.compile(
            r'persistentvolumeclaim "(?P<claim>[^"]*)" bound to non-existent persistentvolume "(?P<volume>[^"]*)"'
        ),
        pgettext_lazy(
            "scheduler reason", 'persistentvolumeclaim "%(claim)s" bound to non-existent persistentvolume "%(volume)s"'
        ),
    ),
    (
        re.compile(r'persistentvolumeclaim "(?P<claim>[^"]*)" is being deleted'),
        pgettext_lazy("scheduler reason", 'persistentvolumeclaim "%(claim)s" is being deleted'),
    ),
)
_FIT_ERROR = re.compile(re.escape(framework.NO_NODE_AVAILABLE_FORMAT).replace(r"\{\}", r"(?P<total>\d+)") + ":")
# Between the parts of a message: upstream's ", ".
SEPARATOR = pgettext_lazy("list separator", ", ")
_COUNTED = re.compile(r"(?P<count>\d+) (?P<reason>.+)")
# Where Chinese meets Latin letters or digits: a space goes there ("3 个节点 CPU 不足").
_SCRIPT_CHANGE = re.compile(r"(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9])")


def _spaced(text: str) -> str:
    """Chinese text with a space wherever it meets Latin letters or digits."""
    return _SCRIPT_CHANGE.sub(" ", text)


def _one_reason(reason: str) -> str:
    """One reason (one node's, or one count's) in the active language; unknown reasons stay as they are."""
    if reason in REASONS:
        return str(REASONS[reason])
    for pattern, translated in PATTERNS:
        match = pattern.fullmatch(reason)
        if match:
            groups = dict(match.groupdict())
            if "resource" in groups:
                groups["resource"] = str(RESOURCES.get(groups["resource"], groups["resource"]))
            return str(translated) % groups
    return reason


def _reason_list(text: str) -> str:
    """Reasons joined with ", " (counted or not), as a Status message or a FitError body joins them.

    A message with no reason this table knows (another component's sentence with commas in it) stays as it is."""
    parts = []
    known = False
    for item in text.split(", "):
        counted = _COUNTED.fullmatch(item)
        if counted:
            known = True
            parts.append(_spaced(_("%(count)s node(s)") % {"count": counted["count"]} + _one_reason(counted["reason"])))
        else:
            reason = _one_reason(item)
            known = known or reason != item
            parts.append(_spaced(reason))
    return str(SEPARATOR).join(parts) if known else text


def _post_filter(text: str) -> str:
    """A PostFilter message: reasons, and preemption's own message (which may be a whole FitError) last."""
    head, prefix, tail = text.partition(default_preemption.MESSAGE_PREFIX)
    parts = [_reason_list(head.removesuffix(", "))] if head.removesuffix(", ") else []
    if prefix:
        parts.append(_("preemption: %(message)s") % {"message": _translated(tail)})
    return str(SEPARATOR).join(parts)


def _translated(message: str) -> str:
    fit = _FIT_ERROR.match(message)
    if not fit:
        return _reason_list(message)
    rest = message[fit.end() :].removeprefix(" ")
    # The body ends at its first period; a PostFilter message may follow it after a space.
    body, _dot, post = rest.partition(". ") if ". " in rest else (rest.removesuffix("."), "", "")
    text = _("0/%(total)s nodes are available: %(reasons)s.") % {
        "total": fit["total"],
        "reasons": _reason_list(body) if body else "",
    }
    return text + _post_filter(post) if post else text


def translate_upstream(message: str) -> str:
    """A scheduler reason or ``0/N nodes are available: ...`` message in the active language.

    Counted parts ("3 node(s) didn't match ...", "1 Insufficient cpu") keep their counts; the
    composite message is translated part by part, preemption's nested message included. English
    pages get upstream's message unchanged, and so does any part this table does not know.
    """
    if not message or not chinese():
        return message
    return _translated(message)


def beside_upstream(message: str) -> SafeString:
    """HTML of an upstream message: translated, with upstream's exact English beside it in small type."""
    translated = translate_upstream(message)
    if translated == message:
        return format_html("{}", message)
    # Marked with its language too, so that it reads right inside English output such as an Events table.
    return format_html(
        '<span lang="{}">{}</span> <span class="upstream" lang="en">{}</span>',
        translation.get_language(),
        translated,
        message,
    )


def kubectl_line(line: str, meaning: str = "", words: str = "") -> SafeString | str:
    """How the page reports ``line``, a line kubectl prints.

    A Chinese page shows the line as it is, marked as English, with its ``meaning`` beside it. An English
    page, or a line given no meaning, shows the page's own ``words`` for it (by default the line itself).
    """
    if meaning and chinese():
        return format_html('<samp lang="en">{}</samp> {}', line, meaning)
    return words or line


def refused(message: str) -> SafeString | str:
    """The API server's refusal (its Status message, as kubectl prints it) with its meaning beside it."""
    return kubectl_line(message, _("refused by the API server"))
