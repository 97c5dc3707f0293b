"""What a View released at finalize does when Python converts or pickles
it, one case per process (tests/test_scalar.py, tests/test_pickle.py).

    released_views.py CASE
"""

import pickle

import kokkos
from scenario import raises, run


def scalar_conversions():
    kokkos.initialize()
    v = kokkos.array([], dtype=kokkos.float64)
    kokkos.finalize()
    for f in (float, int, complex, bool):
        with raises(RuntimeError, "finalize"):
            f(v)
    print("ok")


def pickling():
    v = kokkos.View((4,), kokkos.float64, label="gone")
    kokkos.finalize()
    for protocol in (4, 5):
        with raises(RuntimeError) as r:
            pickle.dumps(v, protocol=protocol)
        print("RuntimeError:", r.value)


CASES = {f.__name__: f for f in (scalar_conversions, pickling)}

if __name__ == "__main__":
    run(CASES)
