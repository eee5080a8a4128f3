"""The batch on a real Dask cluster (scheduler + 2 worker processes on 127.0.0.1) equals the local run."""

import shutil
from pathlib import Path

import pytest
from _shared import WALK, needs_shared

from humanbody.report import ReportOptions, discover, run_batch

DATA = WALK

pytestmark = [
    pytest.mark.cluster,
    needs_shared,
]


def _files(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.csv"))}


@pytest.mark.slow
def test_dask_cluster_matches_local(tmp_path):
    distributed = pytest.importorskip("distributed")
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "subject01_static.trc", src / "subject01_static.trc")
    shutil.copy(DATA / "subject01_walk1.trc", src / "walk_a.trc")
    shutil.copy(DATA / "subject01_walk1.trc", src / "walk_b.trc")
    (src / "garbage.trc").write_text("not a trial\n")
    tasks = discover([src])
    opts = ReportOptions(mass=72.6, height=1.8)

    local = run_batch(tasks, tmp_path / "local", opts, jobs=1, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        remote = run_batch(tasks, tmp_path / "cluster", opts, scheduler=cluster.scheduler_address,
                           progress=False)
    assert [r["status"] for r in remote.rows] == ["failed", "ok", "ok"]
    assert local.exit_status == remote.exit_status == 1
    a, b = _files(tmp_path / "local"), _files(tmp_path / "cluster")
    assert set(a) == set(b) and "summary.csv" in a and "walk_b/walk_b_cycles.csv" in a
    for name in a:
        assert a[name] == b[name], name


@pytest.mark.slow
def test_unreachable_scheduler_is_input_error(tmp_path):
    from humanbody.errors import InputError

    tasks = discover([DATA / "subject01_walk1.trc"])
    with pytest.raises(InputError, match="cannot connect"):
        run_batch(tasks, tmp_path, ReportOptions(), scheduler="tcp://127.0.0.1:1", progress=False)


def _executing(dask_worker) -> list:
    """Keys of the tasks a worker is running now (runs on the worker through ``client.run``)."""
    return [str(ts.key) for ts in dask_worker.state.executing]


@pytest.mark.slow
def test_worker_killed_mid_trial_is_retried(tmp_path, monkeypatch):
    """A worker process killed while it runs a trial: the trial runs again elsewhere, nothing is lost,
    and the outputs equal the local run's."""
    import os
    import signal
    import threading
    import time

    distributed = pytest.importorskip("distributed")
    from tests.report._slow_trials import slow_trials

    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "subject01_static.trc", src / "subject01_static.trc")
    for name in ("walk_a", "walk_b", "walk_c"):
        shutil.copy(DATA / "subject01_walk1.trc", src / f"{name}.trc")
    tasks = discover([src])
    opts = ReportOptions(mass=72.6, height=1.8, plots="none")
    local = run_batch(tasks, tmp_path / "local", opts, jobs=1, progress=False)
    assert local.exit_status == 0

    slow_trials(tmp_path / "slow", 2.0, monkeypatch=monkeypatch)  # the worker processes started below wait too
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        box = {}
        runner = threading.Thread(target=lambda: box.setdefault("result", run_batch(
            tasks, tmp_path / "cluster", opts, scheduler=cluster.scheduler_address, progress=False)))
        runner.start()
        t0 = time.monotonic()
        while True:
            running = {w: keys for w, keys in client.run(_executing).items()
                       if any(k.startswith("humanbody-report-") for k in keys)}
            if running:
                break
            assert time.monotonic() - t0 < 30, "no trial started on the cluster"
            time.sleep(0.05)
        victim = next(iter(running))
        pid = client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)  # the nanny starts a new worker; the scheduler reruns the trial
        runner.join(60)
        assert not runner.is_alive()
        assert pid not in client.run(os.getpid).values()  # the killed worker process is gone
    remote = box.get("result")
    assert remote is not None, "run_batch raised (see the thread's exception above)"
    assert [r["status"] for r in remote.rows] == ["ok"] * 3, [r.get("error") for r in remote.rows]
    a, b = _files(tmp_path / "local"), _files(tmp_path / "cluster")
    assert set(a) == set(b) and len(a) >= 10
    for name in a:
        assert a[name] == b[name], name
