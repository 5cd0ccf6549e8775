"""The page's code editor in tests. CodeMirror mounts when the reader reaches for the code
(app/editor-slot.js), so a test that needs it reaches for it first, as a reader would."""
from __future__ import annotations

EDITOR = "[data-testid=editor]"


def reach_editor(page) -> None:
    """A pointer over the code (a page or a frame): CodeMirror mounts, without taking focus."""
    page.dispatch_event(EDITOR, "pointerover")
    page.wait_for_selector(f"{EDITOR} .cm-editor")


def click_editor(page) -> None:
    """A press on the code: CodeMirror mounts if it was not there, focused, caret at the press."""
    mounted = page.locator(f"{EDITOR} .cm-editor").count() > 0
    page.click(f"{EDITOR} .cm-content" if mounted else f"{EDITOR} .editor-prerender")
    page.wait_for_function(
        "() => !!document.activeElement?.closest('[data-testid=editor] .cm-editor')")


def marked_line(page, cls: str) -> int:
    """The first line of the code wearing `cls` (cm-error-line, cm-linked-line, cm-step-line),
    1-based, 0 for none: CodeMirror's lines, or the plain lines that wear the same classes
    until it mounts."""
    return page.evaluate("""(cls) => [...document.querySelectorAll(
        '[data-testid=editor] .cm-content .cm-line, [data-testid=editor] .editor-prerender > span')]
        .findIndex((l) => l.classList.contains(cls)) + 1""", cls)
