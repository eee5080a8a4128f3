"""Xsens MT Manager text exports: one ``MT_<trial>_<sensor>.txt`` per sensor, read as one orientation trial.

MT Manager writes, per sensor, a few ``//`` header lines (``// Update
Rate: 100.0Hz``), a tab-separated column line, then one row per packet:
``PacketCounter``, time stamps (often empty), ``Acc_X Acc_Y Acc_Z``
(m/s², sensor axes) and the orientation in one of three forms:

- ``Quat_q0 Quat_q1 Quat_q2 Quat_q3``: the unit quaternion, scalar first;
- ``Mat[i][j]``: the rotation matrix ``R`` (sensor axes -> the Xsens world),
  ``R[i-1, j-1] = Mat[i][j]``, written column by column (``Mat[1][1]
  Mat[2][1] Mat[3][1] Mat[1][2] ...``);
- ``Roll Pitch Yaw`` (degrees): ``R = Rz(yaw) Ry(pitch) Rx(roll)``.

The Xsens world is Z up (X magnetic north).  A trial is a folder, a trial
prefix (``folder/MT_012005D6_009-001``: every ``<prefix>_<sensor>.txt``) or
one of its files.  Which sensor rides on which segment comes from
OpenSense's mapping XML (``<XsensDataReaderSettings>``: ``trial_prefix`` and
``<ExperimentalSensor name="_00B42279"><name_in_model>pelvis_imu``), found in
the folder or given, or from ``ID=name`` pairs.  Files that end at
different packets (a sensor that stopped earlier) are cut to the packets
they share, as the log says; a packet missing inside that span is filled
by normalised linear interpolation of the quaternions, and counted.

The result is an orientation DataFrame as :mod:`humanbody.io.imu` makes
(labels = the mapped names, ``<label>_qw`` ...), with ``attrs["world"] =
"x,y,z"`` and ``attrs["accelerations"]``: label -> (F, 3) m/s² in sensor
axes (the data's vertical is found from them, :mod:`humanbody.imu.vertical`).
"""

from __future__ import annotations

import io
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..rotations.quaternions import matrix_to_quaternion, quaternion_to_matrix
from .imu import orientation_frame, unit_quaternions
from .imu_names import OPENSIM_BODIES

__all__ = ["read_xsens_mt", "looks_like_xsens_mt", "read_mapping", "trial_files"]

#: Largest deviation of R^T R from the identity accepted in a ``Mat[i][j]`` row.
ORTHO_TOLERANCE = 1e-3

_MAT = [f"Mat[{i}][{j}]" for j in (1, 2, 3) for i in (1, 2, 3)]  # column by column, as MT Manager writes
_QUAT = ["Quat_q0", "Quat_q1", "Quat_q2", "Quat_q3"]
_EULER = ["Roll", "Pitch", "Yaw"]
_ACC = ["Acc_X", "Acc_Y", "Acc_Z"]


