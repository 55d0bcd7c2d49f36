"""game.cli.ending.Session, the one way a run ends: the exit statuses the README documents,
signals deferred during a save, ignored signals left ignored, and a finish that saves what is
pending and reports it in one line."""

from __future__ import annotations

import os
import re
import signal

import pytest

from clihelp import ROOT
from game.cli.ending import SIGNAL_REASONS, Ended, Reason, Session

pytestmark = pytest.mark.usefixtures("sighup_default")      # these tests send themselves SIGHUP


class _Pending:
    """A pending save that records the reasons it was saved for."""

    def __init__(self, lines: list[str], failed: bool = False):
        self.lines, self.failed, self.reasons = lines, failed, []

    def save_pending(self, reason: Reason) -> list[str]:
        self.reasons.append(reason)
        return self.lines


def test_a_signals_status_is_128_plus_its_number():
    for sig, reason in SIGNAL_REASONS.items():
        assert reason.status == 128 + sig, reason


@pytest.mark.parametrize("doc", ["README.md", "docs/api.md"])
def test_the_docs_exit_status_tables_are_the_code_s(doc):
    text = (ROOT / doc).read_text()
    rows = re.findall(r"^\| ([0-9][0-9 /]*) \| (.+) \|$", text, flags=re.M)
    documented = {int(n) for statuses, _what in rows for n in statuses.split("/")}
    assert documented == {r.status for r in Reason}, (doc, sorted(documented))
    words = {int(n): what for statuses, what in rows for n in statuses.split("/")}
    for sig in SIGNAL_REASONS:
        assert sig.name in " ".join(words.values()), (doc, sig.name)


def test_finish_saves_every_pending_and_reports_the_reason_and_saves_in_one_line():
    lines: list[str] = []
    session = Session(lines.append)
    a, b = _Pending(["match 1 saved to a.rpl"]), _Pending([])
    session.add(a)
    session.add(b)
    assert session.finish(Reason.SIGTERM) == 143
    assert a.reasons == b.reasons == [Reason.SIGTERM]
    assert lines == ["stopped by SIGTERM; match 1 saved to a.rpl"]


def test_a_normal_end_whose_save_failed_exits_2():
    session = Session(lambda line: None)
    session.add(_Pending(["could not save ...; saved it to /tmp/x instead"], failed=True))
    assert session.finish(Reason.NORMAL) == 2


def test_a_signal_during_a_save_waits_for_its_end():
    """SIGTERM inside ``deferred()`` (a save) is noted; Ended is raised when the save is done."""
    session = Session(lambda line: None)
    done = []
    before = signal.getsignal(signal.SIGTERM)
    with session.catching_signals():
        with pytest.raises(Ended) as caught:
            with session.deferred():
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):           # Python runs the handler between these bytecodes
                    pass
                done.append("the save's end")
        assert done == ["the save's end"] and caught.value.reason is Reason.SIGTERM
        assert session.finish(Reason.NORMAL) == 143          # the run then ends with the signal's status
    assert signal.getsignal(signal.SIGTERM) == before                 # the handlers are put back


def test_a_signal_outside_a_save_raises_at_once_and_a_second_is_noted_while_finishing():
    session = Session(lambda line: None)
    seen = []

    class Slow:
        failed = False

        def save_pending(self, reason: Reason) -> list[str]:
            os.kill(os.getpid(), signal.SIGINT)         # a second signal during the final save
            for _ in range(1000):
                pass
            seen.append(reason)
            return []
    session.add(Slow())
    with session.catching_signals():
        with pytest.raises(Ended) as caught:
            os.kill(os.getpid(), signal.SIGHUP)
            for _ in range(1000):
                pass
        assert session.finish(caught.value.reason) == 129
    assert seen == [Reason.SIGHUP]


def test_a_signal_started_ignored_stays_ignored():
    """nohup's SIGHUP: the game does not take it over."""
    old = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with Session(lambda line: None).catching_signals():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, old)



def test_a_signal_turned_into_another_exception_ends_the_run_as_the_signal(monkeypatch, capsys):
    """numpy's import turns any exception raised inside it into an ImportError: a SIGHUP that
    lands there reaches main as that ImportError.  The run ended by the signal: its status and
    its line, no traceback and no "internal error"."""
    from game.cli import app

    def run(argv, program, session):
        try:
            os.kill(os.getpid(), signal.SIGHUP)
            for _ in range(1000):
                pass
        except Ended as exc:
            raise ImportError("PyCapsule_Import could not import module \"datetime\"") from exc
        return 0

    monkeypatch.setattr(app, "_run", run)
    assert app.main([]) == 129
    err = capsys.readouterr().err
    assert "the terminal hung up (SIGHUP)" in err
    assert "Traceback" not in err and "internal error" not in err


def test_an_exception_with_no_signal_is_still_a_crash(monkeypatch, capsys):
    from game.cli import app

    def run(argv, program, session):
        raise RuntimeError("a bug")

    monkeypatch.setattr(app, "_run", run)
    assert app.main([]) == Reason.CRASH.status
    err = capsys.readouterr().err
    assert "Traceback" in err and "internal error" in err


def test_a_window_left_ends_its_recording_and_reports_the_line_then_where_it_was_saved():
    from game.cli.ending import report_left

    class Run:
        ended = False

        def end(self):
            self.ended = True

    lines: list[str] = []
    run = Run()
    assert report_left(Session(lines.append), run, ["--record: match 1 saved to a.rpl"], "you left") == 0
    assert run.ended and lines == ["you left", "--record: match 1 saved to a.rpl"]
    assert report_left(Session(lines.append), None, [], "you left room r") == 0 and lines[-1] == "you left room r"
