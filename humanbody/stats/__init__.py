"""Statistical parametric mapping (SPM) of curves: t tests and ANOVA on whole gait cycles.

Parametric tests with random field theory inference (Friston et al. 1994;
Worsley et al. 1996, 2004; Pataky 2010, 2016):

- :func:`ttest` (one sample), :func:`ttest_paired`, :func:`ttest2`
  (two independent samples, ``equal_var=False`` for Welch), :func:`anova1`;
- :func:`hotellings`, :func:`hotellings_paired`, :func:`hotellings2` on
  vector curves (J, Q, I) (:mod:`.hotellings`);
- :func:`regress`, :func:`anova2`, :func:`anova1rm`, :func:`anova2rm` and
  :func:`posthoc` (:mod:`.glm`).

Non-parametric (permutation) versions with the same signatures plus
``iterations`` and ``seed`` live in :mod:`humanbody.stats.nonparam`.

Every test returns an :class:`SPMResult` (field ``t``, ``threshold``,
``df``, ``fwhm``, ``resels``, ``clusters``).  See docs/stats.md.
"""

from . import effect, groups, nonparam, normality, parametric, rft, smoothness
from .clusters import Cluster
from .glm import anova1rm, anova2, anova2rm, corrected_alpha, posthoc, regress
from .hotellings import hotellings, hotellings2, hotellings_paired
from .parametric import anova1, ttest, ttest2, ttest_paired
from .result import SPMResult

__all__ = ["Cluster", "SPMResult", "anova1", "anova1rm", "anova2", "anova2rm", "corrected_alpha", "groups",
           "effect", "hotellings", "hotellings2", "hotellings_paired", "nonparam", "normality", "parametric", "posthoc", "regress", "rft",
           "smoothness", "ttest", "ttest2", "ttest_paired"]
