# Writes OUTPUT, a C header defining `static const unsigned char NAME[]`
# with the bytes of INPUT (a test model embeds a built image this way).
# Usage: cmake -DINPUT=file -DOUTPUT=header -DNAME=symbol -P EmbedFile.cmake
file(READ ${INPUT} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUTPUT} "/* Generated from ${INPUT}. */\n"
  "static const unsigned char ${NAME}[] = {${bytes}};\n")
