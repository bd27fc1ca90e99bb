# packaging/man.cmake - hugepolicy(1), (3), (7) from their scdoc sources in
# man/, built with the project (target hugepolicy_man: build/man/hugepolicy.N
# for `man -l`) and installed gzip -9n compressed, as Debian wants them:
# section 1 and 7 with the CLI, section 3 with the development files.
find_program(SCDOC scdoc)
if(NOT SCDOC)
  message(FATAL_ERROR "scdoc not found: the man pages are built with it "
    "(Debian package scdoc; sh .ci/install-deps installs it)")
endif()
set(HP_MAN_PAGES "")
foreach(page hugepolicy.1 hugepolicy.3 hugepolicy.7)
  set(out ${CMAKE_BINARY_DIR}/man/${page})
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${SCDOC} < ${CMAKE_SOURCE_DIR}/man/${page}.scd > ${out}
    DEPENDS ${CMAKE_SOURCE_DIR}/man/${page}.scd
    COMMENT "scdoc man/${page}.scd"
    VERBATIM)
  add_custom_command(OUTPUT ${out}.gz
    COMMAND gzip -9nc ${out} > ${out}.gz
    DEPENDS ${out}
    VERBATIM)
  list(APPEND HP_MAN_PAGES ${out} ${out}.gz)
  string(REGEX MATCH "[0-9]$" section ${page})
  set(component CLI)
  if(section STREQUAL 3)
    set(component Development)
  endif()
  install(FILES ${out}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section} COMPONENT ${component})
endforeach()
# `man hugepolicy_stats` and the like: one ".so man3/hugepolicy.3" link page
# per function declared in include/hugepolicy.h (re-read when it changes)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/hugepolicy.h)
file(STRINGS ${CMAKE_SOURCE_DIR}/include/hugepolicy.h HP_DECLS REGEX "^[a-z].*[ *]hugepolicy_[a-z0-9_]+\\(")
set(HP_MAN_LINKS "")
foreach(decl ${HP_DECLS})
  string(REGEX MATCH "hugepolicy_[a-z0-9_]+\\(" fn "${decl}")
  string(REPLACE "(" "" fn "${fn}")
  set(link ${CMAKE_BINARY_DIR}/man/links/${fn}.3.gz)
  add_custom_command(OUTPUT ${link}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man/links
    COMMAND sh -c "echo '.so man3/hugepolicy.3' | gzip -9nc > ${link}"
    VERBATIM)
  list(APPEND HP_MAN_LINKS ${link})
endforeach()
install(FILES ${HP_MAN_LINKS} DESTINATION ${CMAKE_INSTALL_MANDIR}/man3 COMPONENT Development)
add_custom_target(hugepolicy_man ALL DEPENDS ${HP_MAN_PAGES} ${HP_MAN_LINKS})
