"""Exceptions: every non-ok graphc_status becomes a GraphcError."""
from . import _capi


class GraphcError(RuntimeError):
    """A failure reported by the runtime (or found before calling it).

    `code` is the runtime's code name ("invalid_argument", "not_found", ...)
    and the message is the runtime's message.
    """

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class InvalidArgumentError(GraphcError, ValueError):
    """The caller passed something wrong: a tensor's dtype, shape, device or
    name, a path. Also a ValueError."""

    def __init__(self, message):
        super().__init__("invalid_argument", message)


def error_from_status(lib, status):
    """Frees a non-NULL graphc_status and returns its exception."""
    code = lib.graphc_code_name(lib.graphc_status_code(status)).decode()
    message = lib.graphc_status_message(status).decode(errors="replace")
    lib.graphc_status_free(status)
    if code == "invalid_argument":
        return InvalidArgumentError(message)
    return GraphcError(code, message)


def check(status):
    """Raises the exception of a non-NULL graphc_status."""
    if status:
        raise error_from_status(_capi.library(), status)
