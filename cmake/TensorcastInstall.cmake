# `cmake --install`: headers, the libraries (tensorcast, tensorcast_c), the CMake package
# (find_package(tensorcast) -> tensorcast::tensorcast, tensorcast::tensorcast_c) and the
# pkg-config modules tensorcast.pc (C++ library) and tensorcast_c.pc (C API).
# test/install/ is a consumer project that ctest builds against an installed tree.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TENSORCAST_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/tensorcast" CACHE STRING
    "Where the CMake package files go, relative to the install prefix")
set(TENSORCAST_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig" CACHE STRING
    "Where tensorcast.pc and tensorcast_c.pc go, relative to the install prefix")

install(TARGETS tensorcast tensorcast_c EXPORT tensorcastTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tensorcast
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/tensorcast/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tensorcast)

# A static libtensorcast carries $<LINK_ONLY:hwy::hwy> in its exported interface, so
# the package config must find hwy; a shared one needs nothing at configure time.
get_target_property(_tensorcast_type tensorcast TYPE)
if(_tensorcast_type STREQUAL "STATIC_LIBRARY")
  set(TENSORCAST_STATIC ON)
else()
  set(TENSORCAST_STATIC OFF)
endif()

install(EXPORT tensorcastTargets NAMESPACE tensorcast::
        DESTINATION ${TENSORCAST_INSTALL_CMAKEDIR} FILE tensorcastTargets.cmake)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tensorcastConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tensorcastConfig.cmake
  INSTALL_DESTINATION ${TENSORCAST_INSTALL_CMAKEDIR})
# 1.x accepts any 1.y >= requested; before 1.0 a minor release may break the API, so
# 0.x accepts the same minor version only.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_tensorcast_compat SameMinorVersion)
else()
  set(_tensorcast_compat SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tensorcastConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${_tensorcast_compat})
install(FILES ${PROJECT_BINARY_DIR}/tensorcastConfig.cmake
              ${PROJECT_BINARY_DIR}/tensorcastConfigVersion.cmake
        DESTINATION ${TENSORCAST_INSTALL_CMAKEDIR})

# pkg-config: relocatable (paths relative to ${pcfiledir}), so the tree can be
# installed with `cmake --install --prefix` anywhere.
function(_tensorcast_pc_dir out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()
if(IS_ABSOLUTE "${TENSORCAST_INSTALL_PKGCONFIGDIR}")
  set(TENSORCAST_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _tensorcast_up "/prefix/${TENSORCAST_INSTALL_PKGCONFIGDIR}" "/prefix")
  string(REGEX REPLACE "/$" "" _tensorcast_up "${_tensorcast_up}")
  set(TENSORCAST_PC_PREFIX "\${pcfiledir}/${_tensorcast_up}")
endif()
_tensorcast_pc_dir(TENSORCAST_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
_tensorcast_pc_dir(TENSORCAST_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
# A static libtensorcast needs libhwy and the C++ runtime at link time
# (`pkg-config --static --libs tensorcast`).
set(TENSORCAST_PC_PRIVATE "")
if(TENSORCAST_STATIC)
  set(TENSORCAST_PC_PRIVATE "Requires.private: libhwy\nLibs.private: -lstdc++ -lm\n")
endif()
foreach(_pc tensorcast tensorcast_c)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${_pc}.pc.in ${PROJECT_BINARY_DIR}/${_pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${_pc}.pc DESTINATION ${TENSORCAST_INSTALL_PKGCONFIGDIR})
endforeach()
