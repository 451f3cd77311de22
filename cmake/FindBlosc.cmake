# Finds c-blosc (version 1) and defines the imported target Blosc::Blosc.
find_path(Blosc_INCLUDE_DIR NAMES blosc.h)
find_library(Blosc_LIBRARY NAMES blosc)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Blosc REQUIRED_VARS Blosc_LIBRARY Blosc_INCLUDE_DIR)
if(Blosc_FOUND AND NOT TARGET Blosc::Blosc)
  add_library(Blosc::Blosc UNKNOWN IMPORTED)
  set_target_properties(Blosc::Blosc PROPERTIES
    IMPORTED_LOCATION "${Blosc_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${Blosc_INCLUDE_DIR}")
endif()
