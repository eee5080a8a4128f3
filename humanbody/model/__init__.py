"""The body model: segments, the constant tree (:class:`BodyModel`), anthropometry, the model file.

:class:`BodyModel`, :func:`default_model`, :func:`load_model` and :func:`lower_body_array` are
re-exported from :mod:`.body`, so importing them from this package works.
"""

from .body import BodyModel, default_model, load_model, lower_body_array

__all__ = ["BodyModel", "default_model", "load_model", "lower_body_array"]
