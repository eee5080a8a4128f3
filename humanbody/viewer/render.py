"""Off-screen pictures of a :class:`~humanbody.viewer.scene.Scene`: screenshots and movies.

Both use a :class:`~humanbody.viewer.app.ViewerApp` created with
``off_screen=True``, so a picture shows the same layers and overlays as the
window.  No display is needed: VTK 9.4+ wheels render through EGL
(Mesa's ``libEGL``) when no X display exists; :func:`prepare_offscreen` selects
that window class before VTK guesses an X window and warns.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from ..atomic import atomic_path
from ..errors import InputError
from .app import ViewerApp

__all__ = ["prepare_offscreen", "screenshot", "movie", "movie_frames"]


def prepare_offscreen() -> None:
    """Choose an off-screen OpenGL window when there is no X display (Linux).

    Sets ``VTK_DEFAULT_OPENGL_WINDOW=vtkEGLRenderWindow`` unless the user set
    it (e.g. ``vtkOSOpenGLRenderWindow`` for OSMesa) or ``DISPLAY`` /
    ``WAYLAND_DISPLAY`` exists.  Must run before the first render window.
    """
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")


def _app(scene, size, layers, camera):
    prepare_offscreen()

    return ViewerApp(scene, off_screen=True, window_size=size, layers=layers, camera=camera, widgets=False)


def screenshot(scene, path, *, frame: int = 0, size=(1280, 800), layers=None, camera: str = "auto",
               select: str | None = None) -> str:
    """Render ``frame`` of ``scene`` off screen into a PNG file (written atomically).

    Parameters
    ----------
    scene : Scene
        The scene: segments, markers, vectors and plates over the trial's frames.
    path : str or Path
        Output PNG.
    frame : int
        0-based frame (negative counts from the end).
    size : (int, int)
        Pixels (width, height).
    layers : iterable of str, optional
        Layers to show (default as in the window).
    camera : str
        Camera preset (see :data:`humanbody.viewer.camera.CAMERAS`) or "auto".
    select : str, optional
        Segment name whose values are shown in the overlay.

    Returns
    -------
    str
        The path written.
    """
    path = os.fspath(path)
    if not -scene.n_frames <= frame < scene.n_frames:
        raise InputError(f"frame {frame} is outside the trial (0 .. {scene.n_frames - 1})")
    app = _app(scene, size, layers, camera)
    try:
        if select is not None:
            app.select(_segment_index(scene, select))
        app.set_frame(frame)
        image = app.image()
    finally:
        app.close()
    import imageio.v3 as iio

    with atomic_path(path, suffix=".png") as tmp:
        iio.imwrite(tmp, image, extension=".png")
    return path


def movie_frames(time: np.ndarray, fps: float) -> np.ndarray:
    """Frame indices that play ``time`` (s) in real time at ``fps`` pictures per second.

    Picture i shows the frame nearest to ``time[0] + i / fps``.

    Parameters
    ----------
    time : ndarray, shape (F,), s
        The frames' times.
    fps : float
        Pictures per second.

    Returns
    -------
    ndarray of int
        The frame index (0-based) of each picture.
    """
    time = np.asarray(time, dtype=float)
    if time.size < 2:
        return np.zeros(time.size, dtype=int)
    want = np.arange(time[0], time[-1] + 1e-9, 1.0 / fps)
    idx = np.searchsorted(time, want).clip(1, time.size - 1)
    nearer_left = (want - time[idx - 1]) <= (time[idx] - want)
    return np.where(nearer_left, idx - 1, idx)


def movie(scene, path, *, fps: float = 30.0, size=(1280, 800), layers=None, camera: str = "auto",
          select: str | None = None, progress: bool = False) -> str:
    """Write the trial as an MP4 (imageio-ffmpeg) or GIF, in real time, with the window's overlays.

    Parameters
    ----------
    scene : Scene
        The scene: segments, markers, vectors and plates over the trial's frames.
    path : str or Path
        ``.mp4`` or ``.gif``.
    fps : float
        Pictures per second; frames are picked by :func:`movie_frames`.
    size, layers, camera, select
        As in :func:`screenshot`.
    progress : bool
        Show a tqdm bar on stderr.

    Returns
    -------
    str
        The path written.
    """
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".mp4", ".gif"):
        raise InputError("movie file must end in .mp4 or .gif", path)
    if not fps > 0:
        raise InputError(f"fps must be positive, got {fps:g}", option="fps")
    frames = movie_frames(scene.time, fps)
    app = _app(scene, size, layers, camera)
    try:
        if select is not None:
            app.select(_segment_index(scene, select))
        with atomic_path(path, suffix=ext) as tmp:
            if ext == ".mp4":
                app.plotter.open_movie(tmp, framerate=fps, quality=7)
            else:
                app.plotter.open_gif(tmp, fps=int(round(fps)), palettesize=128)
            frames_iter = frames
            if progress:
                from tqdm import tqdm

                frames_iter = tqdm(frames, desc=os.path.basename(path), unit="frame", leave=False)
            for f in frames_iter:
                app.set_frame(int(f))
                app.plotter.write_frame()
            app.plotter.mwriter.close()
            app.plotter.mwriter = None
    finally:
        app.close()
    return path


def _segment_index(scene, name: str) -> int:
    try:
        return scene.names.index(name)
    except ValueError:
        raise InputError(f"no segment named {name!r}; segments: {', '.join(scene.names)}") from None
