# `cmake --install`, then the installed mqlcl-replay finds the installed bridge and kernels by
# itself (no --library, no --kernels, no environment) and replays a step.
# Run as: cmake -DBINARY_DIR=... -DWORK_DIR=... -P install_replay.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BINARY_DIR}" --prefix "${prefix}"
                RESULT_VARIABLE status OUTPUT_QUIET)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${status}")
endif()
foreach(file bin/mqlcl-replay share/mqlcl/kernels/matr_mul_vect_v2.cl)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "${file} was not installed")
  endif()
endforeach()

execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env --unset=MQLCL_LIBRARY --unset=MQLCL_KERNELS_DIR
          "${prefix}/bin/mqlcl-replay" matr_mul_vect_v2 --size 64 --no-cpu --format json
  WORKING_DIRECTORY "${WORK_DIR}"
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the installed mqlcl-replay exited ${status}:\n${err}")
endif()
string(JSON library GET "${out}" library)
string(JSON kernels GET "${out}" kernels_dir)
string(JSON result GET "${out}" runs 0 status)
message(STATUS "library ${library}, kernels ${kernels}, ${result}")
foreach(path library kernels)
  string(FIND "${${path}}" "${prefix}/" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "the installed mqlcl-replay used the ${path} at ${${path}}, not the "
                        "installed one under ${prefix}")
  endif()
endforeach()
if(NOT result STREQUAL "verified")
  message(FATAL_ERROR "the replay was ${result}")
endif()
