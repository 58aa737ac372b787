# cmake -DIN=FILE -DOUT=HEADER -DNAME=SYMBOL -P embed_text.cmake: FILE as a NUL-terminated
# C array `static const char SYMBOL[]` in HEADER (bytes, so no escaping can go wrong).
file(READ ${IN} content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${content}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT}.tmp "/* Generated from ${IN} by embed_text.cmake: do not edit. */\n"
	"static const char ${NAME}[] = {\n${bytes}0x00};\n")
file(RENAME ${OUT}.tmp ${OUT})
