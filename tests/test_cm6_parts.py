"""CodeMirror is built in parts (sitebuild/frontend.py CM6_PARTS) that app/editor-slot.js
evaluates one task each, in the build's order, before app/editor.js."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from sitebuild import frontend
from sitebuild.common import BuildError

ROOT = Path(__file__).resolve().parents[1]


def test_the_facade_s_exports_are_grouped_by_part_in_order():
    facade = ('export { EditorView, keymap } from "@codemirror/view";\n'
              'export { EditorState } from "@codemirror/state";\n'
              'export { python } from "@codemirror/lang-python";\n'
              'export {\n  tags,\n} from "@lezer/highlight";\n')
    parts = frontend.cm6_part_entries(facade)
    assert list(parts) == list(frontend.CM6_PARTS)
    assert parts["state"] == 'export { EditorState } from "@codemirror/state";\n'
    assert parts["view"] == 'export { EditorView, keymap } from "@codemirror/view";\n'
    assert parts["language"] == 'export {\n  tags,\n} from "@lezer/highlight";\n'
    assert parts["python"] == 'export { python } from "@codemirror/lang-python";\n'
    assert parts["setup"] == ""


def test_a_package_in_no_part_stops_the_build():
    with pytest.raises(BuildError, match="@codemirror/search"):
        frontend.cm6_part_entries('export { search } from "@codemirror/search";\n')
    with pytest.raises(BuildError, match="no `export"):
        frontend.cm6_part_entries("export * from '@codemirror/view';\n")


def test_the_page_evaluates_the_build_s_parts_in_the_build_s_order():
    slot = (ROOT / "app" / "editor-slot.js").read_text()
    listed = re.search(r"const CODEMIRROR_PARTS = \[([^\]]*)\]", slot)
    assert listed, "app/editor-slot.js lists CodeMirror's parts in CODEMIRROR_PARTS"
    assert re.findall(r'"([a-z]+)"', listed.group(1)) == list(frontend.CM6_PARTS)
    # every package the real facade exports from has its part
    parts = frontend.cm6_part_entries((ROOT / frontend.CM6_ENTRY).read_text())
    assert all(parts.values()), "a part with nothing in it"
