"""The proximal frame of Plug-in Gait's ankle moment: the knee's shank, not the shank turned by the tibial torsion.

pyCGM2's InverseDynamicFilter with ``viconCGM1compatible`` (its Nexus-equal mode) projects the ankle
moment, for the "Proximal" projection and for the joint coordinate system's first axis, on the "Shank
Proximal" segment: the shank of the knee angles, without the tibial torsion turn that the ankle angles'
reference has.  Ours takes the parent segment's frame, which for the plug_in_gait set is that shank.  A
synthetic Plug-in Gait walk with 11.5 deg of tibial torsion (right) tells the two apart.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

import humanbody as hb
from humanbody.markers.calibration import calibrate
from humanbody.markers.tracking import track
from humanbody.mechanics.kinetics import kinetic_block, kinetic_columns
from humanbody.mechanics.moment_frames import with_moment_frame
from tests.markers.test_plug_in_gait import STATIC, SUBJECT, _motion, _table, place

WORDS = ("dorsiflexion", "inversion", "internal_rotation")
SIGNS = np.array([-1.0, 1.0, 1.0])  # the right ankle's columns: dorsiflexion about -y, inversion x, rotation z


def test_ankle_s_proximal_frame_is_the_knee_s_shank():
    F0 = 3
    static_m, _ = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    cal = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=SUBJECT.mass, height=1.78,
                    subject=SUBJECT)
    ang, origin, t = _motion(60)
    m, centres = place(ang, origin)
    tr = track(_table(m, t), cal)
    for frame in ("proximal", "jcs"):
        model = with_moment_frame(cal.model, frame)
        res = hb.compute(model, tr.coords, differentiation="gradient")
        k = model.names.index("right_foot")
        P = m["RTOE"] - np.array([0.05, 0.0, 0.0])
        E = np.broadcast_to([40.0, -20.0, 650.0], P.shape)
        loads = SimpleNamespace(force=np.ascontiguousarray(E[:, None]),
                                moment_o=np.ascontiguousarray(np.cross(P, E)[:, None]),
                                body=np.full((len(t), 1), k, dtype=np.int64))
        tab = pd.DataFrame(kinetic_block(model, res, loads), columns=kinetic_columns(model))
        M = tab[[f"right_foot_joint_moment_{a}" for a in "xyz"]].to_numpy()
        got = tab[[f"right_ankle_{w}_moment_Nm_per_kg" for w in WORDS]].to_numpy()
        Rs, Ra = centres["right_shank"], centres["right_shank_ankle"]  # knee's shank; turned by the torsion
        if frame == "proximal":
            want = SIGNS * np.einsum("fji,fj->fi", Rs, M)[:, [1, 0, 2]] / SUBJECT.mass
            torsioned = SIGNS * np.einsum("fji,fj->fi", Ra, M)[:, [1, 0, 2]] / SUBJECT.mass
            np.testing.assert_allclose(got, want, atol=1e-9)
            assert np.abs(got - torsioned).max() > 0.05  # the torsion-turned shank would read otherwise
        else:  # the joint coordinate system's flexion axis: the knee's shank's y
            np.testing.assert_allclose(got[:, 0], SIGNS[0] * np.einsum("fi,fi->f", M, Rs[:, :, 1]) / SUBJECT.mass,
                                       atol=1e-9)
