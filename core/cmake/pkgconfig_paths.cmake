# SPDX-License-Identifier: Apache-2.0
# gpucore_pc_path(<out> <dir> <pc-dir>): <dir> (relative to the install prefix, or absolute) as
# pkg-config should write it in a .pc file installed in <pc-dir>: "${pcfiledir}/<relative path>"
# when both are under the prefix, so the installed tree can be moved; the absolute path otherwise.
function(gpucore_pc_path out dir pc_dir)
  if(IS_ABSOLUTE "${dir}" OR IS_ABSOLUTE "${pc_dir}")
    if(IS_ABSOLUTE "${dir}")
      set(${out} "${dir}" PARENT_SCOPE)
    else()
      set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
    endif()
    return()
  endif()
  # Both relative to the prefix: any root shows their relation.
  file(RELATIVE_PATH relative "/prefix/${pc_dir}" "/prefix/${dir}")
  string(REGEX REPLACE "/+$" "" relative "${relative}")
  if(relative STREQUAL "")
    set(${out} "\${pcfiledir}" PARENT_SCOPE)
  else()
    set(${out} "\${pcfiledir}/${relative}" PARENT_SCOPE)
  endif()
endfunction()
