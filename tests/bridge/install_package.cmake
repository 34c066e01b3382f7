# Installs the built tree into a scratch prefix, then configures, builds and runs a consumer that
# uses find_package(mqlcl) and calls the library.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/consumer)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${WORK_DIR}/prefix --component Unspecified)
file(WRITE ${WORK_DIR}/consumer/CMakeLists.txt [=[
cmake_minimum_required(VERSION 3.20)
project(consumer LANGUAGES C)
find_package(mqlcl 1.0 REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE mqlcl::mqlcl)
]=])
file(WRITE ${WORK_DIR}/consumer/main.c [=[
#include <mqlcl/mqlcl.h>
#include <stdio.h>
int main(void) {
  char16_t version[32];
  if (!CLGetInfoString(0, MQLCL_CL_BRIDGE_VERSION, version, 32)) return 1;
  printf("found mqlcl through find_package\n");
  return 0;
}
]=])
# A sanitized library needs a consumer built the same way (the runtime must load first).
list(JOIN SANITIZE_FLAGS " " sanitize_flags)
run(${CMAKE_COMMAND} -S ${WORK_DIR}/consumer -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_RPATH=${WORK_DIR}/prefix/lib
    -DCMAKE_C_COMPILER=${C_COMPILER} "-DCMAKE_C_FLAGS=${sanitize_flags}"
    "-DCMAKE_EXE_LINKER_FLAGS=${sanitize_flags}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
message(STATUS "install + find_package(mqlcl) consumer: OK")
