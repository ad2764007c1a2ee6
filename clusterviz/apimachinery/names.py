"""Name and label validation in the shape of apimachinery's ``util/validation``.

Every ``is_*`` function returns a list of problem descriptions; an empty list
means the value is valid. The texts are the ones the real API server puts in
its 422 responses (``metadata.name: Invalid value: "Foo_bar": a lowercase RFC
1123 subdomain must consist of ...``), so callers can pass them straight into
field errors and kubectl prints what users know from real clusters.
"""

from __future__ import annotations

import re

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1035_LABEL_MAX_LENGTH = 63
QUALIFIED_NAME_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63

# The regex sources appear verbatim inside the error messages, so they are kept
# as the exact strings users see, and compiled separately.
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QNAME_CHAR_FMT = "[A-Za-z0-9]"
_QNAME_EXT_CHAR_FMT = "[-A-Za-z0-9_.]"
QUALIFIED_NAME_FMT = "(" + _QNAME_CHAR_FMT + _QNAME_EXT_CHAR_FMT + "*)?" + _QNAME_CHAR_FMT
LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?"
C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"

_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_QUALIFIED_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_C_IDENTIFIER_MSG = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'"

_DNS1123_LABEL_RE = re.compile(DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(DNS1035_LABEL_FMT)
_QUALIFIED_NAME_RE = re.compile(QUALIFIED_NAME_FMT)
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT)
_C_IDENTIFIER_RE = re.compile(C_IDENTIFIER_FMT)


def _matches(pattern: re.Pattern[str], value: str) -> bool:
    # fullmatch, not match + "$": Python's "$" also accepts a trailing newline,
    # which Go's anchored regexps (and therefore Kubernetes) reject.
    return pattern.fullmatch(value) is not None


def _length(value: str) -> int:
    # Go's len() counts UTF-8 bytes, and the limits are enforced on that count.
    return len(value.encode("utf-8"))


def max_len_error(length: int) -> str:
    """Return the "too long" message used by every validator here."""
    return f"must be no more than {length} characters"


def empty_error() -> str:
    """Return the "must not be empty" message."""
    return "must be non-empty"


def regex_error(message: str, fmt: str, *examples: str) -> str:
    """Append the examples and the regex to ``message`` the way upstream formats them.

    Upstream writes each example as ``'x', `` and joins them with `` or ``, which
    leaves a double space between examples; kubectl users see exactly that text.
    """
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    parts = [f"'{example}', " for example in examples]
    return f"{message} (e.g. {' or '.join(parts)}regex used for validation is '{fmt}')"


def is_dns1123_label(s: str) -> list[str]:
    """Validate an RFC 1123 label such as a namespace name (at most 63 characters, no dots)."""
    errors: list[str] = []
    if _length(s) > DNS1123_LABEL_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _matches(_DNS1123_LABEL_RE, s):
        if _matches(_DNS1123_SUBDOMAIN_RE, s):
            # A valid subdomain that is not a valid label can only be failing
            # because of its dots, so say that instead of quoting the regex.
            errors.append("must not contain dots")
        else:
            errors.append(regex_error(_DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def is_dns1123_subdomain(s: str) -> list[str]:
    """Validate an RFC 1123 subdomain, the format of most object names (at most 253 characters)."""
    errors: list[str] = []
    if _length(s) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _matches(_DNS1123_SUBDOMAIN_RE, s):
        errors.append(regex_error(_DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def is_dns1035_label(s: str) -> list[str]:
    """Validate an RFC 1035 label, the format of Service names (must start with a letter)."""
    errors: list[str] = []
    if _length(s) > DNS1035_LABEL_MAX_LENGTH:
        errors.append(max_len_error(DNS1035_LABEL_MAX_LENGTH))
    if not _matches(_DNS1035_LABEL_RE, s):
        errors.append(regex_error(_DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errors


def is_qualified_name(s: str) -> list[str]:
    """Validate a label or annotation key: ``name`` or ``prefix/name``.

    The optional prefix must be a DNS subdomain; the name part is at most 63
    characters of alphanumerics, ``-``, ``_`` and ``.``, starting and ending
    with an alphanumeric.
    """
    errors: list[str] = []
    parts = s.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part " + empty_error())
        else:
            errors.extend("prefix part " + msg for msg in is_dns1123_subdomain(prefix))
    else:
        # More than one "/" cannot be split into prefix and name at all, so
        # upstream reports the whole shape in one message and stops there.
        return [
            "a qualified name "
            + regex_error(_QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]

    if not name:
        errors.append("name part " + empty_error())
    elif _length(name) > QUALIFIED_NAME_MAX_LENGTH:
        errors.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    if not _matches(_QUALIFIED_NAME_RE, name):
        errors.append(
            "name part " + regex_error(_QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errors


def is_valid_label_value(s: str) -> list[str]:
    """Validate a label value: empty, or up to 63 alphanumerics, ``-``, ``_`` and ``.``."""
    errors: list[str] = []
    if _length(s) > LABEL_VALUE_MAX_LENGTH:
        errors.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _matches(_LABEL_VALUE_RE, s):
        errors.append(regex_error(_LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errors


def is_c_identifier(s: str) -> list[str]:
    """Validate a C identifier (the strict form of an environment variable name)."""
    if _matches(_C_IDENTIFIER_RE, s):
        return []
    return [regex_error(_C_IDENTIFIER_MSG, C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")]
