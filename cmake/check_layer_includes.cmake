# cmake -DNAME=harness/model -DALLOWED="core|family|model" -DALLOW_KERNELS=OFF -DFILES="a.cpp|b.hpp"
#       [-DKNOWN_CIRCLES="a:b|c:d"] -DSTAMP=out -P check_layer_includes.cmake
# Fails, naming each file and line, where one of FILES includes a harness/<layer>/ header of a
# layer not in ALLOWED (one above it: data flows one way, docs/layout.md), or a kernels/ header
# without ALLOW_KERNELS, or where two modules of the layer include each other (a module: x.hpp
# with its x.cpp or x.cu) that KNOWN_CIRCLES does not list. Touches STAMP when every include is allowed.
cmake_minimum_required(VERSION 3.24)
string(REPLACE "|" ";" files "${FILES}")
string(REPLACE "|" ";" allowed "${ALLOWED}")
string(REPLACE "|" ";" known_circles "${KNOWN_CIRCLES}")
set(errors "")
set(edges "")  # "harness/sweep/a>harness/sweep/b": a module that includes another of its layer

# harness/<layer>/.../<name>, without the extension: a file's module (from the last "harness/").
function(module_of path out)
  string(FIND "${path}" "harness/" at REVERSE)
  if(at LESS 0)  # a file outside harness/ (a test fixture): its whole path
    set(at 0)
  endif()
  string(SUBSTRING "${path}" ${at} -1 tail)
  string(REGEX REPLACE "\\.(hpp|cpp|cu)$" "" tail "${tail}")
  set(${out} "${tail}" PARENT_SCOPE)
endfunction()

foreach(file IN LISTS files)
  module_of("${file}" from)
  file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"(harness|kernels)/")
  foreach(line IN LISTS includes)
    string(STRIP "${line}" line)
    if(line MATCHES "\"harness/([A-Za-z0-9_]+)/")
      if(NOT CMAKE_MATCH_1 IN_LIST allowed)
        string(APPEND errors "\n  ${file}: ${line} (the ${CMAKE_MATCH_1} layer is above ${NAME})")
      elseif(line MATCHES "\"(harness/[^\"]+)\"")
        module_of("${CMAKE_MATCH_1}" to)
        if(NOT to STREQUAL from)
          list(APPEND edges "${from}>${to}")
        endif()
      endif()
    elseif(line MATCHES "\"kernels/" AND NOT ALLOW_KERNELS)
      string(APPEND errors "\n  ${file}: ${line} (kernel families are above ${NAME})")
    endif()
  endforeach()
endforeach()
# Inside a layer, data flows one way too: no two modules that include each other.
foreach(edge IN LISTS edges)
  string(REPLACE ">" ";" ends "${edge}")
  list(GET ends 0 a)
  list(GET ends 1 b)
  string(REPLACE "${NAME}/" "" a_name "${a}")
  string(REPLACE "${NAME}/" "" b_name "${b}")
  if("${a_name}:${b_name}" IN_LIST known_circles OR "${b_name}:${a_name}" IN_LIST known_circles)
    continue()
  endif()
  if("${b}>${a}" IN_LIST edges AND a STRLESS b)
    string(APPEND errors "\n  ${a} and ${b} include each other (a circle inside ${NAME})")
  endif()
endforeach()
if(errors)
  string(REPLACE ";" ", " allowed_text "${allowed}")
  message(FATAL_ERROR "${NAME} may include only the harness layers ${allowed_text} (docs/layout.md):${errors}")
endif()
file(TOUCH "${STAMP}")
