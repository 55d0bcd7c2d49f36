"""``python3 -m game.bench.ab``: another revision's code runs beside the working tree in one process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from clihelp import ROOT

#: every test here runs for more than about half a second
pytestmark = pytest.mark.slow


def _has_git_head() -> bool:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "HEAD"],
                              capture_output=True).returncode == 0
    except OSError:                    # no git on this machine: skip, don't break collection
        return False


@pytest.mark.skipif(not _has_git_head(), reason="needs a git checkout")
def test_ab_extracts_a_revision_under_its_own_package_name(tmp_path):
    from game.bench.ab import extract

    extract("HEAD", tmp_path, "game_at_rev")
    assert not (tmp_path / "game").exists()
    sources = [p.read_text() for p in (tmp_path / "game_at_rev").rglob("*.py")]
    assert sources and not any(line.lstrip().startswith(("from game.", "import game.", "from game import"))
                               for text in sources for line in text.splitlines())
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import game_at_rev.sim as s; "
            "m = s.Match.new(seed=2); [m.step() for _ in range(30)]; "
            "print(m.state_hash()); print(any(k == 'game' or k.startswith('game.') for k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    their_hash, loaded_ours = out.stdout.split()
    from game.sim import Match
    m = Match.new(seed=2)
    for _ in range(30):
        m.step()
    assert loaded_ours == "False"
    if subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD", "--", "game", "assets"]).returncode == 0:
        assert their_hash == m.state_hash()          # HEAD is the working tree: the same match


@pytest.mark.skipif(not _has_git_head(), reason="needs a git checkout")
def test_ab_runs_and_bad_revision_exits_2():
    def run(*a):
        return subprocess.run([sys.executable, "-m", "game.bench.ab", *a], capture_output=True, text=True, cwd=ROOT)

    ok = run("HEAD", "--seeds", "1", "--chunks", "2")
    assert ok.returncode == 0, ok.stderr
    assert "ratio working tree / HEAD: median" in ok.stdout
    replayed = run("HEAD", "--seeds", "1", "--chunks", "2", "--replayed")
    assert replayed.returncode == 0, replayed.stderr
    assert "Match.step, replayed inputs, no CPU side: HEAD" in replayed.stdout
    bad = run("no-such-revision")
    assert bad.returncode == 2 and "REV" in bad.stderr and "no-such-revision" in bad.stderr
    assert "Traceback" not in bad.stderr
