# The PE tables of what ships, read with objdump -p (run by ctest as test_windows_pe_tables):
#  - mqlcl.dll exports exactly the functions the header declares (MQLCL_API), by plain name:
#    no stdcall '@n' decoration, no C++ (_Z) name, nothing else;
#  - mqlcl.dll, and mqlcl-replay.exe when it is built, import only system DLLs: not OpenCL.dll
#    (the bridge loads it at run time, so the DLL loads where there is no OpenCL at all) and no
#    MinGW runtime (libstdc++-6, libgcc_s_seh-1, libwinpthread-1: a terminal folder lacks them).
# cmake -DOBJDUMP=... -DHEADER=.../mqlcl.h -DLIBRARY=.../mqlcl.dll -DBIN_DIR=... -P this file
cmake_minimum_required(VERSION 3.20)

# Windows' own DLLs (compared in upper case); api-ms-win-* are its API sets.
set(system_dlls KERNEL32 MSVCRT UCRTBASE NTDLL ADVAPI32 USER32 GDI32 SHELL32 SHLWAPI OLE32
                OLEAUT32 WS2_32 BCRYPT CRYPT32 VERSION PSAPI DBGHELP)
set(runtime_dlls LIBSTDC++-6 LIBGCC_S_SEH-1 LIBWINPTHREAD-1)

set(failures "")
macro(fail message)
  string(APPEND failures "  ${message}\n")
endmacro()

function(pe_tables file exports_out imports_out)
  execute_process(COMMAND ${OBJDUMP} -p ${file} RESULT_VARIABLE result OUTPUT_VARIABLE dump
                  ERROR_VARIABLE error)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "objdump -p ${file} failed: ${error}")
  endif()
  string(REPLACE ";" "," dump "${dump}")
  string(REPLACE "\n" ";" lines "${dump}")
  set(exports "")
  set(imports "")
  set(in_names OFF)
  foreach(line IN LISTS lines)
    if(line MATCHES "^\\[Ordinal/Name Pointer\\] Table")
      set(in_names ON)
    elseif(in_names AND line MATCHES "^[ \t]*\\[ *[0-9]+\\] (.+)$")
      list(APPEND exports "${CMAKE_MATCH_1}")
    elseif(in_names)
      set(in_names OFF)
    endif()
    if(line MATCHES "^[ \t]*DLL Name: (.+)$")
      list(APPEND imports "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${exports_out} "${exports}" PARENT_SCOPE)
  set(${imports_out} "${imports}" PARENT_SCOPE)
endfunction()

# Every import must be a system DLL.
function(check_imports file imports)
  get_filename_component(name ${file} NAME)
  foreach(dll IN LISTS imports)
    string(TOUPPER "${dll}" upper)
    string(REGEX REPLACE "\\.DLL$" "" base "${upper}")
    if(base IN_LIST runtime_dlls)
      fail("${name} needs the MinGW runtime DLL ${dll} (link with -static)")
    elseif(base STREQUAL "OPENCL")
      fail("${name} imports OpenCL.dll; the bridge must load it at run time")
    elseif(NOT base IN_LIST system_dlls AND NOT base MATCHES "^API-MS-WIN-")
      fail("${name} imports ${dll}, which is not a system DLL")
    endif()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

# The header's functions.
file(READ ${HEADER} header)
set(space "[ \t\r\n]")
string(REGEX MATCHALL "MQLCL_API${space}+[A-Za-z0-9_]+${space}*\\*?${space}*CL[A-Za-z0-9]+${space}*\\("
       declarations "${header}")
set(declared "")
foreach(declaration IN LISTS declarations)
  string(REGEX REPLACE ".*(CL[A-Za-z0-9]+)[ \t\r\n]*\\($" "\\1" name "${declaration}")
  list(APPEND declared ${name})
endforeach()
list(SORT declared)
list(LENGTH declared declared_count)
if(declared_count LESS 19)
  message(FATAL_ERROR "parsed only ${declared_count} functions from ${HEADER}")
endif()

pe_tables(${LIBRARY} exports imports)
list(SORT exports)
foreach(symbol IN LISTS exports)
  if(symbol MATCHES "@")
    fail("decorated export ${symbol}")
  elseif(symbol MATCHES "^_Z")
    fail("C++ export ${symbol}")
  elseif(NOT symbol IN_LIST declared)
    fail("export ${symbol} is not in the header")
  endif()
endforeach()
foreach(name IN LISTS declared)
  if(NOT name IN_LIST exports)
    fail("the header's ${name} is not exported")
  endif()
endforeach()
check_imports(${LIBRARY} "${imports}")
list(LENGTH exports export_count)
get_filename_component(library_name ${LIBRARY} NAME)
message(STATUS "${library_name}: ${export_count} exports (the header declares ${declared_count}); "
               "imports: ${imports}")

if(EXISTS ${BIN_DIR}/mqlcl-replay.exe)
  pe_tables(${BIN_DIR}/mqlcl-replay.exe replay_exports replay_imports)
  check_imports(${BIN_DIR}/mqlcl-replay.exe "${replay_imports}")
  message(STATUS "mqlcl-replay.exe imports: ${replay_imports}")
endif()

if(failures)
  message(FATAL_ERROR "PE table check failed:\n${failures}")
endif()
message(STATUS "PE tables: OK")
