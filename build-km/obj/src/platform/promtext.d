build-km/obj/src/platform/promtext.o: src/platform/promtext.c \
  src/platform/promtext.h src/platform/numfmt.h

src/platform/promtext.h:

src/platform/numfmt.h:
