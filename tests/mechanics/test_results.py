"""Results: force and torque written by the kernel, inertia derived on first read, reuse as a workspace (compute(..., out=))."""

import dataclasses

import numpy as np
import pytest
from _huston_reference import reference_kinematics
from _motion import random_model, sinusoid_motion, split_coords

import humanbody as hb

KINEMATIC = ("R", "omega_rel", "omega", "alpha", "joint", "com", "com_vel", "com_acc",
             "force", "torque", "body_com", "body_com_vel", "body_com_acc")
DERIVED = ("inertia",)


@pytest.fixture
def rng():
    return np.random.default_rng(77)


def test_force_torque_and_inertia_equal_their_definitions(rng):
    model = random_model(rng)
    res = hb.compute(model, sinusoid_motion(model, np.linspace(0, 1, 120), rng, amplitude=2.0))
    # force and torque are plain arrays written by the kernel; inertia is not computed until read
    assert isinstance(vars(res)["force"], np.ndarray) and isinstance(vars(res)["torque"], np.ndarray)
    assert vars(res).get("_inertia") is None
    # eq. 10.1 bit for bit, eq. 10.2 and R I R^T to rounding
    np.testing.assert_array_equal(res.force, -model.mass[None, :, None] * res.com_acc)
    inertia = np.einsum("fkij,kjl,fkml->fkim", res.R, model.inertia, res.R)
    np.testing.assert_allclose(res.inertia, inertia, rtol=1e-13, atol=1e-15)
    Iw = np.einsum("fkij,fkj->fki", inertia, res.omega)
    torque = -np.einsum("fkij,fkj->fki", inertia, res.alpha) - np.cross(res.omega, Iw)
    np.testing.assert_allclose(res.torque, torque, rtol=1e-12, atol=1e-12 * np.abs(torque).max())
    assert res.inertia is res.inertia  # computed once, then the same object
    for name in ("force", "torque", "inertia"):
        assert getattr(res, name).flags.c_contiguous and getattr(res, name).dtype == np.float64


def test_missing_frame_gives_nan_force_and_torque_only_where_it_enters(rng):
    """NaN propagates through the fused force/torque like through the kinematics (no fastmath nnan)."""
    model = random_model(rng)
    df = sinusoid_motion(model, np.linspace(0, 1, 40), rng)
    df.loc[17, f"{model.names[-1]}_beta"] = np.nan
    res = hb.compute(model, df)
    k = model.n_bodies - 1
    children = [j for j in range(model.n_bodies) if model.parents[j] == k + 1]
    for arr in (res.force, res.torque):
        assert np.isnan(arr[17, k]).all()
        assert np.isfinite(arr[np.arange(40) != 17]).all()
        assert np.isfinite(np.delete(arr[17], [k, *children], axis=0)).all()


def test_reading_order_does_not_change_values(rng):
    model = random_model(rng)
    df = sinusoid_motion(model, np.linspace(0, 1, 64), rng)
    a = hb.compute(model, df).materialize()
    b = hb.compute(model, df)
    for name in reversed(DERIVED):
        np.testing.assert_array_equal(getattr(b, name), getattr(a, name), err_msg=name)
    np.testing.assert_array_equal(b.to_matrix(), a.to_matrix())


def test_given_arrays_are_used_as_given(rng):
    """dataclasses.replace (the viewer's results tables) overrides a derived array."""
    model = random_model(rng)
    res = hb.compute(model, sinusoid_motion(model, np.linspace(0, 1, 20), rng))
    force = np.full(res.com.shape, 3.0)
    other = dataclasses.replace(res, force=force)
    assert other.force is force
    np.testing.assert_array_equal(other.torque, res.torque)


def test_workspace_reuse_overwrites_in_place_and_matches_fresh(rng):
    model = random_model(rng)
    t = np.linspace(0, 1, 300)
    df1 = sinusoid_motion(model, t, rng, amplitude=2.0)
    df2 = sinusoid_motion(model, t + 5.0, rng, amplitude=1.0)
    ws = hb.compute(model, df1)
    before = {name: getattr(ws, name) for name in KINEMATIC + DERIVED}  # materialises inertia
    out = hb.compute(model, df2, out=ws)
    assert out is ws
    fresh = hb.compute(model, df2)
    for name in KINEMATIC + DERIVED:
        arr = getattr(out, name)
        np.testing.assert_array_equal(arr, getattr(fresh, name), err_msg=name)
        assert arr is before[name], name  # same memory, no new allocation
    np.testing.assert_array_equal(out.time, df2["time"].to_numpy())
    ref = reference_kinematics(model, *split_coords(model, df2))
    np.testing.assert_allclose(out.torque, ref["torque"], rtol=1e-12, atol=1e-11)


def test_chunked_evaluation_equals_one_call(rng):
    """A long trial computed in equal chunks through one workspace gives the same arrays."""
    model = random_model(rng)
    df = sinusoid_motion(model, np.linspace(0, 3, 600), rng)
    whole = hb.compute(model, df)
    ws = None
    for start in range(0, 600, 200):
        ws = hb.compute(model, df.iloc[start:start + 200], out=ws)
        for name in KINEMATIC + DERIVED:
            np.testing.assert_array_equal(getattr(ws, name), getattr(whole, name)[start:start + 200], err_msg=name)


def test_a_frame_does_not_depend_on_the_frames_computed_beside_it(rng):
    """The kernel computes runs of 32 frames side by side (vector lanes), padded at the end, and writes long
    results with non-temporal stores: any frame computed alone equals it in a long parallel call, bit for bit."""
    model = random_model(rng)
    F = 8200  # several blocks in parallel, non-temporal stores, a last run of 8 frames
    df = sinusoid_motion(model, np.linspace(0, 40, F), rng)
    whole = hb.compute(model, df)
    for f in (0, 1, 31, 32, 33, 255, 256, 4100, 8191, 8192, 8199):
        one = hb.compute(model, df.iloc[f:f + 1])
        for name in KINEMATIC:
            np.testing.assert_array_equal(getattr(one, name)[0], getattr(whole, name)[f], err_msg=f"{name} {f}")


def test_workspace_of_the_wrong_size_is_refused(rng):
    model = random_model(rng)
    df = sinusoid_motion(model, np.linspace(0, 1, 50), rng)
    ws = hb.compute(model, df.iloc[:40])
    with pytest.raises(ValueError, match="40 frames"):
        hb.compute(model, df, out=ws)
    with pytest.raises(TypeError):
        hb.compute(model, df, out=np.empty((50, 17, 3)))
    other = random_model(rng, parents=[0, 1, 2], names=["a", "b", "c"])
    with pytest.raises(ValueError, match="segments"):
        hb.compute(other, sinusoid_motion(other, np.linspace(0, 1, 40), rng), out=ws)


def test_results_do_not_depend_on_the_column_layout_of_the_input(rng):
    """Columns viewed in place, shuffled, or selected by pandas (extra non-numeric column) agree bit for bit."""
    model = random_model(rng)
    df = sinusoid_motion(model, np.linspace(0, 1, 300), rng)
    plain = hb.compute(model, df)
    shuffled = df[list(rng.permutation(df.columns))]
    mixed = df.assign(note="walk")
    for other in (shuffled, mixed):
        res = hb.compute(model, other)
        for name in KINEMATIC + DERIVED:
            np.testing.assert_array_equal(getattr(res, name), getattr(plain, name), err_msg=name)
        np.testing.assert_array_equal(res.coordinates, plain.coordinates)


def test_packed_rows_equal_the_arrays_bit_for_bit():
    """to_matrix writes every column from the result arrays; inertia columns equal the derived dyadics exactly."""
    from _motion import random_model, sinusoid_motion

    from humanbody.model.segments import INERTIA_COMPONENTS, VECTOR_QUANTITIES

    rng = np.random.default_rng(12)
    model = random_model(rng)
    res = hb.compute(model, sinusoid_motion(model, np.linspace(0, 1, 3000), rng))
    M = res.to_matrix()
    F, n = res.n_frames, len(res.names)
    assert M.shape == (F, len(res.to_dataframe().columns))
    np.testing.assert_array_equal(M[:, 0], res.time)
    np.testing.assert_array_equal(M[:, 1:1 + res.coordinates.shape[1]], res.coordinates)
    c = 1 + res.coordinates.shape[1]
    block = M[:, c:c + n * 33].reshape(F, n, 33)
    for q, name in enumerate(VECTOR_QUANTITIES):
        np.testing.assert_array_equal(block[:, :, 3 * q:3 * q + 3], getattr(res, name))
    for p, (_, i, j) in enumerate(INERTIA_COMPONENTS):
        np.testing.assert_array_equal(block[:, :, 27 + p], res.inertia[:, :, i, j])
    np.testing.assert_array_equal(M[:, -9:-6], res.body_com)
    np.testing.assert_array_equal(M[:, -3:], res.body_com_acc)
    assert res.to_matrix(out=M) is M
