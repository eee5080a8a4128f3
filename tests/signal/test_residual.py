"""Winter's residual analysis: the cut-off chosen from the data (``--cutoff auto``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humanbody.errors import InputError
from humanbody.markers.conditioning import condition
from humanbody.signal.residual import MIN_FRAMES, residual_cutoff


def _signals(rate, top_hz, noise, seconds=10.0, columns=12, seed=0):
    """Sums of sines from 0.5 Hz to ``top_hz`` (amplitude falling as 1/f, as in movement) plus white noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    freqs = np.arange(0.5, top_hz + 1e-9, 0.5)
    x = np.stack([sum(0.05 / f * np.sin(2 * np.pi * f * t + k * f) for f in freqs) for k in range(columns)], axis=1)
    return t, x, x + rng.normal(0.0, noise, x.shape)


@pytest.mark.parametrize("rate,top", [(60.0, 3.0), (100.0, 3.0), (100.0, 6.0), (100.0, 10.0), (200.0, 10.0)])
def test_cutoff_sits_above_the_movement_and_the_noise_is_measured(rate, top):
    """The chosen cut-off keeps every frequency of the movement (above its highest) without letting all the
    noise through (below twice it), and the noise line's intercept is the noise's RMS amplitude."""
    _, _, x = _signals(rate, top, 0.002)
    found = residual_cutoff(x, rate)
    assert top < found.cutoff_hz < 2.0 * top + 1.0, found.cutoff_hz
    assert found.noise == pytest.approx(0.002, rel=0.15)
    assert found.slope < 0
    # the residual at the chosen cut-off is at or below the noise line's intercept, the one before it above
    i = int(np.nonzero(found.candidates_hz == found.cutoff_hz)[0][0])
    assert found.residual[i] <= found.noise < found.residual[i - 1]


def test_faster_movement_gets_a_higher_cutoff():
    slow = residual_cutoff(_signals(100.0, 3.0, 0.002)[2], 100.0).cutoff_hz
    fast = residual_cutoff(_signals(100.0, 9.0, 0.002)[2], 100.0).cutoff_hz
    assert fast > slow + 2.0


def test_filtering_at_the_chosen_cutoff_beats_the_walking_default_on_a_fast_movement():
    """A 10 Hz movement filtered at the chosen cut-off is closer to the truth than at a fixed 6 Hz."""
    from scipy.signal import sosfiltfilt

    from humanbody.signal.filters import butterworth_sos

    rate = 100.0
    _, truth, x = _signals(rate, 10.0, 0.002)
    found = residual_cutoff(x, rate)

    def error(fc):
        y = sosfiltfilt(butterworth_sos(fc, rate, 4), x, axis=0)
        return np.sqrt(np.mean((y - truth) ** 2))

    assert error(found.cutoff_hz) < 0.5 * error(6.0)
    assert error(found.cutoff_hz) < np.sqrt(np.mean((x - truth) ** 2))  # and than no filter at all


def test_columns_with_gaps_are_left_out_and_long_trials_use_their_middle():
    _, _, x = _signals(100.0, 4.0, 0.002, seconds=20.0)
    whole = residual_cutoff(x, 100.0)
    holed = x.copy()
    holed[5:9, 3] = np.nan
    assert residual_cutoff(holed, 100.0).cutoff_hz == pytest.approx(whole.cutoff_hz, abs=1.0)
    _, _, long = _signals(100.0, 4.0, 0.002, seconds=200.0, columns=3)
    assert residual_cutoff(long, 100.0).cutoff_hz == pytest.approx(whole.cutoff_hz, abs=1.0)


def test_bad_input_is_one_clear_error():
    _, _, x = _signals(100.0, 4.0, 0.002)
    with pytest.raises(InputError, match=f"at least {MIN_FRAMES} frames"):
        residual_cutoff(x[: MIN_FRAMES - 1], 100.0, source="short.trc")
    with pytest.raises(InputError, match="no marker coordinate is finite"):
        residual_cutoff(np.full((200, 3), np.nan), 100.0)
    with pytest.raises(InputError, match="too few"):
        residual_cutoff(x, 8.0)


def _marker_table(rate, top, noise):
    t, _, x = _signals(rate, top, noise, columns=9)
    cols = {"time": t}
    for j in range(3):
        for a, c in zip("xyz", range(3), strict=True):
            cols[f"M{j}_{a}"] = x[:, 3 * j + c]
    df = pd.DataFrame(cols)
    df.attrs.update(markers=[f"M{j}" for j in range(3)], rate=rate, units="m", source="trial.trc")
    return df


def test_conditioning_chooses_and_reports_the_cutoff():
    df = _marker_table(100.0, 8.0, 0.002)
    out, report = condition(df, cutoff_hz="auto")
    assert report.filter is not None and 8.0 < report.filter.cutoff_hz < 17.0
    assert "residual analysis" in report.filter.chosen_by
    assert "residual analysis" in " ".join(report.summary_lines())
    assert report.to_dict()["filter"]["chosen_by"] == report.filter.chosen_by
    same, _ = condition(df, cutoff_hz=report.filter.cutoff_hz)
    np.testing.assert_array_equal(out.to_numpy(), same.to_numpy())  # "auto" is that fixed cut-off
    with pytest.raises(InputError, match="'auto'"):
        condition(df, cutoff_hz="fast")


def test_command_line_takes_auto_and_rejects_nonsense(tmp_path, capsys):
    from humanbody.cli import main

    for bad in ("fast", "-3"):
        with pytest.raises(SystemExit) as e:
            main(["analyze", "x.trc", "--cutoff", bad])
        assert e.value.code == 2
        assert "--cutoff" in capsys.readouterr().err
    from humanbody.commands.analyze import cutoff_value

    assert cutoff_value("AUTO") == "auto" and cutoff_value("8") == 8.0 and cutoff_value("0") == 0.0


def test_the_loads_follow_the_chosen_cutoff(shared_data):
    """Under ``--cutoff auto`` the force plates are low-passed at the markers' chosen cut-off (matched cut-offs)."""
    from humanbody.analysis import analyze_trial

    walk = shared_data / "gait2392_walk"
    an = analyze_trial(walk / "subject01_walk1.trc", static=walk / "subject01_static.trc", mass=72.6,
                       forces=walk / "subject01_walk1_grf.mot", cutoff_hz="auto")
    text = "\n".join(an.messages + an.details)
    chosen = [line for line in an.details if "residual analysis" in line]
    assert chosen, text
    fc = float(chosen[0].split("-3 dB at ")[1].split(" Hz")[0])
    assert 5.0 <= fc <= 12.0  # a walk sampled at 60 Hz
    assert f"loads: low-passed at {fc:g} Hz" in text, text
