"""Numba kernels over plain arrays (array in, array out), one module per computation.

Nothing here knows about pandas, names or files; kernels are compiled with
``cache=True`` (see :mod:`.cache`)."""
