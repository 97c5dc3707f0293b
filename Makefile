# make example: set up (Kokkos, .venv, build) and run the seed's example
# make test:    set up with test dependencies and run the whole test suite
# make wheel:   a binary wheel with the package's own Kokkos inside (dist/)
# make wheel-cuda: the CUDA 13 wheel, pykokkos-base-cu13 (dist/; needs nvcc 13, a Kokkos 4 source)
# make bench:   run the benchmarks
# make format:  clang-format the C and C++ files (CI checks them)
.PHONY: setup example test wheel wheel-cuda bench format clean

setup:
	bash scripts/setup.sh

example:
	bash scripts/setup.sh
	bash examples/run.sh

test:
	bash scripts/setup.sh --test
	.venv/bin/python -m pytest -q tests

wheel:
	bash scripts/wheel.sh

wheel-cuda:
	bash scripts/wheel_cuda.sh

bench:
	bash scripts/setup.sh
	for b in bench/bench_*.py; do .venv/bin/python $$b; done

format:
	bash scripts/setup.sh --test
	bash scripts/format.sh

clean:
	rm -rf build .venv
