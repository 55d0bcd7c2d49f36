"""Procedural sound effects: pure numpy, no pyglet, no files, deterministic.

Every public sound function returns the whole effect as mono ``(n,) float32`` samples
in [-1, 1] at :data:`SAMPLE_RATE` Hz, ``n`` at most ``MAX_SECONDS * SAMPLE_RATE``.  Its
noise comes from a generator the function makes itself from a fixed seed
(``np.random.default_rng(seed)``), never from global random state, so the same call gives
the same array in any process.  Each one starts and ends on silence (a raised-cosine fade
of a few ms at both ends: no click when a voice starts or is cut at the end of the buffer)
and is normalised to its own peak, which sets how loud it is against the others before
the player's per-event volume.

Takes.  The frequent sounds (:data:`VARIED`: the hits, the block, the whiff, the crate's
knock) take a ``take`` argument, 0-2: the same recipe with its own seed and every
frequency 0.94 or 1.06 times the base's (:func:`_take`), so that a jab-jab-jab is not one
sample three times over.  :data:`NAMES` lists every sample (``"light_hit"``, take 0, then
``"light_hit#1"``, ``"light_hit#2"``), :func:`make` makes one by name (a take levelled on
take 0's loudness) and :func:`build_all` all of them.  Stereo: :func:`pan` places a copy
at a pan position (constant-power law, :func:`pan_gains`); :func:`to_wav` writes mono or
stereo 16-bit WAVs.

The recipes are the sound designer's usual layers:

* a **transient**: a burst of band-passed white noise a few ms long (the crack, the
  slap, the strike of a mallet), which carries the attack and the "where";
* a **pitched body**: a sine whose frequency glides down exponentially
  (:func:`_glide`) under an exponential decay: the thump of a fist in a body.
  Heavier is lower, longer and driven harder (``tanh`` saturation);
* **resonant modes** (:func:`_modes`): damped sines at the few frequencies of a wooden
  board (crates, the guard's clack) or at a bell's inharmonic partials (gong, bell);
* **swept noise** (:func:`_swept_noise`): white noise through a band-pass whose centre
  moves (a whoosh, a fireball's rising roar, an explosion's darkening tail), made by
  cross-fading a bank of fixed band-passes;
* **scattered events** (:func:`_scatter`): many tiny knocks at random times (crackle,
  splinters, debris bouncing on the floor).

Filtering is done in the frequency domain (``np.fft.rfft``, a zero-phase Butterworth
magnitude response, ``irfft``) on *stationary* noise of a power-of-two length, cut to the
sound's length before any envelope is applied: a circular FFT filter then never smears
an onset across the buffer's ends.  No Python
loop runs over samples; the player builds a whole set (:func:`build_all`, 24 samples) on
its start-up thread, where numpy releases the GIL for most of it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: samples per second of every sound (CD rate: crisp noise transients up to ~11 kHz+)
SAMPLE_RATE = 44100
#: no sound is longer than this (seconds)
MAX_SECONDS = 1.5
#: fade at the start and the end of every sound (seconds): no click
FADE_IN = 0.0015
FADE_OUT_MIN = 0.005


# ----------------------------------------------------------------------------- building blocks
def _times(seconds: float) -> np.ndarray:
    """``(n,) float64`` sample times in seconds, ``n = round(seconds * SAMPLE_RATE)``."""
    return np.arange(int(round(seconds * SAMPLE_RATE)), dtype=np.float64) / SAMPLE_RATE


def _fft_len(n: int) -> int:
    """The power of two at least ``n``: noise is made and filtered at this length (a fast
    FFT size), then cut to ``n`` samples."""
    return 1 << max(int(n - 1).bit_length(), 1)


def _response(m: int, lo: float | None, hi: float | None, order: int = 2) -> np.ndarray:
    """``(m // 2 + 1,) float64`` zero-phase Butterworth magnitude of a band-pass over an
    ``m``-sample real FFT: high-pass corner ``lo`` Hz and low-pass corner ``hi`` Hz (either
    None for none), ``order`` poles each."""
    f = np.fft.rfftfreq(m, 1.0 / SAMPLE_RATE)
    den = np.ones_like(f)
    for ratio in ((lo / np.maximum(f, 1e-3)) if lo is not None else None,
                  (f / hi) if hi is not None else None):
        if ratio is not None:
            ratio *= ratio                      # ratio ** (2 order), by multiplications
            den *= 1.0 + ratio ** order if order != 2 else 1.0 + ratio * ratio
    return 1.0 / np.sqrt(den)


def _band_noise(rng: np.random.Generator, n: int, lo: float | None, hi: float | None,
                order: int = 2) -> np.ndarray:
    """``(n,) float64`` white noise band-passed to ``lo``-``hi`` Hz (:func:`_response`, on
    stationary noise of :func:`_fft_len` samples, then cut), scaled to unit RMS."""
    m = _fft_len(n)
    x = np.fft.irfft(np.fft.rfft(rng.standard_normal(m)) * _response(m, lo, hi, order), m)[:n]
    return x / max(float(np.sqrt(np.mean(x * x))), 1e-12)


def _env(t: np.ndarray, attack: float, decay: float, start: float = 0.0) -> np.ndarray:
    """``(n,) float64`` envelope: 0 before ``start``, a raised-cosine rise over ``attack`` s,
    then ``exp(-(t - start - attack) / decay)``."""
    n = len(t)
    out = np.zeros(n)
    i0 = min(int(np.ceil(start * SAMPLE_RATE)), n)
    i1 = min(max(int(np.ceil((start + attack) * SAMPLE_RATE)), i0), n)
    i2 = min(max(int(np.ceil((start + attack + 16.0 * decay) * SAMPLE_RATE)), i1), n)   # below 1e-7 after
    out[i0:i1] = 0.5 - 0.5 * np.cos(np.pi * (t[i0:i1] - start) / max(attack, 1e-9))
    out[i1:i2] = np.exp((start + attack - t[i1:i2]) / decay)
    return out


def _glide(t: np.ndarray, f0: float, f1: float, tau: float, start: float = 0.0) -> np.ndarray:
    """``(n,) float64`` sine (phase 0 at ``start``, 0 before) whose frequency falls (or rises)
    from ``f0`` to ``f1`` Hz exponentially with time constant ``tau`` s."""
    u = np.maximum(t - start, 0.0)
    freq = f1 + (f0 - f1) * np.exp(-u / tau)
    phase = 2.0 * np.pi * np.cumsum(freq) / SAMPLE_RATE
    phase -= phase[np.searchsorted(t, start)] if start > 0 else 0.0
    return np.where(t < start, 0.0, np.sin(phase))


def _modes(t: np.ndarray, freqs, decays, amps, start: float = 0.0, attack: float = 0.0005) -> np.ndarray:
    """``(n,) float64`` sum of damped sines: ``amps[i] * sin(2 pi freqs[i] u) * env``,
    ``u = t - start``, each with its own exponential ``decays[i]`` (s)."""
    out = np.zeros_like(t)
    u = np.maximum(t - start, 0.0)
    for f, d, a in zip(freqs, decays, amps):
        out += a * np.sin(2.0 * np.pi * f * u) * _env(t, attack, d, start)
    return out


def _swept_noise(rng: np.random.Generator, t: np.ndarray, centre: np.ndarray, width: float = 0.7,
                 lo: float = 120.0, hi: float = 9000.0, bands: int = 11) -> np.ndarray:
    """``(n,) float64`` white noise through a band-pass whose centre follows ``centre``
    ``(n,)`` Hz: ``bands`` fixed band-passes log-spaced over ``lo``-``hi`` Hz, each weighted
    at every sample by a Gaussian in octaves (``width``) around the centre."""
    n = len(t)
    m = _fft_len(n)
    spectrum = np.fft.rfft(rng.standard_normal(m))
    f = np.fft.rfftfreq(m, 1.0 / SAMPLE_RATE)
    centres = np.geomspace(lo, hi, bands)
    step = np.log2(centres[1] / centres[0])
    octaves = np.log2(np.maximum(centre, 1.0))
    out = np.zeros(n)
    for c in centres:
        # one band: a Gaussian bump in log frequency, about one band step wide
        g = np.exp(-0.5 * (np.log2(np.maximum(f, 1.0) / c) / (0.6 * step)) ** 2)
        band = np.fft.irfft(spectrum * g, m)[:n]
        band /= max(float(np.sqrt(np.mean(band * band))), 1e-12)
        out += band * np.exp(-0.5 * ((octaves - np.log2(c)) / width) ** 2)
    return out


def _scatter(rng: np.random.Generator, t: np.ndarray, times, amps,
             freq_range: tuple[float, float] = (600.0, 2600.0), decay_range: tuple[float, float] = (0.006, 0.02),
             click: float = 0.5) -> np.ndarray:
    """``(n,) float64``: a small knock at each of ``times`` (s) with peak ``amps``: two damped
    modes at random frequencies in ``freq_range`` plus a 2 ms click of noise."""
    out = np.zeros_like(t)
    seg = int(0.06 * SAMPLE_RATE)
    u = np.arange(seg) / SAMPLE_RATE
    hiss = _band_noise(rng, len(t), 2000.0, 9000.0)
    for when, amp in zip(times, amps):
        i = int(when * SAMPLE_RATE)
        m = min(seg, len(t) - i)
        if m <= 0:
            continue
        f1, f2 = rng.uniform(*freq_range, size=2)
        d1, d2 = rng.uniform(*decay_range, size=2)
        rise = np.clip(u[:m] / 0.0004, 0.0, 1.0)
        knock = (np.sin(2 * np.pi * f1 * u[:m]) * np.exp(-u[:m] / d1)
                 + 0.6 * np.sin(2 * np.pi * f2 * u[:m] + 1.0) * np.exp(-u[:m] / d2)) * rise
        knock += click * hiss[i:i + m] * np.exp(-u[:m] / 0.002) * rise
        out[i:i + m] += amp * knock
    return out


def _drive(x: np.ndarray, amount: float) -> np.ndarray:
    """Soft saturation: ``x`` scaled to peak 1, then ``tanh(amount x) / tanh(amount)``
    (denser, punchier peaks; ``amount`` near 1 is almost clean)."""
    top = float(np.max(np.abs(x)))
    return np.tanh(amount * x / max(top, 1e-12)) / np.tanh(amount)


def _finish(x: np.ndarray, peak: float, fade_out: float) -> np.ndarray:
    """The delivered sound: DC removed, faded in over :data:`FADE_IN` and out over
    ``fade_out`` s (raised cosines: the first and last samples are 0), scaled so that
    ``max |x| == peak``; ``(n,) float32``."""
    x = x - float(np.mean(x))
    n = len(x)
    a = max(int(FADE_IN * SAMPLE_RATE), 2)
    b = max(int(max(fade_out, FADE_OUT_MIN) * SAMPLE_RATE), 2)
    x[:a] *= 0.5 - 0.5 * np.cos(np.pi * np.arange(a) / a)
    x[n - b:] *= 0.5 + 0.5 * np.cos(np.pi * (np.arange(b) + 1) / b)
    top = float(np.max(np.abs(x)))
    if top > 0.0:
        x *= peak / top
    return x.astype(np.float32)


#: the pitch factor of each take of a varied sound (take 0 is the base recipe)
PITCHES = (1.0, 0.94, 1.06)
#: the noise seed of take ``k`` is the base recipe's plus ``k`` times this
TAKE_SEED_STEP = 1000


def _take(seed: int, take: int) -> tuple[np.random.Generator, float]:
    """Take ``take`` (0 to ``len(PITCHES) - 1``) of a recipe whose base seed is ``seed``: its
    own generator (seed ``seed + TAKE_SEED_STEP * take``; take 0 is the base sound) and its
    pitch factor :data:`PITCHES` ``[take]``, which scales every frequency of the recipe
    (glides, modes, band corners: the same blow from a slightly smaller or bigger body)."""
    if not 0 <= take < len(PITCHES):
        raise ValueError(f"take {take} is not in 0..{len(PITCHES) - 1}")
    return np.random.default_rng(seed + TAKE_SEED_STEP * take), PITCHES[take]


# ----------------------------------------------------------------------------- the sounds
def light_hit(take: int = 0) -> np.ndarray:
    """A jab or front kick landing: a bright crack, a slap and a short mid thump (0.16 s).
    ``take`` 0-2: :func:`_take` (its own noise and a slightly higher or lower pitch)."""
    rng, k = _take(101, take)
    t = _times(0.16)
    n = len(t)
    crack = _band_noise(rng, n, 2200.0 * k, 9000.0 * k) * _env(t, 0.0004, 0.006)
    slap = _band_noise(rng, n, 500.0 * k, 3200.0 * k) * _env(t, 0.0008, 0.018)
    body = _glide(t, 560.0 * k, 170.0 * k, 0.025) * _env(t, 0.001, 0.035)
    return _finish(_drive(0.55 * crack + 0.45 * slap + 0.8 * body, 1.6), 0.85, 0.02)


def _blow(rng: np.random.Generator, t: np.ndarray, crack, punch, body, sub) -> tuple[np.ndarray, ...]:
    """The four layers of a landed heavy blow, each ``(n,) float64``: a band-noise ``crack``
    and ``punch`` (``(lo, hi, attack, decay)``: :func:`_band_noise` under :func:`_env`, drawn
    from ``rng`` in that order) and a falling ``body`` and ``sub`` tone (``(f0, f1, tau,
    attack, decay)``: :func:`_glide` under :func:`_env`)."""
    n = len(t)
    return (_band_noise(rng, n, crack[0], crack[1]) * _env(t, crack[2], crack[3]),
            _band_noise(rng, n, punch[0], punch[1]) * _env(t, punch[2], punch[3]),
            _glide(t, body[0], body[1], body[2]) * _env(t, body[3], body[4]),
            _glide(t, sub[0], sub[1], sub[2]) * _env(t, sub[3], sub[4]))


def heavy_hit(take: int = 0) -> np.ndarray:
    """A straight, roundhouse or sweep landing: a crack over a deep, long punch and a
    sub-bass thump, driven hard (0.42 s): lower and longer than :func:`light_hit`.
    ``take`` 0-2: :func:`_take`."""
    rng, k = _take(102, take)
    t = _times(0.42)
    crack, punch, body, sub = _blow(rng, t, (1500.0 * k, 7000.0 * k, 0.0005, 0.009),
                                    (120.0 * k, 1300.0 * k, 0.001, 0.045),
                                    (230.0 * k, 60.0 * k, 0.05, 0.0015, 0.11),
                                    (90.0 * k, 42.0 * k, 0.12, 0.004, 0.16))
    return _finish(_drive(0.35 * crack + 0.5 * punch + 1.0 * body + 0.6 * sub, 2.2), 0.95, 0.05)


def blocked_hit(take: int = 0) -> np.ndarray:
    """A guarded hit: a dull clack, a few damped wooden modes over a short low knock and a
    muffled (low-passed) tick, no bright crack (0.2 s).  ``take`` 0-2: :func:`_take`."""
    rng, k = _take(103, take)
    t = _times(0.2)
    n = len(t)
    clack = _modes(t, (760.0 * k, 1180.0 * k, 1730.0 * k), (0.022, 0.016, 0.01), (0.6, 0.4, 0.25))
    knock = _glide(t, 300.0 * k, 180.0 * k, 0.02) * _env(t, 0.001, 0.03)
    tick = _band_noise(rng, n, 300.0 * k, 2500.0 * k) * _env(t, 0.0005, 0.008)
    return _finish(_drive(clack + 0.7 * knock + 0.5 * tick, 1.3), 0.75, 0.03)


def whiff(take: int = 0) -> np.ndarray:
    """A move cutting only air: a short whoosh, noise through a band-pass that sweeps up
    and back down under a swelling envelope (0.26 s).  ``take`` 0-2: :func:`_take`."""
    rng, k = _take(104, take)
    t = _times(0.26)
    u = t / t[-1]
    centre = 600.0 * k * (2400.0 / 600.0) ** np.sin(np.pi * np.minimum(u / 0.9, 1.0)) * (1.0 - 0.3 * u)
    swell = u ** 1.4 * (1.0 - u) ** 2.2
    air = _swept_noise(rng, t, centre, width=0.6) * swell
    low = _band_noise(rng, len(t), 180.0 * k, 600.0 * k) * swell
    return _finish(air + 0.25 * low, 0.5, 0.02)


def fireball_launch() -> np.ndarray:
    """A fireball thrown: a low ignition whoomph, a roar whose band rises from 400 Hz to
    3 kHz, and a rising, wavering energy tone (0.65 s)."""
    rng = np.random.default_rng(105)
    t = _times(0.65)
    n = len(t)
    whoomph = _band_noise(rng, n, 90.0, 900.0) * _env(t, 0.015, 0.09)
    rise = np.minimum(t / 0.5, 1.0)
    roar = _swept_noise(rng, t, 400.0 * (3000.0 / 400.0) ** rise, width=0.8) * _env(t, 0.04, 0.22)
    freq = 160.0 * (480.0 / 160.0) ** np.minimum(t / 0.35, 1.0) * (1.0 + 0.03 * np.sin(2 * np.pi * 9.0 * t))
    phase = 2.0 * np.pi * np.cumsum(freq) / SAMPLE_RATE
    tone = (np.sin(phase) + 0.35 * np.sin(2.0 * phase) + 0.15 * np.sin(3.0 * phase)) * _env(t, 0.03, 0.2)
    return _finish(_drive(0.8 * whoomph + 0.6 * roar + 0.45 * tone, 1.5), 0.8, 0.06)


def fireball_impact() -> np.ndarray:
    """A fireball bursting on a wall or a fighter: a dark blast, a low boom, a rumble and a
    decaying crackle of sparks (0.6 s)."""
    rng = np.random.default_rng(106)
    t = _times(0.6)
    n = len(t)
    blast = _band_noise(rng, n, 60.0, 3000.0) * _env(t, 0.002, 0.07)
    rumble = _band_noise(rng, n, 30.0, 350.0) * _env(t, 0.006, 0.2)
    boom = _glide(t, 130.0, 38.0, 0.08) * _env(t, 0.002, 0.17)
    when = np.sort(0.01 + 0.45 * rng.random(28) ** 1.8)
    crackle = _scatter(rng, t, when, 0.5 * np.exp(-when / 0.15) * rng.uniform(0.4, 1.0, 28),
                       freq_range=(2000.0, 6000.0), decay_range=(0.002, 0.006), click=1.0)
    return _finish(_drive(1.0 * blast + 0.8 * rumble + 0.9 * boom + 0.5 * crackle, 1.8), 0.9, 0.06)


def fireball_clash() -> np.ndarray:
    """Two fireballs cancelling: two blasts 18 ms apart, a metallic ring of beating
    inharmonic partials and a falling zap (0.8 s)."""
    rng = np.random.default_rng(107)
    t = _times(0.8)
    n = len(t)
    blasts = _band_noise(rng, n, 80.0, 4000.0) * (_env(t, 0.002, 0.05) + 0.8 * _env(t, 0.002, 0.06, 0.018))
    partials = np.array([523.0, 811.0, 1247.0, 1693.0, 2342.0])
    decays = (0.35, 0.28, 0.2, 0.15, 0.1)
    amps = (1.0, 0.8, 0.6, 0.45, 0.3)
    ring = _modes(t, partials, decays, amps) + 0.6 * _modes(t, partials + 3.0, decays, amps)   # beating pairs
    zap = _glide(t, 1800.0, 300.0, 0.12) * _env(t, 0.001, 0.12)
    boom = _glide(t, 110.0, 45.0, 0.08) * _env(t, 0.002, 0.15)
    return _finish(_drive(0.9 * blasts + 0.3 * ring + 0.3 * zap + 0.7 * boom, 1.6), 0.9, 0.08)


def crate_hit(take: int = 0) -> np.ndarray:
    """A fist in a crate: a hollow wooden knock (a board's damped modes) and a few
    splinter ticks (0.32 s).  ``take`` 0-2: :func:`_take`."""
    rng, k = _take(108, take)
    t = _times(0.32)
    n = len(t)
    board = _modes(t, (196.0 * k, 412.0 * k, 687.0 * k, 1043.0 * k), (0.07, 0.05, 0.035, 0.02),
                   (1.0, 0.7, 0.45, 0.3))
    knock = _band_noise(rng, n, 800.0 * k, 5000.0 * k) * _env(t, 0.0004, 0.005)
    when = np.sort(0.004 + 0.07 * rng.random(8))
    splinters = _scatter(rng, t, when, rng.uniform(0.15, 0.4, 8), freq_range=(1800.0 * k, 5000.0 * k),
                         decay_range=(0.002, 0.005), click=1.2)
    return _finish(_drive(board + 0.8 * knock + splinters, 1.4), 0.8, 0.04)


def crate_break() -> np.ndarray:
    """A crate falling apart: a broadband crack, the low boom of the opened box and a
    rattle of debris bouncing on the floor, denser at first and dying out (1.0 s)."""
    rng = np.random.default_rng(109)
    t = _times(1.0)
    n = len(t)
    crack = _band_noise(rng, n, 300.0, 9000.0) * _env(t, 0.0005, 0.025)
    split = _band_noise(rng, n, 80.0, 800.0) * _env(t, 0.002, 0.08)
    wood = _modes(t, (120.0, 263.0, 455.0, 702.0), (0.14, 0.1, 0.07, 0.05), (1.0, 0.8, 0.55, 0.35))
    k = 22
    when = np.sort(0.06 + 0.78 * rng.random(k) ** 1.7)
    debris = _scatter(rng, t, when, 0.55 * np.exp(-when / 0.35) * rng.uniform(0.5, 1.0, k),
                      freq_range=(500.0, 2600.0), decay_range=(0.008, 0.025))
    return _finish(_drive(1.0 * crack + 0.8 * split + 0.9 * wood + debris, 1.7), 0.95, 0.08)


def body_fall() -> np.ndarray:
    """A fighter hitting the floor (knockdown, K.O.): a low thud, a smaller bounce 0.12 s
    later and a little cloth and dust (0.55 s)."""
    rng = np.random.default_rng(110)
    t = _times(0.55)
    n = len(t)
    thud = _glide(t, 110.0, 48.0, 0.05) * _env(t, 0.003, 0.09)
    mass = _band_noise(rng, n, 40.0, 500.0) * _env(t, 0.003, 0.06)
    bounce = _glide(t, 95.0, 50.0, 0.04, start=0.12) * _env(t, 0.002, 0.05, start=0.12) \
        + 0.8 * _band_noise(rng, n, 40.0, 400.0) * _env(t, 0.002, 0.03, start=0.12)
    dust = _band_noise(rng, n, 1500.0, 5000.0) * _env(t, 0.01, 0.12)
    return _finish(_drive(1.0 * thud + 0.8 * mass + 0.38 * bounce + 0.12 * dust, 1.8), 0.85, 0.06)


def knockout() -> np.ndarray:
    """The K.O. blow: a heavy hit, bigger (deeper body, a long sub boom), with a long tail:
    a rumble whose band darkens from 1.8 kHz to 250 Hz and a low ringing fifth (1.45 s)."""
    rng = np.random.default_rng(111)
    t = _times(1.45)
    crack, punch, body, sub = _blow(rng, t, (1000.0, 8000.0, 0.0005, 0.012), (150.0, 2000.0, 0.001, 0.06),
                                    (260.0, 55.0, 0.06, 0.0015, 0.15), (80.0, 32.0, 0.2, 0.005, 0.4))
    tail = _swept_noise(rng, t, 1800.0 * (250.0 / 1800.0) ** np.minimum(t / 1.2, 1.0), width=0.9) \
        * _env(t, 0.01, 0.45)
    ring = _modes(t, (98.0, 147.0, 196.5), (0.6, 0.5, 0.4), (1.0, 0.7, 0.4), attack=0.02)
    return _finish(_drive(0.6 * crack + 0.7 * punch + 1.0 * body + 0.8 * sub + 0.35 * tail + 0.25 * ring, 2.0),
                   0.98, 0.25)


#: a bell's partials relative to its "prime" (hum, prime, minor third, fifth, nominal, ...)
_BELL = (0.5, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0)


def round_start() -> np.ndarray:
    """"Round N": a small bell struck once, its inharmonic partials decaying the higher
    the faster, over a short mallet tick (0.9 s)."""
    rng = np.random.default_rng(112)
    t = _times(0.9)
    f0 = 660.0
    bell = _modes(t, [f0 * r for r in _BELL], (0.6, 0.5, 0.35, 0.3, 0.2, 0.15, 0.1),
                  (0.35, 1.0, 0.5, 0.35, 0.4, 0.2, 0.15), attack=0.001)
    tick = _band_noise(rng, len(t), 2000.0, 8000.0) * _env(t, 0.0004, 0.003)
    return _finish(bell + 0.3 * tick, 0.7, 0.15)


def fight() -> np.ndarray:
    """"Fight!": a gong, low inharmonic partials in slightly detuned pairs (a slow
    shimmer), over a soft mallet thump (1.45 s)."""
    rng = np.random.default_rng(113)
    t = _times(1.45)
    f0 = 196.0
    ratios = np.array([1.0, 1.52, 2.07, 2.47, 2.94, 3.46, 4.17, 5.2])
    decays = (0.9, 0.7, 0.55, 0.45, 0.35, 0.3, 0.22, 0.15)
    amps = (1.0, 0.8, 0.7, 0.55, 0.45, 0.35, 0.25, 0.15)
    gong = _modes(t, f0 * ratios, decays, amps, attack=0.004) \
        + 0.5 * _modes(t, f0 * ratios + 0.8, decays, amps, attack=0.004)
    thump = _glide(t, 160.0, 90.0, 0.03) * _env(t, 0.002, 0.06)
    strike = _band_noise(rng, len(t), 100.0, 3000.0) * _env(t, 0.0005, 0.01)
    return _finish(_drive(0.5 * gong + 0.6 * thump + 0.3 * strike, 1.2), 0.9, 0.25)


def time_over() -> np.ndarray:
    """Time up: a two-note falling horn (a band-limited square of odd harmonics, two
    oscillators detuned for a chorus), 523 Hz then 392 Hz (1.2 s)."""
    t = _times(1.2)
    out = np.zeros_like(t)
    for f, start, length in ((523.25, 0.0, 0.42), (392.0, 0.5, 0.65)):
        u = t - start
        gate = np.clip(u / 0.012, 0.0, 1.0) * np.clip((length - u) / 0.06, 0.0, 1.0)
        note = np.zeros_like(t)
        for detune, level in ((1.0, 1.0), (1.002, 0.45)):
            k = 1
            while k * f * detune < 4500.0:
                note += level * np.sin(2.0 * np.pi * k * f * detune * np.maximum(u, 0.0)) / k ** 1.3
                k += 2
        out += note * gate
    return _finish(_drive(0.5 * out, 1.3), 0.45, 0.03)       # sustained: a low peak is loud enough


#: every sound by name, in the order the player builds them: ``() -> (n,) float``, and those with
#: takes ``(take: int = 0) -> (n,) float``
SOUNDS: dict[str, Callable[..., np.ndarray]] = {
    "light_hit": light_hit,
    "heavy_hit": heavy_hit,
    "blocked_hit": blocked_hit,
    "whiff": whiff,
    "fireball_launch": fireball_launch,
    "fireball_impact": fireball_impact,
    "fireball_clash": fireball_clash,
    "crate_hit": crate_hit,
    "crate_break": crate_break,
    "body_fall": body_fall,
    "knockout": knockout,
    "round_start": round_start,
    "fight": fight,
    "time_over": time_over,
}


#: the frequent sounds, made in :data:`PITCHES` takes each (a jab-jab-jab is not one sample
#: three times over); their recipes take a ``take`` argument
VARIED = ("light_hit", "heavy_hit", "blocked_hit", "whiff", "crate_hit")


def take_names(name: str) -> tuple[str, ...]:
    """The sample names of sound ``name``: ``(name,)``, or for a :data:`VARIED` one
    ``(name, name#1, name#2)`` (take 0 keeps the plain name)."""
    if name in VARIED:
        return (name,) + tuple(f"{name}#{k}" for k in range(1, len(PITCHES)))
    return (name,)


def base_name(sample: str) -> str:
    """The sound a sample name is a take of: ``"light_hit#2"`` -> ``"light_hit"``."""
    return sample.partition("#")[0]


#: every sample name, in build order: each sound of :data:`SOUNDS` and its takes
NAMES = tuple(n for name in SOUNDS for n in take_names(name))


def make(sample: str, base: np.ndarray | None = None) -> np.ndarray:
    """One sample by name (``"fight"``, ``"light_hit"``, ``"light_hit#1"``): mono ``(n,)
    float32``.  A take other than 0 is levelled on take 0 (``base``, made here if None):
    scaled to its :func:`loudness`, but never to a higher peak.  (Its noise alone moves a
    take's peak-normalised level by up to ~3 dB; levelled, a jab is as loud on every take
    and the mix set on take 0 holds.)"""
    name, _sep, take = sample.partition("#")
    if not take:
        return SOUNDS[name]()
    x = SOUNDS[name](int(take))
    ref = make(name) if base is None else base
    gain = min(10.0 ** ((loudness(ref) - loudness(x)) / 20.0),
               float(np.max(np.abs(ref))) / max(float(np.max(np.abs(x))), 1e-12))
    return (x * np.float32(gain)).astype(np.float32)


def build_all() -> dict[str, np.ndarray]:
    """Every sample of :data:`NAMES`: name -> mono ``(n,) float32`` at :data:`SAMPLE_RATE`."""
    out: dict[str, np.ndarray] = {}
    for name in NAMES:
        out[name] = make(name, out.get(base_name(name)))
    return out


# ----------------------------------------------------------------------------- stereo and WAV
#: the fixed pan positions a positioned sound is built at (-1 left, 1 right; none is hard-panned)
PANS = (-0.8, -0.4, 0.0, 0.4, 0.8)


def pan_gains(pan: float) -> tuple[float, float]:
    """Constant-power pan law: ``(left, right) = (cos a, sin a)``, ``a = (pan + 1) pi / 4``
    for ``pan`` in [-1, 1] (clamped): ``left**2 + right**2 == 1`` everywhere (the same
    power wherever the sound is), each side ``1 / sqrt 2`` (-3 dB) at the centre."""
    a = (min(max(float(pan), -1.0), 1.0) + 1.0) * np.pi / 4.0
    return float(np.cos(a)), float(np.sin(a))


def pan(samples: np.ndarray, position: float) -> np.ndarray:
    """Mono ``(n,) float`` -> stereo ``(n, 2) float32`` (left, right) panned to ``position``
    (:func:`pan_gains`)."""
    left, right = pan_gains(position)
    x = np.asarray(samples, dtype=np.float32)
    return np.stack([x * np.float32(left), x * np.float32(right)], axis=1)


def nearest_pan(position: float, pans=PANS) -> int:
    """The index in ``pans`` of the position nearest ``position`` (the first of a tie)."""
    return min(range(len(pans)), key=lambda i: abs(pans[i] - position))


def to_pcm16(samples: np.ndarray) -> bytes:
    """``(n,)`` or ``(n, channels) float`` in [-1, 1] -> little-endian signed 16-bit PCM bytes,
    frames interleaved (``2 n channels`` bytes)."""
    return (np.clip(samples, -1.0, 1.0) * 32767.0).round().astype("<i2").tobytes()


def to_wav(samples: np.ndarray) -> bytes:
    """Mono ``(n,)`` or stereo ``(n, 2) float`` in [-1, 1] -> a 16-bit WAV file at
    :data:`SAMPLE_RATE` (1 or 2 channels, interleaved), in memory."""
    import io
    import wave

    x = np.asarray(samples)
    if x.ndim not in (1, 2) or (x.ndim == 2 and x.shape[1] not in (1, 2)):
        raise ValueError(f"samples of shape {x.shape}: want (n,) or (n, 2)")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1 if x.ndim == 1 else x.shape[1])
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(to_pcm16(x))
    return buf.getvalue()


def _a_weight(f: np.ndarray) -> np.ndarray:
    """IEC 61672 A-weighting as an amplitude factor (1 at 1 kHz) for frequencies ``f`` (Hz)."""
    f2 = np.asarray(f, dtype=float) ** 2
    ra = 12194.0 ** 2 * f2 ** 2 / ((f2 + 20.6 ** 2) * np.sqrt((f2 + 107.7 ** 2) * (f2 + 737.9 ** 2))
                                   * (f2 + 12194.0 ** 2))
    return ra * 10.0 ** (2.0 / 20.0)


def loudness(samples: np.ndarray, window: float = 0.1) -> float:
    """How loud a sound is heard, in dB (full scale): the RMS of its loudest ``window``
    seconds after A-weighting (the ear's weak bass and strong 2-4 kHz).  The mix is balanced
    on it (``player.sounds_for``'s volumes add ``20 log10(volume)``): a heavy hit's sub-bass
    peaks high in plain RMS but is heard about as loud as a crate's knock."""
    x = np.asarray(samples, dtype=float)
    spec = np.fft.rfft(x) * _a_weight(np.fft.rfftfreq(len(x), 1.0 / SAMPLE_RATE))
    y = np.fft.irfft(spec, len(x))
    w = max(1, min(int(window * SAMPLE_RATE), len(y)))
    energy = np.concatenate(([0.0], np.cumsum(y * y)))
    power = (energy[w:] - energy[:-w]) / w                  # the mean power of every w-sample window
    return float(10.0 * np.log10(max(power.max(), 1e-20)))
