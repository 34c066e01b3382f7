# `cpack --preset mingw`: a zip laid out as a MetaTrader 5 data folder, to unpack over one
# (docs/windows.md):
#   MQL5/Libraries/mqlcl.dll        the bridge, as MQL5's #import "mqlcl.dll" finds it
#   MQL5/Include/mqlcl/mqlcl.h      the C ABI the #import declarations follow (reference)
#   MQL5/Include/mqlcl/*.mqh, MQL5/Scripts/mqlcl/*.mq5, ...   from mql5/, once it exists
# The zip holds every install component whose name starts with "mt5" or "mql5"; such a
# component installs to paths relative to the data folder (DESTINATION MQL5/...). They are
# EXCLUDE_FROM_ALL, so a plain `cmake --install` (the library, header and CMake package) does
# not scatter an MQL5/ folder into its prefix. Included last, once every component is known.

install(TARGETS mqlcl RUNTIME DESTINATION MQL5/Libraries COMPONENT mt5_library EXCLUDE_FROM_ALL)
install(FILES ${PROJECT_SOURCE_DIR}/include/mqlcl/mqlcl.h DESTINATION MQL5/Include/mqlcl
        COMPONENT mt5_library EXCLUDE_FROM_ALL)

get_cmake_property(mqlcl_all_components COMPONENTS)
set(CPACK_COMPONENTS_ALL "")
foreach(component IN LISTS mqlcl_all_components)
  if(component MATCHES "^(mt5|mql5)")
    list(APPEND CPACK_COMPONENTS_ALL ${component})
  endif()
endforeach()
message(STATUS "MT5 zip (cpack): components ${CPACK_COMPONENTS_ALL}")

set(CPACK_GENERATOR ZIP)
set(CPACK_PACKAGE_NAME mqlcl)
set(CPACK_PACKAGE_VENDOR mqlcl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_FILE_NAME mqlcl-${PROJECT_VERSION}-mt5-win64)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/package)
set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE) # one zip, not one per component
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY OFF)             # MQL5/ at the zip's root
include(CPack)
