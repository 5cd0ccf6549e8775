"""The page's interrupt, as the end of a request whose time limit expired.

When a call runs past its time the page stores SIGINT in Pyodide's interrupt buffer, and
Python runs its SIGINT handler at the next check of its loop, once. Python's own handler
raises KeyboardInterrupt, which user code could stop: a `finally` that `continue`s or
`return`s, or one that raises an exception an `except` catches, ran on until the page tore
the worker down, or answered as if nothing had happened. So:
- while the entry point answers a call, the handler here marks the request expired (and
  notes the user's line it stopped), then raises KeyboardInterrupt as Python's does;
- every `finally` block and `except` handler of the user's code starts with `check()` (the
  rewrite puts it there), which raises KeyboardInterrupt again once the request expired:
  an exception can only be stopped in one of those, so none stops this one;
- the entry point answers an expired request with the interrupt, whatever the code returned.
"""
from __future__ import annotations

import signal
import threading
from types import FrameType

from .checker import USER_FILENAME

MESSAGE = "the request ran past its time limit"


class _Request:
    running = False  # the entry point is answering a call
    expired = False
    lineno: int | None = None  # the user's line the interrupt stopped


def _user_line(frame: FrameType | None) -> int | None:
    while frame is not None:
        if frame.f_code.co_filename == USER_FILENAME:
            return frame.f_lineno
        frame = frame.f_back
    return None


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    if _Request.running and not _Request.expired:
        _Request.expired = True
        _Request.lineno = _user_line(frame)
    raise KeyboardInterrupt(MESSAGE)


def start() -> None:
    """A call begins: a fresh time limit, the handler in place (signals reach only the
    main thread, which is where the page's worker runs Python)."""
    _Request.running, _Request.expired, _Request.lineno = True, False, None
    if threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGINT) is not _on_interrupt:
        signal.signal(signal.SIGINT, _on_interrupt)


def finish() -> None:
    """The call has its answer: an interrupt now is Python's ordinary KeyboardInterrupt."""
    _Request.running = False


def check() -> None:
    """Raise the interrupt again if the request's time limit expired."""
    if _Request.expired:
        raise KeyboardInterrupt(MESSAGE)


def expired() -> bool:
    """Whether this request's time limit expired."""
    return _Request.expired


def expired_line() -> int | None:
    """The user's line the interrupt stopped (None if it landed outside the user's code)."""
    return _Request.lineno
