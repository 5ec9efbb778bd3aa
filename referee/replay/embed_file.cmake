# Turns a file into a C++ source defining `const unsigned char NAME[]` (NUL-terminated) and
# `const unsigned long NAME_SIZE` in namespace allfives::referee, so the referee binary
# carries the file. Usage: cmake -DIN=file -DOUT=file.cpp -DNAME=kName -P embed_file.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)"
       "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}.tmp"
  "// Generated from ${IN} by embed_file.cmake; do not edit.\n"
  "namespace allfives::referee {\n"
  "extern const unsigned char ${NAME}[];\n"
  "extern const unsigned long ${NAME}Size;\n"
  "const unsigned char ${NAME}[] = {\n${bytes}0x00};\n"
  "const unsigned long ${NAME}Size = ${size};\n"
  "}  // namespace allfives::referee\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
