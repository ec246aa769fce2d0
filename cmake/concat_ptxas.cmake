# Concatenates the per-object ptxas reports (DIRECTORY/**/*.ptxas.txt: the ladder and, in the
# sample build, the sample parts) into OUTPUT.
file(GLOB_RECURSE reports ${DIRECTORY}/*.ptxas.txt)
list(SORT reports)
set(text "")
foreach(report IN LISTS reports)
  file(READ ${report} content)
  string(APPEND text "${content}")
endforeach()
file(WRITE ${OUTPUT} "${text}")
