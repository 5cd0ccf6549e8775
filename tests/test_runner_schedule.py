"""When the page's runner (app/page/runner.js) sends a change's request: a change that asks
now is sent in the task that made it, changes made in one task share one request for the
state after them all, and a debounce asked later in the task holds it back; once an edit's
answer is in, the input flipped last is asked flipped again at once, in a quiet call. Run in
Node on a stand-in engine by tests/js/runner_schedule.mjs."""
from __future__ import annotations

import pytest

from tests.node_script import node_json


@pytest.fixture(scope="module")
def seen() -> dict:
    return node_json("runner_schedule.mjs")


def test_a_change_that_asks_now_is_sent_in_its_own_task(seen):
    assert seen["nowSentInSameTask"] is True
    assert seen["nowAnswered"] is True


def test_changes_in_one_task_share_one_request_for_the_last_state(seen):
    assert seen["oneTaskOneCall"] == 1
    assert seen["latestStateAsked"] == "false,true"


def test_a_later_debounce_holds_the_request_back(seen):
    assert seen["debounceHeld"] is True
    assert seen["debounceSentOnce"] == 1


def test_the_runner_is_busy_while_a_run_is_queued(seen):
    assert seen["busyWhileQueued"] is True


def test_the_input_flipped_last_is_asked_flipped_again_as_soon_as_an_edits_answer_is_in(seen):
    # y was flipped to known, then the code edited: y unknown again, of the edited code, is
    # asked ahead at once, and only it (the other requests wait for the reader's pause)
    assert seen["likeliestAskedAtOnce"] == ["true:true,false"]
    assert seen["readersCallsThen"] == 3
