"""The batch on a real Dask cluster (scheduler + 2 worker processes on 127.0.0.1) equals the local run."""

import shutil
from pathlib import Path

import pytest

from humanbody.report import ReportOptions, discover, run_batch

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "gait2392_walk"

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(not (DATA / "subject01_walk1.trc").exists(), reason="shared gait2392 data absent"),
]


def _files(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.csv"))}


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


def test_unreachable_scheduler_is_input_error(tmp_path):
    from humanbody.errors import InputError

    tasks = discover([DATA / "subject01_walk1.trc"])
    with pytest.raises(InputError, match="cannot connect"):
        run_batch(tasks, tmp_path, ReportOptions(), scheduler="tcp://127.0.0.1:1", progress=False)
