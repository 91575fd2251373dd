# cmake -DNAME=harness/model -DALLOWED="core|family|model" -DALLOW_KERNELS=OFF -DFILES="a.cpp|b.hpp"
#       -DSTAMP=out -P check_layer_includes.cmake
# Fails, naming each file and line, where one of FILES includes a harness/<layer>/ header of a
# layer not in ALLOWED (one above it: data flows one way, docs/layout.md), or a kernels/ header
# without ALLOW_KERNELS. Touches STAMP when every include is allowed.
cmake_minimum_required(VERSION 3.24)
string(REPLACE "|" ";" files "${FILES}")
string(REPLACE "|" ";" allowed "${ALLOWED}")
set(errors "")
foreach(file IN LISTS files)
  file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"(harness|kernels)/")
  foreach(line IN LISTS includes)
    string(STRIP "${line}" line)
    if(line MATCHES "\"harness/([A-Za-z0-9_]+)/")
      if(NOT CMAKE_MATCH_1 IN_LIST allowed)
        string(APPEND errors "\n  ${file}: ${line} (the ${CMAKE_MATCH_1} layer is above ${NAME})")
      endif()
    elseif(line MATCHES "\"kernels/" AND NOT ALLOW_KERNELS)
      string(APPEND errors "\n  ${file}: ${line} (kernel families are above ${NAME})")
    endif()
  endforeach()
endforeach()
if(errors)
  string(REPLACE ";" ", " allowed_text "${allowed}")
  message(FATAL_ERROR "${NAME} may include only the harness layers ${allowed_text} (docs/layout.md):${errors}")
endif()
file(TOUCH "${STAMP}")
