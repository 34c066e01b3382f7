# cmake -DOUTPUT_DIR=dir -DKERNELS="a.cl|b.cl" -P InlineKernels.cmake
# Writes each kernel file into OUTPUT_DIR under its own name, with its #include lines inlined
# (KernelIncludes.cmake): the text the OpenCL compiler gets, for packages whose users embed one
# file (mql5/: MQL5's #resource). A copy that is already up to date is left as it is.
include(${CMAKE_CURRENT_LIST_DIR}/KernelIncludes.cmake)
string(REPLACE "|" ";" KERNELS "${KERNELS}")
file(MAKE_DIRECTORY ${OUTPUT_DIR})
foreach(path IN LISTS KERNELS)
  get_filename_component(name ${path} NAME)
  mqlcl_inline_kernel_includes(${path} text files)
  file(WRITE ${OUTPUT_DIR}/${name}.tmp "${text}")
  file(COPY_FILE ${OUTPUT_DIR}/${name}.tmp ${OUTPUT_DIR}/${name} ONLY_IF_DIFFERENT)
  file(REMOVE ${OUTPUT_DIR}/${name}.tmp)
endforeach()
