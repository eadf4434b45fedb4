build-km/obj/src/platform/parse.o: src/platform/parse.c \
  src/platform/parse.h

src/platform/parse.h:
