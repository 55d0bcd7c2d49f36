"""The CPU ladder (``python3 -m game.tools.ladder``): the levels in order, the tool's table and flags.

The full table (``docs/cpu.md``) takes minutes; here a few seeds check the ordering the curve
is built on (the masher beats easy more often than hard), the table the tool prints, the
scripted players' determinism, and one line and exit status 2 for each bad flag.
"""

from __future__ import annotations

import pytest

from game.sim import FrameInput, Match, ai
from game.tools import ladder
from game.tools.players import PLAYERS


@pytest.mark.slow
def test_masher_beats_easy_more_often_than_hard():
    seeds = range(4)
    wins = {lv: sum(ladder.play("masher", lv, s).winner == 0 for s in seeds) for lv in ("easy", "hard")}
    assert wins["easy"] > wins["hard"], wins
    assert wins["easy"] >= 3, wins


@pytest.mark.slow
def test_ladder_prints_a_table_of_every_player_and_level(capsys):
    assert ladder.main(["--seeds", "1", "--levels", "easy,hard", "--players", "masher,punisher", "--jobs", "1",
                        "--versus", "hard:normal"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("CPU ladder: 1 match a cell (seeds 0-0)")
    assert out[1].split() == ["player", "easy", "hard"]
    assert [line.split()[0] for line in out[2:4]] == ["masher", "punisher"]
    for line in out[2:4]:
        cells = line.split()[1:]
        assert len(cells) == 6 and all(c.endswith("%") for c in cells[::3]), line
    assert out[4].startswith("hard vs normal: hard won ")


def test_a_scripted_player_is_decided_by_the_seed():
    """Same seed, same inputs: a player draws from its own generator (not the match's RNG, not
    the global one), so a match against a CPU replays exactly."""
    for name, make in PLAYERS.items():
        hashes = []
        for _ in range(2):
            m = Match.new(seed=3, p2_cpu="normal")
            player = make(3, 0)
            for _ in range(400):
                m.step(player(m), FrameInput())
            hashes.append(m.state_hash())
        assert hashes[0] == hashes[1], name


def test_play_alternates_sides_and_counts_rounds():
    r = ladder.play("punisher", "easy", 1)        # an odd seed: the player on P2
    assert r.a == "punisher" and r.b == "easy" and r.seed == 1
    assert r.rounds == r.kos + r.time_overs >= r.a_rounds + r.b_rounds
    assert max(r.a_rounds, r.b_rounds) == 2 or r.rounds == 5
    assert r.winner == (0 if r.a_rounds > r.b_rounds else 1 if r.b_rounds > r.a_rounds else -1)


@pytest.mark.parametrize("argv,words", [
    (["--seeds", "0"], "--seeds"),
    (["--seeds", "x"], "--seeds"),
    (["--levels", "easy,godlike"], "'godlike'"),
    (["--players", "nobody"], "'nobody'"),
    (["--versus", "hard"], "LEVEL:LEVEL"),
    (["--versus", "hard:godlike"], "hard:godlike"),
    (["--jobs", "0"], "--jobs"),
    (["--bogus"], "--bogus"),
])
def test_bad_flags_give_one_line_and_exit_status_2(capsys, argv, words):
    with pytest.raises(SystemExit) as exc:
        ladder.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ladder: ") and words in err, err
    assert "python3 -m game.tools.ladder --help" in err


def test_every_level_is_on_the_ladder_and_every_level_list():
    """The ladder's default levels, the command line's ``--level`` choices and the replay's CPU
    codes are the CPU's levels, easiest first."""
    from game.cli.parser import build_parser
    from game.replay import CPU_CODES

    level = next(a for a in build_parser()._actions if a.dest == "level")
    assert tuple(level.choices) == tuple(ai.LEVELS)
    assert set(CPU_CODES) == {None, *ai.LEVELS}
    assert len(set(CPU_CODES.values())) == len(CPU_CODES)


@pytest.mark.slow
def test_the_table_is_the_same_on_one_process_or_two():
    tasks = [("masher", "hard", 0, False), ("combo", "hard", 1, False), ("normal", "hard", 0, True)]
    assert ladder.run(tasks, 2) == ladder.run(tasks, 1)
