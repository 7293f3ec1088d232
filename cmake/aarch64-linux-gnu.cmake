# Cross toolchain: aarch64 Linux on Debian 12 multiarch, tests run under qemu-user.
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install crossbuild-essential-arm64 qemu-user \
#       libhwy-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64
# (`scripts/dev.sh test-aarch64` does all of this.) The arm64 libraries land in
# /usr/lib/aarch64-linux-gnu, the headers are the shared /usr/include.
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# or `cmake --preset aarch64`.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# With CMAKE_LIBRARY_ARCHITECTURE set, find_package() finds the configs in
# /usr/lib/aarch64-linux-gnu/cmake/<pkg> only, never the amd64 ones. Programs come
# from the host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# ctest runs the aarch64 test binaries through qemu. The CPU model (and so the Highway
# target that runs) comes from the QEMU_CPU environment variable, which test/CMakeLists.txt
# sets per ctest entry, e.g. QEMU_CPU=max,sve-default-vector-length=32 (bytes).
# The arm64 loader /lib/ld-linux-aarch64.so.1 comes with libc6:arm64, so no -L is needed.
find_program(QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR "${QEMU_AARCH64}" CACHE FILEPATH
    "Runs aarch64 binaries on the build machine" FORCE)
