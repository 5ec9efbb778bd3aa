# Programs linked with the code they run gathered at their start, in the order of a list of
# function names written by scripts/link_order.sh from a profile: the kernel maps a program's
# code 64 KiB at a time around each page a process runs, so run code spread over a whole
# program keeps most of it resident in every process (bench/README.md, "Memory"). GNU ld cannot
# order sections from a list; lld can. Without lld the programs link as they are, only larger
# in memory.
include(CheckLinkerFlag)
check_linker_flag(CXX "-fuse-ld=lld" ALLFIVES_HAVE_LLD)
if(NOT ALLFIVES_HAVE_LLD)
  message(WARNING "lld not found (apt-get install lld): the referee and the sample bots are "
                  "linked without their link_order.txt, and each of their processes keeps about "
                  "2 MB more of its code resident")
endif()

# `target` linked in the order of `order_file` where lld is available.
function(allfives_link_in_order target order_file)
  if(ALLFIVES_HAVE_LLD)
    target_link_options(${target} PRIVATE -fuse-ld=lld "LINKER:--symbol-ordering-file=${order_file}"
                        "LINKER:--no-warn-symbol-ordering")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${order_file})
  endif()
endfunction()
