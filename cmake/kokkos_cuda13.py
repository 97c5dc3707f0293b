"""kokkos_cuda13.py: the source changes a Kokkos 4.6.01 or develop tree needs to
build and run with CUDA 13 (docs/cuda.md, "The GPU build"), made in place.

    python3 cmake/kokkos_cuda13.py /path/to/kokkos-source

1. Cuda/Kokkos_Cuda_Instance.hpp: cudaGraphAddDependencies takes an edge-data
   argument (nullptr); cudaMemAdvise and cudaMemPrefetchAsync take a
   cudaMemLocation (and the latter a flags argument).
2. bin/nvcc_wrapper: the default architecture sm_90 (CUDA 13 dropped sm_70).
3. tpls/mdspan's config.hpp (develop: the View on mdspan): no
   [[no_unique_address]] under nvcc. CUDA 13.0's device compiler lays out a
   kernel argument whose type holds such a member (every mdspan View, so
   every functor holding one) without the tail padding the host compiler
   keeps: a kernel reads its View's address and extent, and its policy's
   range, at the wrong offsets and silently does nothing (or faults).
   include/kokkos_python/compat.hpp refuses to compile a module against a
   Kokkos without this change.
Each change is made once; running it again changes nothing.
"""

import pathlib
import sys


def location(device):
    return f"cudaMemLocation{{{device} == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice, {device}}}"


def edit(path, pairs):
    text = path.read_text()
    for old, new in pairs:
        text = text.replace(old, new)
    path.write_text(text)


def main(root):
    edit(
        root / "core/src/Cuda/Kokkos_Cuda_Instance.hpp",
        [
            (
                "cudaGraphAddDependencies(graph, from, to, numDependencies)",
                "cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies)",
            ),
            (
                "cudaMemAdvise(devPtr, count, advice, device)",
                f"cudaMemAdvise(devPtr, count, advice, {location('device')})",
            ),
            (
                "cudaMemPrefetchAsync(devPtr, count, dstDevice, m_stream)",
                f"cudaMemPrefetchAsync(devPtr, count, {location('dstDevice')}, 0, m_stream)",
            ),
            (
                "cudaMemPrefetchAsync(devPtr, count, dstDevice,\n                                get_input_stream(stream))",
                f"cudaMemPrefetchAsync(devPtr, count, {location('dstDevice')}, 0,\n"
                "                                get_input_stream(stream))",
            ),
        ],
    )
    edit(root / "bin/nvcc_wrapper", [('default_arch="sm_70"', 'default_arch="sm_90"')])
    config = root / "tpls/mdspan/include/experimental/__p0009_bits/config.hpp"
    if config.exists():
        edit(config, [("(!defined(__NVCC__) || MDSPAN_HAS_CXX_20) &&", "!defined(__NVCC__) &&")])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(pathlib.Path(sys.argv[1]))
