# Cross-builds the Windows x64 mqlcl.dll (and the tests, as .exe) on Debian with MinGW-w64;
# ctest runs the .exe files under Wine (CMAKE_CROSSCOMPILING_EMULATOR). docs/windows.md.
#   cmake --preset mingw   (needs g++-mingw-w64-x86-64, mingw-w64-tools, wine64, wine)
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(MQLCL_MINGW_TRIPLET x86_64-w64-mingw32)
# The -posix variants: the default -win32 GCC 12 has no std::thread / std::mutex.
set(CMAKE_C_COMPILER ${MQLCL_MINGW_TRIPLET}-gcc-posix)
set(CMAKE_CXX_COMPILER ${MQLCL_MINGW_TRIPLET}-g++-posix)
set(CMAKE_RC_COMPILER ${MQLCL_MINGW_TRIPLET}-windres)

# Fully static: the DLL and the tests then import only system DLLs, never libstdc++-6.dll,
# libgcc_s_seh-1.dll or libwinpthread-1.dll (which MetaTrader's folder does not have).
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT "-static")
endforeach()

# Run the cross-built programs (ctest, try_run) under Wine (/usr/lib/wine/wine64 on Debian 12),
# through a wrapper that sets the prefix (in the build tree) and starts wineserver detached.
get_filename_component(mqlcl_source_dir ${CMAKE_CURRENT_LIST_DIR}/../.. ABSOLUTE)
set(CMAKE_CROSSCOMPILING_EMULATOR ${mqlcl_source_dir}/tools/wine-run.sh
                                  ${CMAKE_BINARY_DIR}/wineprefix)

# Libraries, headers and packages come from the MinGW sysroot, never from the host's /usr
# (whose Linux headers break a Windows build), except the header-only parts the project needs:
# CL, boost, fmt, nlohmann (JSON) and CLI (CLI11), seen through a folder of symlinks so that nothing else of /usr/include is.
set(CMAKE_FIND_ROOT_PATH /usr/${MQLCL_MINGW_TRIPLET})
get_property(mqlcl_in_try_compile GLOBAL PROPERTY IN_TRY_COMPILE)
if(NOT mqlcl_in_try_compile)
  set(MQLCL_HOST_HEADERS ${CMAKE_BINARY_DIR}/mingw-host-headers)
  file(MAKE_DIRECTORY ${MQLCL_HOST_HEADERS}/include)
  foreach(folder CL boost fmt nlohmann CLI)
    if(EXISTS /usr/include/${folder} AND NOT EXISTS ${MQLCL_HOST_HEADERS}/include/${folder})
      file(CREATE_LINK /usr/include/${folder} ${MQLCL_HOST_HEADERS}/include/${folder} SYMBOLIC)
    endif()
  endforeach()
  list(APPEND CMAKE_FIND_ROOT_PATH ${MQLCL_HOST_HEADERS})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
