"""Pytest hooks and fixtures for the whole suite. What the test files share
otherwise (the sweeps, sample data, fresh interpreters) is in support.py."""

import pytest

import kokkos


@pytest.fixture(scope="session", autouse=True)
def _kokkos_runtime():
    kokkos.initialize()
    yield
