"""The compiled modules (docs/architecture.md#compiled-code); everything else is in pyproject.toml.

Each extension sits next to the Python module that stays its reference: ``dualboost/oracles/_online``
(the OnlineLinear bank's per-example update), ``dualboost/boosting/online/_loop`` (the per-example
loop of Online BBM and AdaBoost.OL, which calls the bank through ``dualboost/oracles/_online.pxd``),
and the four listed with their reference below.
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "cdivision": True,
}

EXTENSIONS = [
    Extension("dualboost.oracles._online", ["dualboost/oracles/_online.pyx"]),
    Extension("dualboost.boosting.online._loop", ["dualboost/boosting/online/_loop.pyx"]),
    # ERLPBoost's warm re-solve (dualboost/solvers/compiled.py); BLAS/LAPACK by scipy.linalg.cython_blas
    Extension("dualboost.solvers._capped_newton", ["dualboost/solvers/_capped_newton.pyx"]),
    # the implicit products of decision-stump columns (dualboost/problems/kernels.py StumpColumns)
    Extension("dualboost.problems._stump_products", ["dualboost/problems/_stump_products.pyx"]),
    # the capped simplex's membership test and the capped entropy's value (dualboost/conjugates/entropy.py)
    Extension("dualboost.conjugates._capped_sums", ["dualboost/conjugates/_capped_sums.pyx"]),
    # the row additions of the stump oracle's segmented prefix sum (dualboost/oracles/stumps.py _RunScan)
    Extension("dualboost.oracles._stump_scan", ["dualboost/oracles/_stump_scan.pyx"]),
]

setup(ext_modules=cythonize(EXTENSIONS, compiler_directives=DIRECTIVES))