def looks_like_xsens_mt(path) -> bool:
    """True for an MT Manager text export (``//`` header lines then a ``PacketCounter`` column line).

    Parameters
    ----------
    path : str or os.PathLike
        The file to look at.

    Returns
    -------
    bool
        True when it is one.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096).decode("latin-1")
    except OSError:
        return False
    for line in head.splitlines():
        if line.startswith("//"):
            continue
        return line.split("\t")[0].strip() == "PacketCounter"
    return False


def read_mapping(spec, where=None) -> tuple[dict, str | None]:
    """Sensor id -> name from an OpenSense mapping XML file or ``"ID=name,ID=name"``; and the XML's trial prefix.

    Sensor ids are compared without a leading underscore and case-insensitively.

    Parameters
    ----------
    spec : str, os.PathLike or dict
        A mapping XML file, "ID=name,ID=name" pairs, or the mapping itself.
    where : optional
        Not used.

    Returns
    -------
    mapping : dict of str to str
        Sensor id (upper case, no leading underscore) -> sensor name.
    prefix : str or None
        The XML's trial prefix, or None.

    Raises
    ------
    InputError  an unreadable or malformed XML, no ``ExperimentalSensor``, a malformed pair.
    """
    if isinstance(spec, dict):
        return {str(k).lstrip("_").upper(): str(v) for k, v in spec.items()}, None
    text = os.fspath(spec)
    if "=" in text and not os.path.exists(text):
        out = {}
        for pair in text.split(","):
            key, sep, name = pair.partition("=")
            if not sep or not key.strip() or not name.strip():
                raise InputError(f"imu_map {text!r}: expected ID=name pairs separated by commas, or a mapping XML "
                                 "file", option="imu_map")
            out[key.strip().lstrip("_").upper()] = name.strip()
        return out, None
    path = Path(text)
    if not path.is_file():
        raise InputError("the sensor mapping file is not found", path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        raise InputError(f"the sensor mapping is not readable XML ({err})", path) from None
    out = {}
    for elem in root.iter():
        if elem.tag.rsplit("}", 1)[-1] == "ExperimentalSensor":
            name = next((c.text for c in elem if c.tag.rsplit("}", 1)[-1] == "name_in_model"), None)
            sensor = elem.get("name")
            if sensor and name and name.strip():
                out[sensor.strip().lstrip("_").upper()] = name.strip()
    if not out:
        raise InputError("the sensor mapping names no <ExperimentalSensor> with a <name_in_model>", path)
    prefix = next((e.text.strip() for e in root.iter() if e.tag.rsplit("}", 1)[-1] == "trial_prefix" and e.text),
                  None)
    return out, prefix


def _mapping_in(folder: Path):
    """The OpenSense mapping XML of a folder (``myIMUMappings.xml`` first), or None."""
    found = sorted(folder.glob("*.xml"), key=lambda p: (p.name != "myIMUMappings.xml", p.name))
    for p in found:
        try:
            with open(p, "rb") as fh:
                if b"XsensDataReaderSettings" in fh.read(4096):
                    return p
        except OSError:
            continue
    return None


def trial_files(spec, prefix: str | None = None) -> tuple[str, dict]:
    """The trial prefix and its files ``{sensor id: path}`` of a folder, a prefix or one file of the trial.

    Parameters
    ----------
    spec : str or os.PathLike
        A folder, a trial prefix, or one file of the trial.
    prefix : str, optional
        The trial prefix to pick in a folder (default the folder's only one).

    Returns
    -------
    prefix : str
        The trial prefix.
    files : dict of str to str
        Sensor id (upper case) -> its file (pathlib.Path).
    """
    p = Path(os.fspath(spec))
    if p.is_dir():
        folder, stem = p, prefix
    elif p.is_file():
        folder, stem = p.parent, p.stem.rsplit("_", 1)[0]
    else:
        folder, stem = p.parent, p.name
        if not folder.is_dir():
            raise InputError("file not found", p)
    files = [f for f in sorted(folder.glob("*.txt")) if looks_like_xsens_mt(f)]
    if stem is None:
        stems = sorted({f.stem.rsplit("_", 1)[0] for f in files})
        if len(stems) != 1:
            what = "no MT Manager text files" if not stems else f"several trials ({', '.join(stems)})"
            raise InputError(f"holds {what}: give the trial prefix (folder/<prefix>)", p)
        stem = stems[0]
    found = {f.stem[len(stem) + 1:].upper(): f for f in files if f.stem.startswith(stem + "_")}
    if not found:
        raise InputError(f"no MT Manager text files {stem}_<sensor>.txt", folder / stem)
    return stem, found


def _read_one(path: Path):
    """Rate (Hz or None), packets (n,), orientation matrices (n, 3, 3), accelerations (n, 3) or None."""
    with open(path, encoding="latin-1") as fh:
        lines = fh.read().splitlines()
    k = 0
    rate = None
    while k < len(lines) and lines[k].startswith("//"):
        m = re.search(r"update rate:\s*([0-9.]+)\s*hz", lines[k], re.IGNORECASE)
        if m:
            rate = float(m.group(1))
        k += 1
    if k >= len(lines):
        raise InputError("has no column line after its // header", path)
    cols = [c.strip() for c in lines[k].split("\t")]
    if cols[0] != "PacketCounter":
        raise InputError(f"line {k + 1} must start with PacketCounter (an MT Manager text export)", path)
    rows = [line for line in lines[k + 1:] if line.strip()]
    if len(rows) < 2:
        raise InputError("holds fewer than 2 data rows", path)
    import pandas as pd  # lazy: pandas costs 0.5 CPU-s at start-up; `humanbody muscles` reads and writes without it

    try:
        table = pd.read_csv(io.StringIO("\n".join(rows)), sep="\t", header=None, names=range(len(cols)),
                            dtype=str, keep_default_na=False, engine="c")
    except pd.errors.ParserError as err:
        raise InputError(f"malformed data rows ({' '.join(str(err).split())})", path) from None

    def numbers(names, what):
        idx = [cols.index(c) for c in names]
        arr = table[idx].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
        bad = np.argwhere(~np.isfinite(arr))
        if bad.size:
            i, j = bad[0]
            raise InputError(f"missing or non-numeric {names[j]} ({what}) at line {k + 2 + i}", path)
        return arr

    packets = numbers(["PacketCounter"], "packet counter")[:, 0]
    if all(c in cols for c in _QUAT):
        q = numbers(_QUAT, "quaternion")
        norm = np.linalg.norm(q, axis=1)
        if np.abs(norm - 1.0).max() > 0.01:
            i = int(np.argmax(np.abs(norm - 1.0)))
            raise InputError(f"the quaternion at line {k + 2 + i} has norm {norm[i]:.4g}, not 1", path)
        R = quaternion_to_matrix(np.ascontiguousarray((q / norm[:, None])[:, [1, 2, 3, 0]]))
    elif all(c in cols for c in _MAT):
        R = numbers(_MAT, "rotation matrix").reshape(-1, 3, 3).transpose(0, 2, 1)  # row j: column j of R
        dev = np.abs(np.einsum("nji,njk->nik", R, R) - np.eye(3)).max(axis=(1, 2))
        det = np.linalg.det(R)
        if dev.max() > ORTHO_TOLERANCE or (det < 0).any():
            i = int(np.argmax(dev)) if dev.max() > ORTHO_TOLERANCE else int(np.argmax(det < 0))
            raise InputError(f"the rotation matrix at line {k + 2 + i} is not a rotation "
                             f"(|R^T R - I| = {dev[i]:.2g}, det {det[i]:.3g})", path)
    elif all(c in cols for c in _EULER):
        from scipy.spatial.transform import Rotation  # lazy: importing it costs the CLI about 250 ms

        e = np.radians(numbers(_EULER, "Euler angle"))
        R = Rotation.from_euler("ZYX", e[:, ::-1]).as_matrix()  # Rz(yaw) Ry(pitch) Rx(roll)
    else:
        raise InputError("has no orientation columns (Quat_q0..q3, Mat[i][j] or Roll Pitch Yaw)", path)
    acc = numbers(_ACC, "acceleration") if all(c in cols for c in _ACC) else None
    return rate, packets, R, acc


def _unwrap(packets: np.ndarray) -> np.ndarray:
    """16-bit packet counters made increasing across their wrap at 65536."""
    steps = np.diff(packets)
    return packets + 65536.0 * np.concatenate([[0], np.cumsum(steps < -32768)])


def read_xsens_mt(spec, mapping=None, **options):
    """Read an MT Manager text export (module docstring) as an orientation trial.

    Parameters
    ----------
    spec : str or Path
        A folder, a trial prefix, or one file of the trial.
    mapping : str, Path or dict, optional
        An OpenSense mapping XML, ``"ID=name,..."`` pairs or a dict; default:
        the mapping XML in the folder.
    **options
        ``units`` and ``rate_hz`` are refused.

    Returns
    -------
    pandas.DataFrame
        An orientation trial (kind ``orientations``).

    Raises
    ------
    InputError
        No files, no mapping, a mapped sensor without a file, a file without
        its rate, orientation or packet counter, a non-numeric value or a
        matrix that is not a rotation, files sharing fewer than 2 packets,
        no pelvis sensor.
    """
    for key in ("units", "rate_hz"):
        if options.get(key) is not None:
            raise InputError(f"the {key} option does not apply to an orientation file", spec)
    p = Path(os.fspath(spec))
    folder = p if p.is_dir() else p.parent
    mapping, xml = _mapping(p, folder, mapping)
    names, prefix = read_mapping(mapping)
    stem, files = trial_files(p, prefix if p.is_dir() else None)
    where = folder / stem
    missing = [sid for sid in names if sid not in files]
    if missing:
        raise InputError(f"the mapping names sensor {missing[0]} but there is no {stem}_{missing[0]}.txt", where)
    labels = list(names.values())
    data, rate = _read_sensors(names, files, where)
    first = max(d[0][0] for d in data)
    last = min(d[0][-1] for d in data)
    if last - first < 1:
        raise InputError("the sensors' files share fewer than 2 packets", where)
    target = np.arange(first, last + 1)
    given = mapping if isinstance(mapping, (str, os.PathLike)) and os.path.isfile(mapping) else None
    source = Path(xml or given).name if (xml or given) else "the --imu-map pairs"
    notes = [f"Xsens MT text export: {len(labels)} sensors, mapping from {source}"]
    ends = sorted({int(d[0][-1]) for d in data})
    if len(ends) > 1 or len({int(d[0][0]) for d in data}) > 1:
        notes.append(f"the sensors' files cover different packets (last packets {ends[0]}-{ends[-1]}): the "
                     f"{len(target)} packets they share are read")
    q, accs, filled = _on_packets(data, target, labels)
    if filled:
        notes.append(f"{filled} missing packets filled by interpolation")
    q, _ = unit_quaternions(q, labels, lambda i: f"packet {int(target[i])}", where)
    time = (target - target[0]) / rate
    extra = {"accelerations": accs if len(accs) == len(labels) else {}, "mapping": dict(names),
             "trial_prefix": stem}
    return orientation_frame(where, "xsens-mt", labels, q, time, None, "x,y,z", False, OPENSIM_BODIES, "_imu",
                  conversions=notes, extra=extra)


def _mapping(p: Path, folder: Path, mapping):
    """``(mapping, xml)``: the mapping given, else the OpenSense mapping XML of the folder (also returned as
    ``xml``, for the log); neither is an InputError."""
    if mapping is not None:
        return mapping, None
    xml = _mapping_in(folder)
    if xml is None:
        raise InputError("no sensor -> segment mapping: the folder has no OpenSense mapping XML; give "
                         "`imu_map` FILE.xml or `imu_map` ID=name,ID=name", p)
    return xml, xml


def _read_sensors(names: dict, files: dict, where: Path) -> tuple[list, float]:
    """Per mapped sensor ``(packets unwrapped and increasing, orientation matrices, accelerations or None)``,
    and the update rate they share (Hz)."""
    data, rates = [], set()
    for sid in names:
        rate, packets, R, acc = _read_one(files[sid])
        if rate is None:
            raise InputError("has no '// Update Rate: ...Hz' header line", files[sid])
        packets = _unwrap(packets)
        if np.any(np.diff(packets) <= 0):
            i = int(np.argmax(np.diff(packets) <= 0))
            raise InputError(f"the packet counter does not increase at data row {i + 2}", files[sid])
        rates.add(rate)
        data.append((packets, R, acc))
    if len(rates) != 1:
        raise InputError(f"the sensors' files have different update rates ({', '.join(f'{r:g}' for r in rates)} Hz)",
                         where)
    return data, rates.pop()


def _on_packets(data: list, target: np.ndarray, labels: list[str]) -> tuple[np.ndarray, dict, int]:
    """Every sensor's quaternions (F, S, 4), scalar first, and accelerations (label -> (F, 3)) on the shared
    packets ``target``, missing packets filled by linear interpolation (of quaternions kept in one
    hemisphere along time; normalised later); the count of filled packets."""
    first, last = target[0], target[-1]
    F, S = len(target), len(labels)
    q = np.empty((F, S, 4))
    accs = {}
    filled = 0
    for s, (packets, R, acc) in enumerate(data):
        qs = matrix_to_quaternion(np.ascontiguousarray(R))[:, [3, 0, 1, 2]]  # scalar first
        flip = np.concatenate([[1.0], np.sign(np.einsum("ni,ni->n", qs[1:], qs[:-1]) + 1e-300)])
        qs = qs * np.cumprod(flip)[:, None]  # one hemisphere along time, for interpolation
        inside = (packets >= first) & (packets <= last)
        filled += F - int(inside.sum())
        for j in range(4):
            q[:, s, j] = np.interp(target, packets, qs[:, j])
        if acc is not None:
            accs[labels[s]] = np.column_stack([np.interp(target, packets, acc[:, j]) for j in range(3)])
    return q, accs, filled
