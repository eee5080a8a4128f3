"""One marker trial on an OpenSim model: :func:`analyze_osim_trial` -> :class:`OsimAnalysis`, and its files.

What ``humanbody analyze TRIAL --model MODEL.osim`` computes, as a library call:

1. the model read (:func:`humanbody.osim.read_osim`) and made a model of the core
   (:func:`humanbody.osim.build.build_core_model`);
2. OpenSim's marker inverse kinematics (:func:`humanbody.osim.ik.solve_ik`), weighted as an OpenSim IK setup
   says (:func:`humanbody.osim.ik.read_ik_setup`) or every marker the trial shares with the model at weight 1;
3. with external loads (an OpenSim ExternalLoads XML), OpenSim's inverse dynamics
   (:func:`humanbody.osim.id.solve_id`): the generalized forces of every coordinate;
4. with ``muscles``, static optimization and joint reactions on the IK's coordinates
   (:func:`humanbody.muscles.trial.run_coordinates`, the coordinates low-passed at
   :data:`humanbody.muscles.markers.COORDINATE_CUTOFF_HZ` as OpenSim's Joint Reaction tutorial).

:func:`write_osim_results` writes ``<trial>_ik.mot`` (rotational coordinates in degrees, as OpenSim writes
them), ``<trial>_id.sto`` and the muscles' three CSV files, and returns the lines saying so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import METHOD, InputError, Note

if TYPE_CHECKING:  # types only
    from ..muscles.trial import MuscleResults, Setup
    from ..osim.build import CoreModel
    from ..osim.ik import IKResult

__all__ = ["OsimAnalysis", "analyze_osim_trial", "external_loads_xml", "write_osim_results"]


@dataclass(frozen=True, eq=False)
class OsimAnalysis:
    """One trial analysed on an OpenSim model: a value (frozen).

    Attributes
    ----------
    source : str                    the trial file (its stem names the output files)
    model : CoreModel               the OpenSim model and its core model (:class:`humanbody.osim.build.CoreModel`)
    time : ndarray, (F,)            the frames' times (s)
    ik : IKResult                   the inverse kinematics: ``q`` (F, C) in the model's coordinate order (rad, m),
                                    ``rms_error`` and ``max_error`` (F,) m, the ``markers`` used
    generalized_forces : ndarray or None   (F, C) the inverse dynamics' generalized forces (N·m, N), in the
                                    order of :func:`humanbody.osim.id.generalized_force_names`; None without loads
    muscles : MuscleResults or None the static optimization and joint reactions (``muscles``); None without
    setup : Setup or None           the muscles' model setup (their names, activation bounds) with ``muscles``
    messages : tuple of str         what the analysis says before its files are written (the model's notes,
                                    the markers' weights, the IK's marker error), in order
    muscle_notes : tuple of str     what the muscles' analysis says before its files (the coordinates' filter,
                                    the reserves, the wrap surfaces), in order
    """

    source: str
    model: CoreModel
    time: np.ndarray
    ik: IKResult
    generalized_forces: np.ndarray | None = None
    muscles: MuscleResults | None = None
    setup: Setup | None = None
    messages: tuple[str, ...] = ()
    muscle_notes: tuple[str, ...] = ()

    @property
    def stem(self) -> str:
        """The trial file's stem, which names the output files."""
        return Path(self.source).stem

    @property
    def coordinates(self) -> np.ndarray:
        """The IK's coordinates (F, C) as OpenSim writes them: rotational ones in degrees, translations in m."""
        degrees = np.array([c.motion_type == "rotational" for c in self.model.osim.coordinates])
        return np.where(degrees, np.rad2deg(self.ik.q), self.ik.q)


