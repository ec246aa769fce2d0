# CPU test of the installed package: install this build into a scratch prefix, then build and
# run examples/consumer against it twice, through find_package(roofcast) and through
# pkg-config; and run the installed CLI's accuracy, selection and report from a scratch folder,
# where only the installed share/roofcast can give them the data (cmake/test_consumer.cmake).
find_program(ROOFCAST_PKG_CONFIG_EXECUTABLE pkg-config)
add_test(NAME packaging_consumer
  COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${PROJECT_BINARY_DIR}
    -DSOURCE_DIR=${PROJECT_SOURCE_DIR}/examples/consumer
    -DWORK_DIR=${PROJECT_BINARY_DIR}/packaging-test
    -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DGENERATOR=${CMAKE_GENERATOR}
    -DPKG_CONFIG=${ROOFCAST_PKG_CONFIG_EXECUTABLE}
    -DREPO_DIR=${PROJECT_SOURCE_DIR}
    -P ${PROJECT_SOURCE_DIR}/cmake/test_consumer.cmake)
# A CMake configure, two compiles of one file and one report: about a minute.
set_tests_properties(packaging_consumer PROPERTIES LABELS cpu TIMEOUT 300)
