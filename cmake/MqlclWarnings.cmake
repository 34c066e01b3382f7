# mqlcl_warnings(target): the project's warning set, as errors when MQLCL_WERROR is on.
function(mqlcl_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 $<$<BOOL:${MQLCL_WERROR}>:/WX>)
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                             -Wno-sign-conversion $<$<BOOL:${MQLCL_WERROR}>:-Werror>)
  endif()
endfunction()
