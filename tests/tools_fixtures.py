"""Fixtures and names shared by the Kokkos Tools tests (imported by them)."""

import sys

import pytest

import kokkos.tools as kt

# Kokkos' tuning events, in the order of kokkos.tools.EVENTS
TUNING_EVENTS = [
    "declare_output_type",
    "declare_input_type",
    "request_output_values",
    "begin_context",
    "end_context",
    "declare_optimization_goal",
]


@pytest.fixture(autouse=True)
def no_callbacks_left():
    """Every test starts and ends with no callback set."""
    kt.clear_callbacks()
    yield
    kt.clear_callbacks()
    assert not kt.profile_library_loaded()


@pytest.fixture
def unraisable(monkeypatch):
    """Collects what Kokkos-called callbacks report instead of raising."""
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u))
    return seen
