"""The build helper of the C++ interop tests (tests/cxx_build.py): a build
whose inputs did not change is not run again (other pytest-xdist workers'
processes may be loading its modules), and one whose inputs changed is."""

import shutil

import pytest

import cxx_build

PROJECT = """cmake_minimum_required(VERSION 3.15)
project(kp_build_probe NONE)
add_custom_target(stamp ALL COMMAND ${CMAKE_COMMAND} -E echo built)
"""


@pytest.fixture
def project(tmp_path):
    if not cxx_build._tool("cmake"):
        pytest.skip("cmake not found")
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(PROJECT)
    name = f"probe-{tmp_path.name}"
    yield src, name
    shutil.rmtree(cxx_build.build_dir(name), ignore_errors=True)


def test_unchanged_inputs_are_not_built_again(project):
    src, name = project
    out = cxx_build.cmake_build(src, name)
    log = out / "build.log"
    assert "built" in log.read_text()
    log.write_text("left alone")
    assert cxx_build.cmake_build(src, name) == out
    assert log.read_text() == "left alone"  # nothing ran
    (src / "extra.txt").write_text("a new input")  # any file of the project
    cxx_build.cmake_build(src, name)
    assert "built" in log.read_text()
    log.write_text("left alone")
    cxx_build.cmake_build(src, name, {"SOME_OPTION": "ON"})  # other arguments
    assert "built" in log.read_text()
