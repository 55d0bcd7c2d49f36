"""The sound player (game/audio/player.py): which sound each match event plays, at what volume
and pan, on a fixed pool of voices (a fake backend: no audio device needed); mute, the M key
and ``--mute``; and that nothing but the window ever loads ``pyglet.media``."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import numpy as np
import pytest

from clihelp import ROOT
from game.audio import synth
from game.audio.player import KNOCKDOWN_LAND, KO_LAND, AudioPlayer
from game.sim import KO, CrateStruck, FrameInput, Hit, Match, ProjectileClash, ProjectileImpact, ProjectileLaunched
from simhelp import NEUTRAL, fight, make_hit, placed


@pytest.fixture(scope="module")
def sounds():
    return synth.build_all()


# ----------------------------------------------------------------------------- mapping and voices
class FakeVoices:
    """The backend interface, recording: ``played`` [(voice, sample, volume, pan)], ``stopped``."""

    def __init__(self, seconds: float = 0.5):
        self.played: list = []
        self.stopped: list = []
        self.durations = {name: seconds for name in synth.NAMES}

    def play(self, voice, sample, volume, pan):
        self.played.append((voice, sample, volume, pan))

    def stop(self, voice):
        self.stopped.append(voice)

    def names(self) -> list:
        """The sounds played (whichever take)."""
        return [synth.base_name(s) for _v, s, _vol, _pan in self.played]

    def samples(self) -> list:
        """The samples played: which take of each sound."""
        return [s for _v, s, _vol, _pan in self.played]

    def pans(self) -> list:
        return [p for _v, _s, _vol, p in self.played]


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def player(voices: int = 8, **kw):
    backend = FakeVoices()
    return AudioPlayer(backend, voices=voices, clock=Clock(), master=1.0, **kw), backend


def step(m, ap, p1=NEUTRAL, p2=NEUTRAL):
    events = m.step(p1, p2)
    ap.on_step(m, events)
    return events


def test_a_heavy_hit_is_louder_than_a_light_one_and_blocks_clack():
    m = fight(Match.new(seed=0))
    cases = {"light": make_hit(move="lp", damage=5), "light_big": make_hit(move="lk", damage=9),
             "heavy": make_hit(move="hp", damage=12, heavy=True),
             "heavy_scaled": make_hit(move="hp", damage=6, heavy=True),      # 50 % in a long combo
             "blocked": make_hit(move="hp", damage=0, heavy=True, blocked=True),
             "blocked_light": make_hit(move="lp", damage=0, blocked=True)}
    got = {}
    for name, e in cases.items():
        ap, b = player()
        m.frame += 1                      # each call a new step (the player tracks frames)
        ap.on_step(m, (e,))
        assert len(b.played) == 1, (name, b.played)
        got[name] = b.played[0][1:3]
    assert got["light"][0] == got["light_big"][0] == "light_hit"
    assert got["heavy"][0] == got["heavy_scaled"][0] == "heavy_hit"
    assert got["blocked"][0] == got["blocked_light"][0] == "blocked_hit"
    vol = {k: v for k, (_s, v) in got.items()}
    assert vol["light"] < vol["light_big"] < vol["heavy_scaled"] < vol["heavy"] <= 1.0
    assert vol["blocked_light"] < vol["blocked"]


@pytest.mark.slow
def test_the_mix_is_balanced_on_heard_loudness(sounds):
    """Each event's level as heard: the sound's A-weighted loudest 100 ms (``synth.loudness``)
    plus ``20 log10`` of the volume ``sounds_for`` gives it, for typical events.  The K.O. is
    the loudest; a heavy hit 3-10 dB over a light one; a whiff under every landed hit; the
    fireball's launch and the round cues no louder than a heavy hit (the time-over horn was
    3-4 dB over it).  A-weighting matters: in plain RMS the heavy hit's sub-bass peaks 9 dB
    over the light hit."""
    from game.audio.player import sounds_for
    from game.sim import Fight, ProjectileClash, ProjectileLaunched, RoundStart, TimeOver, Whiff

    m = fight(Match.new(seed=0))

    def level(*events):
        now, _later = sounds_for(m, events)
        assert len(now) == 1, now
        name, vol, _where = now[0]
        return synth.loudness(sounds[name]) + 20 * np.log10(vol)

    lv = {"light": level(make_hit(move="lp", damage=5)), "heavy": level(make_hit(move="hp", damage=12, heavy=True)),
          "blocked": level(make_hit(move="hp", damage=0, heavy=True, blocked=True)),
          "whiff": level(Whiff(m.frame, 0, "hp")), "launch": level(ProjectileLaunched(m.frame, 0, np.zeros(3))),
          "clash": level(ProjectileClash(m.frame, np.zeros(3))), "round": level(RoundStart(m.frame, 1)),
          "fight": level(Fight(m.frame, 1)), "time_over": level(TimeOver(m.frame, 1))}
    ko = synth.loudness(sounds["knockout"])
    assert ko >= max(lv.values()) + 1.0, (ko, lv)
    assert 3.0 <= lv["heavy"] - lv["light"] <= 10.0, lv
    assert lv["whiff"] < min(lv["light"], lv["blocked"]), lv
    assert max(lv["launch"], lv["round"], lv["fight"], lv["time_over"]) <= lv["heavy"] + 0.5, lv


def test_a_real_jab_plays_the_light_hit_and_a_guarded_one_the_block():
    m = placed(0.9)
    ap, b = player()
    events = step(m, ap, FrameInput(lp=True))
    for _ in range(12):
        events += step(m, ap)
    assert any(isinstance(e, Hit) and not e.blocked for e in events)
    assert "light_hit" in b.names() and "blocked_hit" not in b.names()

    m = placed(0.9)
    ap, b = player()
    guard = FrameInput(guard=True)
    events = step(m, ap, FrameInput(lp=True), guard)
    for _ in range(12):
        events += step(m, ap, NEUTRAL, guard)
    assert any(isinstance(e, Hit) and e.blocked for e in events)
    assert "blocked_hit" in b.names() and "light_hit" not in b.names()


def test_whiff_fireball_and_crate_events_play_their_sounds():
    m = placed(3.0)
    ap, b = player()
    step(m, ap, FrameInput(hk=True))
    for _ in range(20):
        step(m, ap)
    assert b.names() == ["whiff"]
    assert b.played[0][2] < 0.6                 # quiet

    m = placed(3.0)
    ap, b = player()
    events = list(step(m, ap, FrameInput(lp=True, hp=True)))
    for _ in range(80):
        events += step(m, ap)
    assert any(isinstance(e, ProjectileLaunched) for e in events)
    assert "fireball_launch" in b.names()
    hit = [e for e in events if isinstance(e, Hit)]
    assert hit and hit[0].attack_limb == "fireball" and "fireball_impact" in b.names()

    p = np.zeros(3)
    for e, want in ((CrateStruck(m.frame, 0, 0, "crate_0", "forearm_l", p, 0.01, False, p), "crate_hit"),
                    (CrateStruck(m.frame, 0, 0, "crate_0", "forearm_l", p, 0.05, True, p), "crate_break"),
                    (ProjectileImpact(m.frame, 0, p, p, 1), "fireball_impact"),
                    (ProjectileClash(m.frame, p), "fireball_clash")):
        ap, b = player()
        m.frame += 1
        ap.on_step(m, (e,))
        assert b.names() == [want], (e, b.names())


def test_round_start_fight_ko_and_the_falling_body():
    """A match's first steps ring the round bell then the gong; the finishing blow plays the
    K.O. sound (not the hit's), and the loser's body lands KO_LAND frames after its hitstop."""
    m = Match.new(seed=0)
    ap, b = player()
    while m.phase != "fight":
        step(m, ap)
    assert b.names() == ["round_start", "fight"]
    a, d = m.fighters
    a.x, d.x = -0.45, 0.45
    step(m, ap)
    d.health = 1
    b.played.clear()
    frames = {}
    events = list(step(m, ap, FrameInput(lp=True)))
    for _ in range(60):
        before = len(b.played)
        events += step(m, ap)
        for s in b.names()[before:]:
            frames.setdefault(s, m.frame)
    ko = next(e for e in events if isinstance(e, KO))
    hit = next(e for e in events if isinstance(e, Hit))
    assert ko.loser == 1
    assert b.names()[0] == "knockout" and "light_hit" not in b.names()
    assert frames["body_fall"] == ko.frame + 1 + hit.hitstop + KO_LAND
    assert b.names().count("body_fall") == 1


def test_a_sweep_knockdown_plays_the_body_fall_when_it_lands():
    m = placed(1.0)
    ap, b = player()
    events = list(step(m, ap, FrameInput(down=True, hk=True)))
    while not any(isinstance(e, Hit) for e in events):
        events = step(m, ap)
    hit = next(e for e in events if isinstance(e, Hit))
    assert m.fighters[1].state == "knockdown" and b.names() == ["heavy_hit"]
    hit_frame = m.frame
    for _ in range(hit.hitstop + KNOCKDOWN_LAND - 1):
        step(m, ap)
    assert b.names() == ["heavy_hit"]           # still falling
    step(m, ap)
    assert m.frame == hit_frame + hit.hitstop + KNOCKDOWN_LAND
    assert b.names() == ["heavy_hit", "body_fall"]


def test_a_training_rewind_plays_nothing_of_the_abandoned_exchange():
    """Training's reset (the dummy restores the match) while a knocked-down body is still
    falling and the hit still rings: the ringing voice stops, the fall is never heard, and
    the steps after the reset play nothing (no burst of old sounds)."""
    from game.training import DummyController

    m = placed(1.0)
    dummy = DummyController()
    dummy.attach(m)
    ap, b = player()
    for _ in range(3):
        step(m, ap)
    events = step(m, ap, FrameInput(down=True, hk=True))
    while not any(isinstance(e, Hit) for e in events):
        events = step(m, ap)
    assert b.names() == ["heavy_hit"]
    dummy.reset(m)                              # R: back to the start positions
    for _ in range(80):
        step(m, ap)
    assert b.names() == ["heavy_hit"], "the rewind replayed or kept sounds of the old exchange"
    assert b.stopped, "the abandoned exchange's sound kept ringing"
    events = step(m, ap, FrameInput(down=True, hk=True))     # the new timeline sounds as usual
    while not any(isinstance(e, Hit) for e in events):
        events = step(m, ap)
    assert b.names() == ["heavy_hit", "heavy_hit"]


@pytest.mark.slow
def test_listening_never_changes_the_match():
    def run(listen: bool):
        m = Match.new(seed=3, p1_cpu="hard", p2_cpu="hard")
        ap, _b = player()
        out = []
        for _ in range(900):
            events = m.step()
            before = [repr(e) for e in events]
            if listen:
                ap.on_step(m, events)
            assert [repr(e) for e in events] == before
            out.append(m.state_hash())
        return out
    assert run(True) == run(False)


def test_three_jabs_in_a_row_play_three_different_takes():
    """Jab, jab, jab (each one lands): three takes, in turn, then the first again; the turn
    is per sound (a block in between does not move the jab's) and takes no random state."""
    m = placed(0.9)
    ap, b = player()
    state = np.random.get_state()[1].copy()
    hits = []
    for _ in range(3):
        hits += [e for e in step(m, ap, FrameInput(lp=True)) if isinstance(e, Hit)]
        for _ in range(25):
            hits += [e for e in step(m, ap) if isinstance(e, Hit)]
    assert len(hits) == 3 and not any(h.blocked for h in hits)
    assert b.samples() == ["light_hit", "light_hit#1", "light_hit#2"]
    m.frame += 1
    ap.on_step(m, (make_hit(blocked=True, damage=0),))
    m.frame += 1
    ap.on_step(m, (make_hit(),))
    assert b.samples()[3:] == ["blocked_hit", "light_hit"]
    assert np.array_equal(np.random.get_state()[1], state)


def _camera_view_proj(m: Match) -> np.ndarray:
    """The view-projection the game would draw ``m`` with (its fight camera, 16:9)."""
    from game.render.camera import FightCamera

    a, d = m.fighters
    view, proj, _eye = FightCamera(a.position, d.position).matrices(16 / 9)
    return proj @ view


def test_a_hit_on_the_left_of_the_screen_is_heard_on_the_left():
    """A hit whose world point projects left of the screen's centre (P1's chest, P1 on the
    left of the fight camera) gets a negative pan, and the backend is asked for it, which
    picks a left-panned source; one on P2 a positive pan; the pan is the point's screen x
    times 0.8, so nothing is hard-panned even far off screen."""
    from game.audio.player import PAN_WIDTH, screen_pan

    m = placed(3.0)
    vp = _camera_view_proj(m)
    a, d = m.fighters
    chest = np.array([0.0, 1.3, 0.0])
    ap, b = player(pan_of=lambda point: screen_pan(point, vp))
    m.frame += 1
    ap.on_step(m, (make_hit(attacker=1, defender=0, point=a.position + chest),))
    m.frame += 1
    ap.on_step(m, (make_hit(point=d.position + chest, heavy=True, damage=12, move="hp"),))
    left, right = b.pans()
    assert b.names() == ["light_hit", "heavy_hit"]
    assert -PAN_WIDTH <= left < -0.1 and 0.1 < right <= PAN_WIDTH, (left, right)
    assert synth.PANS[synth.nearest_pan(left)] < 0 < synth.PANS[synth.nearest_pan(right)]
    assert screen_pan(np.array([-50.0, 1.0, 0.0]), vp) == -PAN_WIDTH          # clamped at the edge
    assert screen_pan(np.array([50.0, 1.0, 0.0]), vp) == PAN_WIDTH
    assert screen_pan(chest, None) == 0.0                                      # nothing drawn yet
    # the whiff, the crate and the projectile's events are placed too
    crate = CrateStruck(m.frame, 0, 0, "crate_0", "forearm_l", a.position + chest, 0.01, False, a.position)
    for e in (crate, ProjectileImpact(m.frame, 1, d.position + chest, a.position + chest, 1),
              ProjectileClash(m.frame, a.position + chest)):
        m.frame += 1
        ap.on_step(m, (e,))
        assert b.pans()[-1] == pytest.approx(left), e


def test_round_cues_and_the_ko_are_centred_and_no_pan_of_centres_everything():
    """With a ``pan_of`` that puts everything hard left, the round bell, the gong, the K.O.
    blow and the time-over horn still play at 0; the K.O.'s falling body is placed (at the
    loser).  A player without ``pan_of`` plays every sound at 0."""
    from game.sim import Fight, RoundStart, TimeOver

    m = fight(Match.new(seed=0))
    for pan_of, want in ((lambda point: -0.8, -0.8), (None, 0.0)):
        ap, b = player(pan_of=pan_of)
        for e in (RoundStart(m.frame, 1), Fight(m.frame, 1), TimeOver(m.frame, 1)):
            m.frame += 1
            ap.on_step(m, (e,))
        m.frame += 1
        ap.on_step(m, (make_hit(hitstop=0), KO(m.frame, 1, 1)))
        for _ in range(KO_LAND):
            m.frame += 1
            ap.on_step(m, ())
        m.frame += 1
        ap.on_step(m, (make_hit(), ))
        assert b.names() == ["round_start", "fight", "time_over", "knockout", "body_fall", "light_hit"]
        assert b.pans() == [0.0, 0.0, 0.0, 0.0, want, want], pan_of


def test_voices_are_capped_and_the_oldest_is_stolen_but_never_by_a_whiff():
    ap, b = player(voices=3)
    clock = ap.clock
    for i, s in enumerate(("light_hit", "heavy_hit", "crate_hit")):
        clock.t += 0.01
        assert ap.play(s, 0.5) == i
    clock.t += 0.01
    assert ap.play("whiff", 0.5) is None        # all busy: a whiff is dropped
    assert ap.play("knockout", 1.0) == 0        # steals the oldest
    clock.t += 0.01
    assert ap.play("fight", 1.0) == 1           # the next oldest
    clock.t += 1.0                              # everything has ended
    assert ap.play("whiff", 0.5) == 0
    assert [v for v, _s, _vol, _pan in b.played] == [0, 1, 2, 0, 1, 0]


def test_one_step_plays_each_sound_once_at_its_loudest():
    m = fight(Match.new(seed=0))
    ap, b = player()
    m.frame += 1
    ap.on_step(m, (make_hit(damage=5), make_hit(attacker=1, defender=0, damage=9, move="lk")))
    assert len(b.played) == 1 and b.names() == ["light_hit"]
    m.frame += 1
    ap.on_step(m, (make_hit(damage=9, move="lk"),))
    assert b.played[0][2] == b.played[1][2]


def test_mute_and_master_volume():
    m = fight(Match.new(seed=0))
    ap, b = player(muted=True)
    m.frame += 1
    ap.on_step(m, (make_hit(heavy=True, damage=12, move="hp"),))
    assert b.played == [] and ap.play("light_hit", 1.0) is None
    assert ap.toggle_mute() is False
    m.frame += 1
    ap.on_step(m, (make_hit(heavy=True, damage=12, move="hp"),))
    assert len(b.played) == 1
    full = b.played[0][2]
    assert ap.toggle_mute() is True and b.stopped == [0]       # muting stops what rings
    ap.toggle_mute()
    ap.master = 0.5
    m.frame += 1
    ap.on_step(m, (make_hit(heavy=True, damage=12, move="hp"),))
    assert b.played[-1][2] == pytest.approx(0.5 * full)


def test_before_the_backend_is_ready_sounds_are_skipped_quietly():
    m = fight(Match.new(seed=0))
    ap = AudioPlayer()                          # what main.py makes before the first frame
    assert ap.status == "off" and ap.backend is None
    m.frame += 1
    ap.on_step(m, (make_hit(),))
    assert ap.play("light_hit", 1.0) is None


def test_a_failing_driver_turns_the_sound_off_with_one_line():
    class Broken(FakeVoices):
        def play(self, voice, sample, volume, pan):
            raise OSError("device unplugged")
    lines = []
    ap = AudioPlayer(Broken(), report=lines.append)
    assert ap.play("light_hit", 1.0) is None and ap.play("light_hit", 1.0) is None
    assert ap.backend is None and len(lines) == 1 and "without sound" in lines[0]


@pytest.mark.gl  # pyglet.window's key codes load the GL libraries
def test_the_m_key_toggles_mute():
    from game.render.game import NOTICE_TICKS, Game

    class Keys:
        def __getattr__(self, name):
            return hash(name) & 0xFFFF

    k = Keys()
    ap, _b = player()
    game = types.SimpleNamespace(key=k, audio=ap, ticks=100, notice=None)
    Game._on_key_press(game, k.M)
    assert ap.muted and game.notice == ("sound off", 100 + NOTICE_TICKS)
    Game._on_key_press(game, k.M)
    assert not ap.muted and game.notice[0] == "sound on"
    game.audio, game.notice = None, None
    Game._on_key_press(game, k.M)               # no sound: M does nothing, and does not fail
    assert game.notice is None


@pytest.fixture(scope="module")
def gl_game():
    from glhelp import game_env

    yield from game_env(1280, 720)


@pytest.mark.slow
@pytest.mark.gl
def test_the_m_key_says_sound_off_in_the_hud_corner_for_a_second_and_a_half(gl_game):
    """M gives a visible answer: "sound off" (then "sound on") drawn in the bottom-right
    corner for NOTICE_TICKS ticks, then gone.  Read from the frame's pixels."""
    import numpy as np

    from game.render.game import NOTICE_TICKS
    from game.render.offscreen import frame_pixels
    from glhelp import fresh

    _pyglet, _window, game = gl_game
    game = fresh(game, p1="cpu", p2="cpu")
    game.screen = "fight"
    ap, _b = player()
    game.audio = ap
    for _ in range(5):
        game.step()
    corner = (slice(720 - 40, 720), slice(1280 - 200, 1280))          # rows from the top, columns

    def words():
        """Pixels of the corner that the notice changes: this state drawn with it and without."""
        shown = frame_pixels(game)[corner].astype(int)
        kept, game.notice = game.notice, None
        plain = frame_pixels(game)[corner].astype(int)
        game.notice = kept
        return int((np.abs(shown - plain).max(axis=2) > 60).sum())

    game.on_key_press(game.key.M, 0)
    game.step()
    assert ap.muted and game.notice[0] == "sound off" and words() > 80
    game.on_key_press(game.key.M, 0)
    assert not ap.muted and game.notice[0] == "sound on" and words() > 80
    for _ in range(NOTICE_TICKS):
        game.step()
    assert words() == 0                                                # gone after 1.5 s
    game.audio = None


# ----------------------------------------------------------------------------- wiring and CLI
def test_the_window_attaches_a_silent_player_and_a_headless_gl_window_none():
    from game.cli.parser import build_parser
    from game.cli.window import attach_audio

    game = types.SimpleNamespace(step_listeners=[], audio=None)
    args = build_parser().parse_args(["--mute"])
    audio = attach_audio(args, types.SimpleNamespace(options={"headless": False}), game)
    assert isinstance(audio, AudioPlayer) and game.audio is audio and audio.muted
    assert game.step_listeners == [audio.on_step]
    point = np.array([-1.5, 1.3, 0.0])
    assert audio.pan_of(point) == 0.0                           # no frame drawn yet: centred
    game.view_proj = _camera_view_proj(placed(3.0))             # what Game.draw leaves
    assert audio.pan_of(point) < -0.1
    assert audio.status == "off" and audio._thread is None      # nothing starts before the first frame
    game = types.SimpleNamespace(step_listeners=[], audio=None)
    assert attach_audio(args, types.SimpleNamespace(options={"headless": True}), game) is None
    assert game.step_listeners == [] and game.audio is None


@pytest.mark.slow
@pytest.mark.gl  # the --screenshot run renders
def test_sim_headless_and_screenshot_never_import_pyglet_media(tmp_path):
    code = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from game.sim import Match
Match.new(seed=0).step()
print("sim", "game.audio" in sys.modules, "pyglet" in sys.modules)
import main
assert main.main(["--headless", "--frames", "30"]) == 0
print("headless", "pyglet.media" in sys.modules, "game.audio.player" in sys.modules)
assert main.main(["--screenshot", {str(tmp_path / "s.png")!r}, "--frames", "3"]) == 0
print("screenshot", "pyglet.media" in sys.modules, "game.audio.player" in sys.modules)
"""
    env = dict(os.environ, PYGLET_HEADLESS="1")
    env.pop("DISPLAY", None)
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stdout.splitlines() if ln.split(" ")[0] in ("sim", "headless", "screenshot")]
    assert lines == ["sim False False", "headless False False", "screenshot False False"], p.stdout


def test_mute_parses_and_bad_uses_exit_2(capsys):
    import main
    from game.cli.parser import build_parser

    assert build_parser().parse_args(["--mute"]).mute is True
    assert build_parser().parse_args([]).mute is False
    for argv in (["--mute=yes"], ["--headless", "--mute"], ["--mute", "--mute=1"]):
        assert main.main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--mute" in err[0], (argv, err)


@pytest.mark.slow
@pytest.mark.gl  # pyglet.media loads pyglet's GL parts
def test_pyglet_voices_play_and_replace_sounds_on_pyglets_own_players():
    """The real backend's use of pyglet.media (a WAV in memory loaded as a StaticSource, a
    voice's next sound replacing the last on the same player) through pyglet's silent
    driver, which runs players without a device: in a subprocess, so this process never
    imports pyglet.media.  (``PygletVoices.create`` declines the silent driver; the game
    then plays nothing, which the tests above cover.)  Every source is 16-bit stereo (one
    format: a voice keeps its driver stream from a centred sound to a panned one), a
    positioned sample has one per pan position and a centred one a single one, a negative
    pan queues a source louder on the left, and ``nbytes`` is what the sources hold."""
    code = """
import numpy as np
import pyglet.media as media
from game.audio.player import CENTRED, PygletVoices
from game.audio.synth import NAMES, PANS, SAMPLE_RATE, base_name, build_all
v = PygletVoices(media, 2)
want = {k: len(x) / SAMPLE_RATE for k, x in build_all().items()}
srcs = [s for name in NAMES for s in v.sources[name]]
print("formats", sorted({(s.audio_format.channels, s.audio_format.sample_size, s.audio_format.sample_rate)
                         for s in srcs}))
print("counts", all(len(v.sources[n]) == (1 if base_name(n) in CENTRED else len(PANS)) for n in NAMES),
      v.nbytes == sum(len(s._data) for s in srcs))
out = []
streams = {}
for i, (name, pan) in enumerate([("light_hit#1", -0.7), ("knockout", -0.7), ("crate_hit", 0.5), ("fight", 0.0),
                                 ("light_hit", -0.7)]):
    v.play(i % 2, name, 0.5 + 0.1 * i, pan)
    p = v.players[i % 2]
    pcm = np.frombuffer(p.source._file.getvalue(), "<i2").reshape(-1, 2).astype(float)
    left, right = np.sqrt((pcm ** 2).mean(axis=0))
    side = "L" if left > 1.5 * right else ("R" if right > 1.5 * left else "C")
    same = streams.setdefault(i % 2, p._audio_player) is p._audio_player
    out.append([p.playing, round(p.source.duration, 3) == round(want[name], 3),
                abs(p.volume - (0.5 + 0.1 * i)) < 1e-9, side, same])
v.stop(0)
out.append([v.players[0].playing])
v.close()
print(out)
"""
    env = dict(os.environ, PYGLET_HEADLESS="1")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = res.stdout.strip().splitlines()
    assert lines[-3] == "formats [(2, 16, 44100)]", lines
    assert lines[-2] == "counts True True", lines
    assert lines[-1] == str([[True, True, True, "L", True], [True, True, True, "C", True],
                             [True, True, True, "R", True], [True, True, True, "C", True],
                             [True, True, True, "L", True], [False]])
