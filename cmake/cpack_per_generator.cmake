# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE, cmake/packaging.cmake).
if(CPACK_GENERATOR STREQUAL "TGZ")
  set(CPACK_COMPONENT_INCLUDE_TOPLEVEL_DIRECTORY ON)
endif()
