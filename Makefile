# make example: set up (Kokkos, .venv, build) and run the seed's example
# make test:    set up with test dependencies and run the whole test suite
#               (scripts/suite.py: its options run it on other Kokkos, Pythons, sanitizers)
# make wheel:   a binary wheel with the package's own Kokkos inside (dist/)
# make wheel-cuda: the CUDA 13 wheel, pykokkos-base-cu13 (dist/; needs nvcc 13, a Kokkos 4 source)
# make bench:   run the benchmarks
# make format:  reformat the Python, C and C++ files (CI checks them: scripts/style.sh)
.PHONY: setup example test wheel wheel-cuda bench format clean

setup:
	bash scripts/setup.sh

example:
	bash scripts/setup.sh
	bash examples/run.sh

test:
	python3 scripts/suite.py

wheel:
	bash scripts/wheel.sh

wheel-cuda:
	bash scripts/wheel.sh --cuda

bench:
	bash scripts/setup.sh
	for b in bench/bench_*.py; do .venv/bin/python $$b; done

format:
	bash scripts/setup.sh --test
	bash scripts/style.sh --fix

clean:
	rm -rf build .venv
