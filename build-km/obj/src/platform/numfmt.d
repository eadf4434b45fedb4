build-km/obj/src/platform/numfmt.o: src/platform/numfmt.c \
  src/platform/numfmt.h

src/platform/numfmt.h:
