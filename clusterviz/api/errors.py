"""Status errors, shaped like k8s.io/apimachinery/pkg/api/errors.

Raising a ``StatusError`` anywhere in request handling yields the matching
HTTP code and a ``Status`` body that kubectl and the Python client print the
way they print a real API server's.
"""

from __future__ import annotations

from typing import Any

from clusterviz.apimachinery.field import FieldError


class StatusError(Exception):
    """An API failure carrying its Status object."""

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        details: dict[str, Any] | None = None,
        retry_after: int | None = None,
        continue_token: str = "",
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.retry_after = retry_after
        self.continue_token = continue_token

    def status(self) -> dict[str, Any]:
        """The Status object sent to the client."""
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {"continue": self.continue_token} if self.continue_token else {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
        }
        # The real server's field order: details come before code.
        if self.details is not None:
            body["details"] = self.details
        body["code"] = self.code
        return body


def qualified(resource: str, group: str) -> str:
    """``deployments.apps`` style name used in messages (core resources stay bare)."""
    return f"{resource}.{group}" if group else resource


def _details(name: str, group: str, kind: str) -> dict[str, Any]:
    """StatusDetails in the real server's field order (name, group, kind), empty ones left out."""
    details: dict[str, Any] = {"name": name} if name else {}
    if group:
        details["group"] = group
    details["kind"] = kind
    return details


def not_found(resource: str, group: str, name: str) -> StatusError:
    return StatusError(404, "NotFound", f'{qualified(resource, group)} "{name}" not found', _details(name, group, resource))


def already_exists(resource: str, group: str, name: str) -> StatusError:
    return StatusError(
        409, "AlreadyExists", f'{qualified(resource, group)} "{name}" already exists', _details(name, group, resource)
    )


def conflict(resource: str, group: str, name: str, why: str) -> StatusError:
    message = f'Operation cannot be fulfilled on {qualified(resource, group)} "{name}": {why}'
    return StatusError(409, "Conflict", message, _details(name, group, resource))


MODIFIED_CONFLICT = "the object has been modified; please apply your changes to the latest version and try again"


def invalid(kind: str, group: str, name: str, errors: list[FieldError]) -> StatusError:
    """422 Invalid: kubectl prints ``The Deployment "x" is invalid: <field>: <message>``."""
    gk = f"{kind}.{group}" if group else kind
    summary = ", ".join(str(e) for e in errors)
    if len(errors) > 1:
        summary = "[" + summary + "]"
    details = _details(name, group, kind)
    details["causes"] = [e.as_cause() for e in errors]
    return StatusError(422, "Invalid", f'{gk} "{name}" is invalid: {summary}', details)


def bad_request(message: str) -> StatusError:
    return StatusError(400, "BadRequest", message)


def method_not_allowed(verb: str, resource: str, group: str) -> StatusError:
    details = {"group": group, "kind": resource} if group else {"kind": resource}
    return StatusError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", details)


def not_found_path() -> StatusError:
    return StatusError(404, "NotFound", "the server could not find the requested resource", {})


def expired(message: str, continue_token: str = "") -> StatusError:
    """410 Expired; ``continue_token``: where an expired list's pages may go on from (in the Status's metadata)."""
    return StatusError(410, "Expired", message, continue_token=continue_token)


def too_large(limit: int) -> StatusError:
    return StatusError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}")


ACCEPTED_MEDIA_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf",
                        "application/merge-patch+json", "application/strategic-merge-patch+json",
                        "application/json-patch+json", "application/apply-patch+yaml")


def unsupported_media_type(content_type: str, accepted: tuple[str, ...] = ACCEPTED_MEDIA_TYPES) -> StatusError:
    """415: a body in a format this resource does not take (``content_type`` named when the decoder met it)."""
    got = f" (got {content_type})" if content_type else ""
    return StatusError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted "
                       f"media types include: {', '.join(accepted)}{got}")


def forbidden(message: str) -> StatusError:
    return StatusError(403, "Forbidden", message)


# v1.NamespaceTerminatingCause: a create refused because its namespace is being deleted.
NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating"


def forbidden_resource(
    resource: str, group: str, name: str, why: str, causes: list[dict[str, str]] | None = None
) -> StatusError:
    """403 about one object, worded as apierrors.NewForbidden: ``pods "x" is forbidden: <why>``."""
    subject = f'{qualified(resource, group)} "{name}"' if name else qualified(resource, group)
    details = _details(name, group, resource)
    if causes:
        details["causes"] = causes
    return StatusError(403, "Forbidden", f"{subject} is forbidden: {why}", details)


def has_cause(exc: StatusError, cause_type: str) -> bool:
    """apierrors.HasStatusCause: whether the Status names a cause of this type."""
    return any(c.get("reason") == cause_type for c in (exc.details or {}).get("causes") or [])


def service_unavailable(message: str, retry_after: int = 1) -> StatusError:
    return StatusError(503, "ServiceUnavailable", message, retry_after=retry_after)


def store_unavailable() -> StatusError:
    """503 while the database cannot be reached (etcd unavailable, in Kubernetes terms)."""
    return service_unavailable("the storage is temporarily unavailable; please retry", retry_after=1)


def internal(message: str) -> StatusError:
    return StatusError(500, "InternalError", f"Internal error occurred: {message}")
