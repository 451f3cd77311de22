# Sourced by build scripts: when .gpu-deps/ (scripts/stage-gpu-deps) holds headers or libraries
# that this machine lacks, appends the CMake arguments that use them to the array
# STAGED_DEPS_CMAKE_ARGS and puts the staged libraries on LD_LIBRARY_PATH. Run from the
# repository root.
STAGED_DEPS_CMAKE_ARGS=()
if [[ -f .gpu-deps/googletest/CMakeLists.txt ]]; then
  STAGED_DEPS_CMAKE_ARGS+=("-DCUZARR_GTEST_SOURCE_DIR=$PWD/.gpu-deps/googletest")
fi
# Headers staged without their libraries are linked against the machine's own shared libraries.
staged_shared_library() { ldconfig -p 2>/dev/null | awk -v n="$1" '$1 ~ "^"n {print $NF; exit}'; }
if [[ ! -f /usr/include/bzlib.h && -f .gpu-deps/include/bzlib.h ]]; then
  STAGED_DEPS_CMAKE_ARGS+=("-DBZIP2_INCLUDE_DIR=$PWD/.gpu-deps/include"
    "-DBZIP2_LIBRARY_RELEASE=$(staged_shared_library libbz2.so)")
fi
if [[ ! -f /usr/include/lzma.h && -f .gpu-deps/include/lzma.h ]]; then
  STAGED_DEPS_CMAKE_ARGS+=("-DLIBLZMA_INCLUDE_DIR=$PWD/.gpu-deps/include"
    "-DLIBLZMA_LIBRARY_RELEASE=$(staged_shared_library liblzma.so)")
fi
# c-blosc staged with its libraries: link against them and find them at run time.
if [[ ! -f /usr/include/blosc.h && -f .gpu-deps/include/blosc.h && -f .gpu-deps/lib/libblosc.so.1 ]]; then
  STAGED_DEPS_LIB="$PWD/.gpu-deps/lib"
  STAGED_DEPS_CMAKE_ARGS+=("-DBlosc_INCLUDE_DIR=$PWD/.gpu-deps/include"
    "-DBlosc_LIBRARY=$STAGED_DEPS_LIB/libblosc.so.1"
    "-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,$STAGED_DEPS_LIB -Wl,-rpath,$STAGED_DEPS_LIB"
    "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,-rpath-link,$STAGED_DEPS_LIB -Wl,-rpath,$STAGED_DEPS_LIB")
  export LD_LIBRARY_PATH="$STAGED_DEPS_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# nvCOMP staged by scripts/stage-nvcomp: the nvCOMP comparison benchmark finds it there.
if [[ -f .gpu-deps/nvcomp/include/nvcomp.h ]]; then
  STAGED_DEPS_CMAKE_ARGS+=("-DCUZARR_NVCOMP_ROOT=$PWD/.gpu-deps/nvcomp")
fi
