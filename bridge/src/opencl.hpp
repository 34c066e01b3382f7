// The one place that includes the OpenCL headers, so every file targets the same API level.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120 // what MetaTrader and Wine's OpenCL.dll expose
#endif
#include <CL/cl.h>
