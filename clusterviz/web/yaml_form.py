"""The YAML editor's server side: documents in, API calls out, errors pointed at their line."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from clusterviz.api import codec, errors
from clusterviz.api.client import Client
from clusterviz.apimachinery.unstructured import dict_or_empty

from .kubectl import client_error, command, server_error
from .language import kubectl_line

ACTIONS = ("apply", "create", "dry-run", "delete")
# The kubectl command of each button; the editor's text is its standard input.
COMMANDS = {
    "apply": command("apply", "--server-side", "--force-conflicts", "-f", "-"),
    "dry-run": command("apply", "--server-side", "--force-conflicts", "--dry-run=server", "-f", "-"),
    "create": command("create", "-f", "-"),
    "delete": command("delete", "-f", "-"),
}
# What kubectl says it was doing when the server refuses a document (server-side apply says nothing).
WHEN = {"create": "creating", "delete": "deleting"}
_LINE = re.compile(r"line (\d+)")
# The editor's own refusals: English in kubectl's output, translated beside it.
NOT_AN_OBJECT = gettext_noop("a document must be a Kubernetes object (a mapping)")
NOTHING_TO_SEND = gettext_noop("there is nothing to send: the editor is empty")


@dataclass
class Outcome:
    """One line of the result panel: what happened to one document, or why it failed and where."""

    ok: bool
    text: str
    line: int | None = None
    # What kubectl prints for the document, when it differs from ``text``.
    output: str = ""
    # What kubectl's line means, in the page's language (shown beside it on a Chinese page).
    meaning: str = ""

    @property
    def kubectl(self) -> str:
        """The line kubectl prints for this document."""
        return self.output or (self.text if self.ok else client_error(self.text))

    @property
    def html(self) -> str:
        """The result panel's line, in the page's language (see ``language.kubectl_line``)."""
        return kubectl_line(self.kubectl, self.meaning, self.text)


def field_line(text: str, path: str) -> int | None:
    """The 1-based line of a field path such as ``spec.template.spec.containers[0].image`` in YAML text."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    steps = [s for s in re.split(r"\.|\[(\d+)\]", path) if s]
    line = None
    for step in steps:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if getattr(k, "value", None) == step), None)
            key = next((k for k, _ in node.value if getattr(k, "value", None) == step), None)
            if match is None:
                break
            line = (key.start_mark.line if key is not None else match.start_mark.line) + 1
            node = match
        elif isinstance(node, yaml.SequenceNode) and step.isdigit() and int(step) < len(node.value):
            node = node.value[int(step)]
            line = node.start_mark.line + 1
        else:
            break
    return line


def split_documents(text: str) -> list[tuple[int, str]]:
    """(first line, text) of every non-empty YAML document in a multi-document string.

    The documents are where YAML itself splits them (``--- # note``, ``...``, a ``---`` inside a block
    scalar), so they line up one to one with what ``codec.parse_yaml(text, multi=True)`` returns.
    """
    return [
        (node.start_mark.line + 1, text[node.start_mark.index : node.end_mark.index])
        for node in yaml.compose_all(text, Loader=yaml.SafeLoader)
        if node.tag != "tag:yaml.org,2002:null"
    ]


async def run(cluster: str, action: str, text: str) -> list[Outcome]:
    """Send every document of ``text`` to the API as ``kubectl apply|create|delete`` (or a dry run) would."""
    if action not in ACTIONS:
        return [Outcome(False, f"unknown action {action}", meaning=_("unknown action %(action)s") % {"action": action})]
    try:
        documents = codec.parse_yaml(text, multi=True)
    except errors.StatusError as exc:
        return [_unreadable(text, exc)]
    client = Client(cluster, "dashboard")
    outcomes = []
    for obj, (first_line, doc_text) in zip(documents, split_documents(text), strict=True):
        if not isinstance(obj, dict):
            outcomes.append(Outcome(False, NOT_AN_OBJECT, first_line, meaning=_(NOT_AN_OBJECT)))
            continue
        outcomes.append(await _one(client, action, obj, doc_text, first_line))
    return outcomes or [Outcome(False, NOTHING_TO_SEND, meaning=_(NOTHING_TO_SEND))]


def _unreadable(text: str, exc: errors.StatusError) -> Outcome:
    """Why the text cannot be read, at its line.

    Documents are decoded in order, so a value JSON cannot hold (reported by its field path) in one
    document may hide a syntax error in a later one; the syntax error, which has a line, is shown first.
    """
    message = exc.message
    if not _LINE.search(message):
        try:
            split_documents(text)
        except yaml.YAMLError as syntax:
            message = codec.yaml_error_message(syntax, text)
        except RecursionError:
            pass  # too deeply nested to compose: the decoder's message says so
    match = _LINE.search(message)
    return Outcome(False, message, int(match.group(1)) if match else None, meaning=_("the YAML cannot be read"))


async def _one(client: Client, action: str, obj: dict[str, Any], doc_text: str, first_line: int) -> Outcome:
    try:
        resource = await client.resource_of(obj)
        meta = dict_or_empty(obj.get("metadata"))
        name = str(meta.get("name") or "")
        namespace = str(meta.get("namespace") or ("default" if resource.namespaced else ""))
        noun = f"{resource.noun}/{name}"
        if action == "create":
            await client.create(obj, namespace)
            return Outcome(True, f"{noun} created", meaning=_("created"))
        if action == "delete":
            await client.delete(resource.plural if not resource.group else f"{resource.plural}.{resource.group}",
                                name, namespace)
            return Outcome(True, f'{noun.split("/")[0]} "{name}" deleted', meaning=_("deleted"))
        query = {"fieldManager": "clusterviz-dashboard", "force": "true"}
        if action == "dry-run":
            query["dryRun"] = "All"
        plural = resource.plural if not resource.group else f"{resource.plural}.{resource.group}"
        await client.patch(plural, name, obj, namespace, patch_type="apply", **query)
        if action == "dry-run":
            return Outcome(
                True,
                f"{noun} would be applied (server dry run)",
                output=f"{noun} serverside-applied (server dry run)",
                meaning=_("checked by a server dry run"),
            )
        return Outcome(True, f"{noun} applied", output=f"{noun} serverside-applied", meaning=_("applied"))
    except errors.StatusError as exc:
        line = None
        causes = (exc.details or {}).get("causes") or []
        if causes:
            found = field_line(doc_text, causes[0].get("field", ""))
            line = first_line + found - 1 if found else first_line
        return Outcome(False, exc.message, line, server_error(exc, WHEN.get(action, "")), _("refused by the API server"))