def external_loads_xml(forces: str | os.PathLike) -> Path:
    """The OpenSim ExternalLoads XML of ``forces``: the file itself, or the ``.xml`` of the same name beside a
    forces table.

    Parameters
    ----------
    forces : str or os.PathLike
        An ExternalLoads XML, or a forces table (``.mot``, ``.sto``) with its XML beside it.

    Returns
    -------
    pathlib.Path
        The XML file.

    Raises
    ------
    InputError
        A table without an XML of the same name beside it.
    """
    xml = Path(forces)
    if xml.suffix.lower() != ".xml":
        xml = xml.with_suffix(".xml")
        if not xml.exists():
            raise InputError(f"with an .osim model, `forces` takes an OpenSim ExternalLoads XML (none found at {xml})",
                             forces)
    return xml


def analyze_osim_trial(model: str | os.PathLike, trial: str | os.PathLike, *, forces: str | os.PathLike | None = None,
                       ik_setup: str | os.PathLike | None = None, muscles: bool = False,
                       reserves: str | os.PathLike | None = None) -> OsimAnalysis:
    """Analyse a marker trial on an OpenSim model: inverse kinematics, inverse dynamics with ``forces``, static
    optimization and joint reactions with ``muscles`` (the module's steps).

    Parameters
    ----------
    model : str or os.PathLike
        The OpenSim model (``.osim``).
    trial : str or os.PathLike
        The marker trial (TRC, C3D, ...; :func:`humanbody.io.read_trial`), its markers in the model's axes (m).
    forces : str or os.PathLike, optional
        The trial's external loads: an OpenSim ExternalLoads XML, or a forces table with its XML beside it
        (:func:`external_loads_xml`); checked before the inverse kinematics runs.
    ik_setup : str or os.PathLike, optional
        An OpenSim IK setup whose IKMarkerTask/IKCoordinateTask weights the fit uses; default: every marker the
        trial shares with the model, weight 1 (said in ``messages``).
    muscles : bool
        Also static optimization and joint reactions (needs ``forces``).
    reserves : str or os.PathLike, optional
        With ``muscles``: an OpenSim actuators file of the reserves; default: reserves of optimal force 1 on
        every coordinate (:func:`humanbody.muscles.reserves.weak_reserves`, said so).

    Returns
    -------
    OsimAnalysis
        The trial's coordinates, generalized forces and muscle results, with what the analysis said.

    Raises
    ------
    InputError
        ``muscles`` without ``forces``, a forces table without its XML, or a bad model, trial or setup file.
    """
    from ..io import markers_array, read_trial  # lazy: the OpenSim branch alone
    from ..osim import read_osim  # lazy: as above
    from ..osim.build import build_core_model  # lazy: as above
    from ..osim.ik import read_ik_setup, solve_ik  # lazy: as above

    if forces is not None:
        external_loads_xml(forces)  # refused before the IK runs
    elif muscles:
        raise InputError("muscles needs `forces`: the trial's external loads (an OpenSim ExternalLoads XML)",
                         option="muscles")
    cm = build_core_model(read_osim(model))
    tasks = read_ik_setup(ik_setup) if ik_setup else None
    frame = read_trial(trial)
    time = frame["time"].to_numpy(dtype=float)
    names, xyz = markers_array(frame)
    ik = solve_ik(cm, names, xyz, tasks, path=trial, time=time)
    messages = list(cm.osim.notes)
    if not ik_setup:  # the markers' weights change the fit and every load after it: said, never silent
        messages.append(Note("inverse kinematics: every marker the trial shares with the model weighs 1 (--ik-setup "
                             "SETUP.xml for the marker and coordinate weights of an OpenSim IK setup)", METHOD))
    messages.append(f"inverse kinematics: {len(ik.markers)} markers, RMS marker error "
                    f"{1000 * np.nanmean(ik.rms_error):.1f} mm (max {1000 * np.nanmax(ik.max_error):.1f} mm)")
    tau = None if forces is None else _dynamics(cm, time, ik.q, forces)
    result, setup, notes = (None, None, ()) if not muscles else _muscles(model, trial, time, ik.q, forces, reserves)
    return OsimAnalysis(source=os.fspath(trial), model=cm, time=time, ik=ik, generalized_forces=tau,
                        muscles=result, setup=setup, messages=tuple(messages), muscle_notes=notes)


