"""The project's fuzz campaign: structure-aware generators for every way data
enters kokkos, each checked against NumPy or the protocol's own rules.

Every family is a module of this package with

    NAME                 its name on the command line
    generate(rng)        one input, built from a random.Random
    run(case)            runs it in this process: (kind, detail)
    describe(case)       a short text of the input, for the findings file

An input is replayable from (family, seed, index): its generator is seeded
with the string "family/seed/index" (see child.py). The kinds run returns:

    ok          accepted, and the result agrees with the oracle
    refused     a Python exception where the oracle refuses too (or the
                input is invalid by the protocol's rules)
    divergence  the oracle accepts and kokkos refuses, for a reason not
                documented as a difference (reported, not a failure)
    laxity      kokkos accepts what NumPy refuses, where the input still
                means one thing (a bool extent; reported, not a failure)
    wrong       a wrong value, wrong metadata, or an input the protocol's
                rules say is invalid that kokkos accepted
    error       an exception no refusal should be (SystemError, a
                RuntimeError of a live Kokkos, ...)

scripts/fuzz.py runs batches of inputs in child processes (child.py) and
adds: crash (a signal or an abort), hang (no progress within the time
limit), sanitizer (an ASan or UBSan report), harness (the generator itself
failed).
"""

FAMILIES = (
    "array_interface",
    "cuda_array_interface",
    "dlpack",
    "exchange_api",
    "pickle",
    "index",
    "construct",
    "overlap",
    "threads",
)

# The module of each family (families are imported only when run).
MODULES = {
    "array_interface": "interface",
    "cuda_array_interface": "interface",
    "dlpack": "dlpack",
    "exchange_api": "dlpack",
    "pickle": "pickles",
    "index": "indexing",
    "construct": "construct",
    "overlap": "overlap",
    "threads": "threads",
    "selftest": "selftest",  # the driver's own test (tests/test_fuzz.py), not a campaign family
}

# Kinds that fail a campaign (the driver adds crash, hang, sanitizer, harness).
FAILING = ("wrong", "error", "crash", "hang", "sanitizer", "harness")
KINDS = ("ok", "refused", "divergence", "laxity") + FAILING


def family(name):
    """The module implementing family `name` (with a `family(name)` hook for
    modules that hold two)."""
    import importlib

    mod = importlib.import_module(f"{__name__}.{MODULES[name]}")
    return mod.family(name) if hasattr(mod, "family") else mod
