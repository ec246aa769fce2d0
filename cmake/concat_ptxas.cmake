# Concatenates the per-object ptxas reports (DIRECTORY/*.ptxas.txt) into OUTPUT.
file(GLOB reports ${DIRECTORY}/*.ptxas.txt)
list(SORT reports)
set(text "")
foreach(report IN LISTS reports)
  file(READ ${report} content)
  string(APPEND text "${content}")
endforeach()
file(WRITE ${OUTPUT} "${text}")
