# Installs the build in BUILD_DIR into WORK_DIR/prefix, then builds and runs the consumer in
# SOURCE_DIR against that prefix (1) with CMake, find_package(roofcast) through
# CMAKE_PREFIX_PATH, and (2) with the compiler alone and `pkg-config --cflags --libs roofcast`
# through PKG_CONFIG_PATH. Fails on the first step that fails.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX_COMPILER=... -DGENERATOR=...
#         -DPKG_CONFIG=... -P test_consumer.cmake
foreach(variable BUILD_DIR SOURCE_DIR WORK_DIR CXX_COMPILER GENERATOR REPO_DIR)
  if(NOT ${variable})
    message(FATAL_ERROR "test_consumer: -D${variable}=... is required")
  endif()
endforeach()
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "test_consumer: pkg-config not found (scripts/install-deps.sh installs it)")
endif()
set(problem 4096 4096 4096)

set(run_directory "")
function(run step)
  message(STATUS "test_consumer: ${step}: ${ARGN}")
  if(run_directory)
    set(where WORKING_DIRECTORY ${run_directory})
  endif()
  execute_process(COMMAND ${ARGN} ${where} RESULT_VARIABLE status OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "test_consumer: ${step} failed (${status})\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(file include/roofcast/tune/rank.hpp include/roofcast/kernels/registry.hpp
             include/roofcast/spec.hpp bin/roofcast)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "test_consumer: ${file} is not installed")
  endif()
endforeach()
# The installed CLI runs from the prefix (the GPU specs are embedded in it).
run("installed CLI" ${prefix}/bin/roofcast gpus)
if(NOT last_output MATCHES "h200-sxm")
  message(FATAL_ERROR "test_consumer: `roofcast gpus` does not list h200-sxm:\n${last_output}")
endif()
file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
list(FILTER installed EXCLUDE REGEX "^share/roofcast/data/")  # the data's own names
foreach(file IN LISTS installed)
  if(file MATCHES "test|bench|ladder|launch\\.hpp|validation")
    message(FATAL_ERROR "test_consumer: ${file} should not be installed")
  endif()
endforeach()

# 1. CMake: find_package(roofcast CONFIG REQUIRED), link roofcast::tune.
# The installed CLI finds its data from its own place (bin/../share/roofcast): run from a scratch
# folder with no data/ and no ROOFCAST_ROOT, accuracy, selection and report still work, and the
# report is the committed one, byte for byte.
foreach(file data/gpus/h200-sxm.json data/calibration/h200-sxm.json
             data/measurements/h200-sxm/sgemm-ladder.json data/reference/published-ladders.json)
  if(NOT EXISTS ${prefix}/share/roofcast/${file})
    message(FATAL_ERROR "test_consumer: ${file} is not installed under share/roofcast")
  endif()
endforeach()
set(scratch ${WORK_DIR}/scratch)
file(MAKE_DIRECTORY ${scratch})
set(run_directory ${scratch})
set(cli ${CMAKE_COMMAND} -E env --unset=ROOFCAST_ROOT ${prefix}/bin/roofcast)
run("installed accuracy" ${cli} accuracy --gpu h200-sxm)
if(NOT last_output MATCHES "held.out")
  message(FATAL_ERROR "test_consumer: installed `roofcast accuracy` printed:\n${last_output}")
endif()
run("installed selection" ${cli} selection --gpu h200-sxm)
run("installed report" ${cli} report --gpu a100-sxm4-80gb)
file(READ ${scratch}/reports/a100-sxm4-80gb/README.md installed_report)
file(READ ${REPO_DIR}/reports/a100-sxm4-80gb/README.md committed_report)
if(NOT installed_report STREQUAL committed_report)
  message(FATAL_ERROR "test_consumer: the installed report of a100-sxm4-80gb differs from "
                      "reports/a100-sxm4-80gb/README.md")
endif()
set(run_directory "")

run("configure (find_package)" ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/cmake-build
    -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_PREFIX_PATH=${prefix})
run("build (find_package)" ${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-build)
run("run (find_package)" ${WORK_DIR}/cmake-build/roofcast-consumer ${problem})
message("${last_output}")

# 2. pkg-config: the flags alone must compile and link the same program.
file(GLOB pc_files ${prefix}/*/pkgconfig/roofcast.pc ${prefix}/*/*/pkgconfig/roofcast.pc)
list(LENGTH pc_files pc_count)
if(NOT pc_count EQUAL 1)
  message(FATAL_ERROR "test_consumer: expected one installed roofcast.pc, found '${pc_files}'")
endif()
get_filename_component(pc_dir ${pc_files} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
run("pkg-config" ${PKG_CONFIG} --cflags --libs roofcast)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("compile (pkg-config)" ${CXX_COMPILER} -std=c++20 -O1 ${SOURCE_DIR}/main.cpp ${flags}
    -o ${WORK_DIR}/roofcast-consumer-pkg-config)
run("run (pkg-config)" ${WORK_DIR}/roofcast-consumer-pkg-config ${problem})
message("${last_output}")
message(STATUS "test_consumer: find_package and pkg-config consumers both built and ran")
