# Cross-compile for 32-bit x86 Linux with Debian's gcc-i686-linux-gnu.
#
#   cmake -S . -B build-i686 -DRS_PHYSICS_ONLY=ON \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-i686.cmake
#
# Needs: gcc-i686-linux-gnu libc6-dev-i386-cross, and qemu-user unless the
# host runs i386 binaries itself (scripts/deps.sh --cross).
#
# Determinism: 32-bit x86 defaults to the x87 unit, whose 80-bit registers give
# different results at -O0 and -O2 (FLT_EVAL_METHOD == 2). CMAKE_SYSTEM_PROCESSOR
# is i686 so that physics/CMakeLists.txt adds -msse2 -mfpmath=sse to the
# physics targets; the same flags are the default for everything else built
# here, so no code in the process evaluates doubles in x87 precision. (A
# -DCMAKE_C_FLAGS=... on the command line replaces this default; the physics
# targets keep their flags regardless.)
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)

set(RS_CROSS_TRIPLE i686-linux-gnu)
set(CMAKE_C_COMPILER ${RS_CROSS_TRIPLE}-gcc)
set(CMAKE_C_FLAGS_INIT "-msse2 -mfpmath=sse")

set(CMAKE_FIND_ROOT_PATH /usr/${RS_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# An x86-64 host with the i386 loader (package libc6-i386) runs the binaries
# natively, on real SSE2 hardware; otherwise (no libc6-i386, or an ARM host)
# qemu-i386 runs them with the cross libc. Both give the same bits.
if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i[3-6]86)$"
   AND EXISTS /lib/ld-linux.so.2)
  unset(CMAKE_CROSSCOMPILING_EMULATOR)
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-i386 -L /usr/${RS_CROSS_TRIPLE})
endif()
