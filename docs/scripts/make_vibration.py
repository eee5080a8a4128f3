"""Figures of docs/vibration.md: the seated and standing responses of the default 75 kg, 1.75 m body, and a
simulated seated body on a 5 Hz seat beside its linear prediction.

Writes docs/img/vibration_seated.png, docs/img/vibration_standing.png and docs/img/vibration_time.png.
Run: ``.venv/bin/python docs/scripts/make_vibration.py`` (about half a minute).
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402

import humanbody as hb  # noqa: E402
from humanbody.commands.vibration import plot_response  # noqa: E402
from humanbody.simulation.linearize import linearize  # noqa: E402
from humanbody.simulation.vibration import body_on_base, equilibrium, seat_force_and_head, whole_body_vibration  # noqa: E402

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def time_domain(model, f=5.0, A=1e-3):
    """The nonlinear equations on a seat vibrating at f Hz, amplitude A m, started at rest on the equilibrium."""
    system, y0, seat = body_on_base(model, "seated")
    y = equilibrium(system, y0)
    lin = linearize(system, y)
    force, head = seat_force_and_head(lin, seat, [f])
    w = 2 * np.pi * f
    system.base = lambda t: (A * np.sin(w * t), A * w * np.cos(w * t))
    t = np.linspace(0, 1.5, 301)
    sol = solve_ivp(system.rhs, (0, t[-1]), y, method="DOP853", t_eval=t, rtol=1e-8, atol=1e-10)
    k = model.names.index("head")
    ev = [system.evaluate(ti, yi) for ti, yi in zip(sol.t, sol.y.T, strict=True)]
    hz = np.array([e["com"][k, 2] for e in ev])
    hz -= hz[0]
    steady = A * np.abs(head[0]) * np.sin(w * t + np.angle(head[0]))
    fig, ax = plt.subplots(figsize=(10, 3.4))
    ax.plot(t, 1e3 * A * np.sin(w * t), color="0.6", lw=1, label="seat (1 mm at 5 Hz)")
    ax.plot(t, 1e3 * hz, color="C1", lw=1.5, label="head mass centre, nonlinear simulation from rest")
    ax.plot(t, 1e3 * steady, "k--", lw=1, label="linear steady state")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("vertical displacement (mm)")
    ax.set_ylim(-2.2, 2.6)
    ax.legend(loc="upper center", ncol=3, fontsize=8, frameon=False)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(IMG / "vibration_time.png", dpi=110)
    plt.close(fig)


def main():
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    for posture in ("seated", "standing"):
        res = whole_body_vibration(model, posture)
        plot_response(res, IMG / f"vibration_{posture}.png",
                      f"{posture}, 75 kg, 1.75 m: static apparent mass {res.static_mass_kg:.1f} kg")
    time_domain(model)


if __name__ == "__main__":
    main()
