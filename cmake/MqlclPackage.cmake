# `cpack --preset mingw`: a zip laid out as a MetaTrader 5 data folder, to unpack over one
# (docs/windows.md):
#   MQL5/Libraries/mqlcl.dll        the bridge, as MQL5's #import "mqlcl.dll" finds it
#   MQL5/Include/mqlcl/mqlcl.h      the C ABI the #import declarations follow (reference)
#   MQL5/Include/mqlcl/*.mqh, MQL5/Scripts/mqlcl/*.mq5, ...   from mql5/, once it exists
#   README-mqlcl.txt                what goes where, for a terminal's user
# The zip holds every install component whose name starts with "mt5" or "mql5"; such a
# component installs to paths relative to the data folder (DESTINATION MQL5/...). This file's
# own, mt5_library, is EXCLUDE_FROM_ALL, so a plain `cmake --install` (the library, header and
# CMake package) does not also write an MQL5/ folder. Included last, once every component is
# known.

install(TARGETS mqlcl RUNTIME DESTINATION MQL5/Libraries COMPONENT mt5_library EXCLUDE_FROM_ALL)
install(FILES ${PROJECT_SOURCE_DIR}/include/mqlcl/mqlcl.h DESTINATION MQL5/Include/mqlcl
        COMPONENT mt5_library EXCLUDE_FROM_ALL)
# What goes where in the terminal's folders, beside MQL5/ at the zip's root.
install(FILES ${PROJECT_SOURCE_DIR}/mql5/README-mqlcl.txt DESTINATION .
        COMPONENT mt5_library EXCLUDE_FROM_ALL)

# One install of those components into one staging folder, zipped as a whole: two components
# may install the same file (mql5/ also puts the DLL into MQL5/Libraries on Windows), and a
# per-component archive would then hold that entry twice.
get_cmake_property(mqlcl_all_components COMPONENTS)
set(mqlcl_mt5_components "")
set(CPACK_INSTALL_CMAKE_PROJECTS "")
foreach(component IN LISTS mqlcl_all_components)
  if(component MATCHES "^(mt5|mql5)")
    list(APPEND mqlcl_mt5_components ${component})
    list(APPEND CPACK_INSTALL_CMAKE_PROJECTS ${PROJECT_BINARY_DIR} ${PROJECT_NAME} ${component} /)
  endif()
endforeach()
message(STATUS "MT5 zip (cpack): components ${mqlcl_mt5_components}")

set(CPACK_GENERATOR ZIP)
set(CPACK_PACKAGE_NAME mqlcl)
set(CPACK_PACKAGE_VENDOR mqlcl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_FILE_NAME mqlcl-${PROJECT_VERSION}-mt5-win64)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/package)
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY OFF) # MQL5/ at the zip's root
include(CPack)
