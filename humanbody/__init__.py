"""humanbody: mechanics of a 17-segment human body model from motion capture.

The public API is flat (docs/conventions.md, "Python API")::

    import humanbody
    model = humanbody.BodyModel.default(mass=75.0, height=1.75)
    coords = humanbody.read_trial("data/sample_walk.csv")
    res = humanbody.compute(model, coords)
    res.omega.shape        # (frames, 17, 3), rad/s, ground components
"""

__version__ = "0.1.0"

import os as _os

# numba's parallel kernels run on an OpenMP pool.  With the default wait policy
# GNU OpenMP keeps each worker spinning for a while after every parallel region,
# burning a core that the CSV writer thread, the file reader's threads or
# another trial's process could use (1.1 CPU-s of 9-10 per 100,000-frame
# analysis, docs/performance.md).  Idle workers sleep instead unless the user
# chose a policy; it only takes effect if OpenMP was not already loaded.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# The same for OpenBLAS (numpy's and scipy's): its idle threads spin for about
# 2^28 cycles after each call before they sleep (0.3-0.4 CPU-s per
# 100,000-frame analysis, docs/performance.md).  4 is the shortest timeout
# OpenBLAS accepts; the number of threads is not changed.
_os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

from ._gc import gc_paused  # noqa: E402

with gc_paused():  # imports make no garbage cycles worth ~0.1 s of collections
    from .errors import InputError  # noqa: E402
    from .model import BodyModel, load_model, lower_body_array  # noqa: E402
    from .differentiate import Differentiation  # noqa: E402
    from .kinematics import compute  # noqa: E402
    from .results import Results  # noqa: E402
    from .io import read_trial  # noqa: E402

__all__ = [
    "BodyModel",
    "Differentiation",
    "InputError",
    "Results",
    "compute",
    "load_model",
    "lower_body_array",
    "read_trial",
    "__version__",
]
