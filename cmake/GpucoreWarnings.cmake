# The project's warning level, applied per target (never to third-party code).
add_library(gpucore_warnings INTERFACE)
target_compile_options(gpucore_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
