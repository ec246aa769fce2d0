# Install rules: `cmake --install build --prefix P` puts the three libraries (static), their
# public headers, the roofcast CLI with the committed data, a CMake package (find_package(roofcast CONFIG) gives
# roofcast::model, roofcast::registry, roofcast::tune) and a pkg-config file (roofcast.pc)
# under P. Tests, benchmarks, the CUDA ladder and validation/ are never installed.
include(CMakePackageConfigHelpers)

set(ROOFCAST_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/roofcast
    CACHE STRING "Where roofcastConfig.cmake is installed, relative to the prefix")

# The exported names are the ALIAS names: roofcast::model, roofcast::registry, roofcast::tune.
set_target_properties(roofcast_model PROPERTIES EXPORT_NAME model)
set_target_properties(roofcast_registry PROPERTIES EXPORT_NAME registry)
set_target_properties(roofcast_tune PROPERTIES EXPORT_NAME tune)

install(TARGETS roofcast_model roofcast_registry roofcast_tune
  EXPORT roofcastTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Public headers. kernels/launch.hpp needs the CUDA runtime and the ladder library, neither of
# which is installed, so it stays out.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/model/include/roofcast
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_SOURCE_DIR}/kernels/include/roofcast/kernels/registry.hpp
              ${PROJECT_SOURCE_DIR}/kernels/include/roofcast/kernels/rules_rungs_1_6.hpp
              ${PROJECT_SOURCE_DIR}/kernels/include/roofcast/kernels/rules_rungs_7_10.hpp
              ${PROJECT_SOURCE_DIR}/kernels/include/roofcast/kernels/ptxas_report.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/roofcast/kernels)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tune/include/roofcast/tune
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/roofcast FILES_MATCHING PATTERN "*.hpp")

if(TARGET roofcast)
  install(TARGETS roofcast RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The committed data (GPU specs, calibrations, measurements, published ladders, rung notes) under
# PREFIX/share/roofcast/data: an installed roofcast's accuracy, selection and report find it from
# the executable's place (bin/../share/roofcast), wherever they are run from.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data DESTINATION ${CMAKE_INSTALL_DATADIR}/roofcast)

# The CMake package. The libraries are static, so their private dependencies (nlohmann_json,
# Eigen3: header-only, linked as $<LINK_ONLY:...>) are part of the exported link interface and
# roofcastConfig.cmake finds them again.
install(EXPORT roofcastTargets NAMESPACE roofcast:: DESTINATION ${ROOFCAST_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/roofcastConfig.cmake.in
  ${PROJECT_BINARY_DIR}/roofcastConfig.cmake INSTALL_DESTINATION ${ROOFCAST_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/roofcastConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/roofcastConfig.cmake
              ${PROJECT_BINARY_DIR}/roofcastConfigVersion.cmake
        DESTINATION ${ROOFCAST_INSTALL_CMAKEDIR})

# pkg-config. The prefix is derived from the .pc file's own place (${pcfiledir}), so the file
# stays right for whatever `cmake --install --prefix` is chosen after configuring.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(ROOFCAST_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(ROOFCAST_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH ROOFCAST_PC_UP "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" ROOFCAST_PC_UP "${ROOFCAST_PC_UP}")
  set(ROOFCAST_PC_PREFIX "\${pcfiledir}/${ROOFCAST_PC_UP}")
  set(ROOFCAST_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(ROOFCAST_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(ROOFCAST_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/roofcast.pc.in ${PROJECT_BINARY_DIR}/roofcast.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/roofcast.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
