"""Finding English a student would read on a page that should be in Chinese.

``untranslated_english(html, names)`` lists the English words of a page's visible text (and of the
attributes a student sees: tooltips, placeholders, labels, the diagram's names). Allowed, because
they are meant to stay English:

- what the page marks as English (``lang="en"``): upstream's messages beside their translation, and
  kubectl output; kubectl commands, manifests and identifiers in ``code``, ``samp``, ``kbd``, ``pre``
  and the YAML editor; a kubectl command written in running text (``kubectl``, its command and arguments,
  up to the first character that is not part of a command);
- the English names the glossary (docs/glossary.md) keeps: API Server, kubelet, Pod, Pending, ...;
- identifiers: CamelCase names (plugins and their legacy names, API fields such as nodeSelector,
  statuses such as NotReady), acronyms (CPU, YAML), anything with a digit, dot, slash, ``=`` or ``_``;
- the names of the page's objects, given by the caller.

Any page a class sees in Chinese can be checked with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.parser import HTMLParser
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"
# Elements whose content is code, kubectl input or output, or not text at all.
VERBATIM = frozenset({"code", "samp", "kbd", "pre", "textarea", "script", "style"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
# Attributes a student reads, the diagram's labels that static/js/flow.js and present.js draw, and the texts
# present.js shows (data-text-*).
SHOWN_ATTRIBUTES = ("title", "aria-label", "placeholder", "aria-valuetext", "data-why")
SHOWN_PREFIXES = ("data-label-", "data-text-")
PRODUCT = "clusterviz"
_TOKEN = re.compile(r"[0-9A-Za-z][0-9A-Za-z_./=:'’-]*")
_IDENTIFIER = re.compile(r"[\d./=_:]|[a-z][A-Z]")
_WORD = re.compile(r"[A-Za-z]+")
# kubectl and one of its commands, then its arguments (Latin letters, digits and -./=:_ only).
_COMMAND = re.compile(
    r"\bkubectl +(?:annotate|api-resources|apply|autoscale|cordon|create|delete|describe|drain|edit|explain|get|label|logs"
    r"|patch|rollout|scale|set"
    r"|taint|top|uncordon)\b(?: +[-A-Za-z0-9_./=:]+)*"
)


def glossary_words() -> frozenset[str]:
    """The English words the glossary keeps in its Chinese column (API, Server, kubelet, Pod, Pending, ...)."""
    words: set[str] = set()
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and not set(cells[1]) <= {"-"}:
            words.update(_TOKEN.findall(cells[1]))
    return frozenset(words)


class _VisibleText(HTMLParser):
    """Collects the text a student sees, outside verbatim and English-marked elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # For each open element: is its content verbatim, is it English (inherited until an element says otherwise)?
        self.open: list[tuple[bool, bool]] = []
        self.texts: list[str] = []
        self.glued = False  # the last tag was a <wbr>: the next text continues the word before it

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.glued = tag == "wbr"
        values = dict(attrs)
        verbatim = self.verbatim or tag in VERBATIM
        english = values["lang"] == "en" if values.get("lang") else self.english
        if not (verbatim or english):
            self.texts.extend(
                value or "" for name, value in attrs if name in SHOWN_ATTRIBUTES or name.startswith(SHOWN_PREFIXES)
            )
        if tag not in VOID:
            self.open.append((verbatim, english))

    @property
    def verbatim(self) -> bool:
        """Inside code, kubectl output or a script."""
        return bool(self.open) and self.open[-1][0]

    @property
    def english(self) -> bool:
        """Inside an element marked ``lang="en"``."""
        return bool(self.open) and self.open[-1][1]

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.open.pop()

    def handle_endtag(self, tag: str) -> None:
        self.glued = False
        if tag not in VOID and self.open:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if self.verbatim or self.english:
            return
        if self.glued and self.texts:
            self.texts[-1] += data
        else:
            self.texts.append(data)
        self.glued = False


def visible_texts(html: str) -> list[str]:
    """The pieces of text of ``html`` a student reads that are not marked as code or English."""
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return [text for text in parser.texts if text.strip()]


def untranslated_english(html: str, names: Iterable[str] = ()) -> list[str]:
    """Each visible piece of text that still holds an English word, with the words: empty when all is translated."""
    allowed = glossary_words() | {PRODUCT} | set(names)
    found = []
    for text in visible_texts(html):
        words = []
        for token in _TOKEN.findall(_COMMAND.sub(" ", text)):
            token = token.strip("'’.:-")
            if token in allowed or _IDENTIFIER.search(token):
                continue
            words.extend(w for w in _WORD.findall(token) if len(w) > 1 and not w.isupper() and w not in allowed)
        if words:
            found.append(f"{' '.join(text.split())!r}: {', '.join(words)}")
    return found
