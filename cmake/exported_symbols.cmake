# Writes the names of the symbols a shared library exports (defined, in its
# dynamic symbol table), one per line: the list of globals libdeltac.a keeps.
# usage: cmake -DNM=nm -DLIB=libdeltac.so -DOUT=file -P exported_symbols.cmake
execute_process(COMMAND ${NM} -D --defined-only ${LIB} OUTPUT_VARIABLE lines RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D ${LIB} failed")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${lines}")
set(names "")
foreach(line ${lines})
  # "ADDRESS TYPE NAME"; a versioned name may carry @VERSION
  if(line MATCHES "^[0-9a-fA-F]+ [A-Za-z] ([^ @]+)")
    string(APPEND names "${CMAKE_MATCH_1}\n")
  endif()
endforeach()
if(names STREQUAL "")
  message(FATAL_ERROR "${LIB} exports no symbols")
endif()
file(WRITE ${OUT} "${names}")