def _dynamics(cm: CoreModel, time: np.ndarray, q: np.ndarray, forces) -> np.ndarray:
    """OpenSim's inverse dynamics of the coordinates ``q`` (F, C; rad, m) under the loads of ``forces``: the
    generalized forces (F, C; N·m, N)."""
    from ..io import read_opensim  # lazy: the OpenSim branch alone
    from ..osim.id import read_external_loads, solve_id  # lazy: as above

    loads, datafile = read_external_loads(external_loads_xml(forces))
    return solve_id(cm, time, q, loads, read_opensim(datafile), path=datafile)


def _muscles(model, trial, time: np.ndarray, q: np.ndarray, forces, reserves) -> tuple:
    """Static optimization and joint reactions on the IK's coordinates: ``(results, setup, notes)``, the notes
    being what is said before the files (the coordinates' filter, the reserves, the wrap surfaces)."""
    from ..muscles.markers import COORDINATE_CUTOFF_HZ, setup_of  # lazy: the muscles' numba kernels
    from ..muscles.reserves import weak_reserves  # lazy: as above
    from ..muscles.trial import run_coordinates  # lazy: as above

    setup = setup_of(model)
    chosen = reserves or weak_reserves(setup.geometry.model.coordinate_names)
    result = run_coordinates(setup, time, q, str(external_loads_xml(forces)), chosen,
                             cutoff_hz=COORDINATE_CUTOFF_HZ, joints=None, where=trial)
    notes = [f"static optimization: coordinates low-passed at {COORDINATE_CUTOFF_HZ:g} Hz first, as OpenSim's "
             "Joint Reaction tutorial"]
    if not reserves:
        notes.append("static optimization: reserves of optimal force 1 on every coordinate (--reserves to choose)")
    notes += [n for n in setup.geometry.notes if n not in setup.geometry.model.notes]  # the wrap surfaces
    return result, setup, tuple(notes)


def write_osim_results(analysis: OsimAnalysis, out: str | os.PathLike) -> list[str]:
    """Write the files of an :class:`OsimAnalysis` into ``out`` (created when missing): ``<stem>_ik.mot``,
    ``<stem>_id.sto`` with loads, the muscles' ``<stem>_activations.csv``, ``<stem>_muscle_forces.csv`` and
    ``<stem>_joint_reactions.csv`` with muscles (:func:`humanbody.muscles.output.write_muscle_results`).

    Parameters
    ----------
    analysis : OsimAnalysis
        The analysed trial.
    out : str or os.PathLike
        The output folder.

    Returns
    -------
    list of str
        The lines to say, in order: ``wrote ...: <path>`` per file, the muscles' notes before their files, and
        the muscles' findings after them.
    """
    from ..io.opensim_writer import write_storage  # lazy: the OpenSim branch alone

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    cm, time = analysis.model, analysis.time
    path = write_storage(folder / f"{analysis.stem}_ik.mot", "Coordinates", cm.osim.coordinate_names, time,
                         analysis.coordinates, in_degrees=True)
    lines = [f"wrote inverse kinematics: {path}"]
    if analysis.generalized_forces is not None:
        from ..osim.id import generalized_force_names  # lazy: as above

        path = write_storage(folder / f"{analysis.stem}_id.sto", "Inverse Dynamics Generalized Forces",
                             generalized_force_names(cm), time, analysis.generalized_forces, in_degrees=False)
        lines.append(f"wrote inverse dynamics: {path}")
    if analysis.muscles is not None and analysis.setup is not None:
        from ..muscles.output import write_muscle_results  # lazy: as above

        lines += [*analysis.muscle_notes, *write_muscle_results(analysis.muscles, analysis.setup, folder, analysis.stem)]
    return lines
