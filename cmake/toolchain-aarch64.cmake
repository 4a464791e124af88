# Cross-compile for 64-bit ARM Linux with Debian's gcc-aarch64-linux-gnu, and
# run the results (ctest, cross_check.sh) under qemu-user.
#
#   cmake -S . -B build-arm64 -DRS_PHYSICS_ONLY=ON \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
#
# Needs: gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
# (scripts/deps.sh --cross). Only the physics-only configuration is meant to be
# cross-built: the third-party libraries are not installed for the target.
#
# Determinism: aarch64 always has a fused multiply-add and gcc contracts a*b+c
# into it by default; physics/CMakeLists.txt compiles physics with
# -ffp-contract=off, which is what keeps this target bit-identical to x86-64.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(RS_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${RS_CROSS_TRIPLE}-gcc)

# Look for libraries and headers of the target only, programs on the host.
set(CMAKE_FIND_ROOT_PATH /usr/${RS_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# -L: where qemu finds the target's dynamic loader and libc.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/${RS_CROSS_TRIPLE})
