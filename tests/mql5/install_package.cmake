# Installs the `mql5` component - MetaTrader's MQL5 folder - afresh into PREFIX.
file(REMOVE_RECURSE ${PREFIX})
execute_process(
  COMMAND ${CMAKE_COMMAND} --install ${BINARY_DIR} --component mql5 --prefix ${PREFIX}
          --config ${CONFIG}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cmake --install --component mql5 failed:\n${out}")
endif()
message(STATUS "${out}")
